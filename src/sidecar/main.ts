// The sidecar binary: one entry, the subcommands of docs/compatibility.md.
//   clone-and-init            init container: get this pod's data, write its config files
//   config-and-serve | run    sidecar container: HTTP /health and /xbackup on 8080
//   heartbeat | pt-heartbeat  pt-heartbeat's job: sys_operator.heartbeat while writable
//   take-backup-to <host> <url>   backup Job: a peer's /xbackup, compressed, to storage
// Configuration comes from the environment (config.ts); `--data-dir=...` style flags override
// the container paths and ports for tests and the sandbox. The heartbeat container runs
// `pt-heartbeat` with the anchor's pt-heartbeat arguments (command-line.ts). Each command loads
// only its own modules: the long-running ones (serve, heartbeat) keep their memory small that way.
import { availableParallelism } from 'node:os';
import type { Logger } from '../runtime/logger.ts';
import { errorMessage } from '../runtime/redact.ts';
import { sidecarLogger } from './log.ts';
import { ConfigError, loadConfig, OVERRIDE_FLAGS, podFilePaths, type Env } from './config.ts';
import { COMMAND_NEEDS, parseCommandLine, type ParsedCommandLine } from './command-line.ts';
import { writeTerminationMessage } from './termination-message.ts';

const USAGE = `usage: sidecar <command> [--flag=value ...]
commands:
  clone-and-init               clone or restore the data directory if empty, write config files
  config-and-serve (or run)    serve /health and /xbackup on port 8080
  heartbeat                    write sys_operator.heartbeat every second while writable
  pt-heartbeat --update [--defaults-file F] [--fail-successive-errors N] ...
                               the same, with pt-heartbeat's arguments (the pt-heartbeat container)
  take-backup-to <host> <url>  stream the backup of the sidecar at <host> to <url> (s3://, file://)
overrides (all but pt-heartbeat): ${OVERRIDE_FLAGS.map((f) => `${f}=...`).join(' ')}`;

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
  });
}

/** Where a failure is told to the pod status, once the configuration is known. */
let terminationLog: string | undefined;

async function run(line: ParsedCommandLine, env: Env, log: Logger): Promise<number> {
  const load = () => {
    const cfg = loadConfig(env, line.overrides, COMMAND_NEEDS[line.command]);
    terminationLog = cfg.paths.terminationLog;
    return cfg;
  };
  switch (line.command) {
    case 'clone-and-init': {
      const cfg = load();
      const { cloneAndInit } = await import('./clone-and-init.ts');
      const stop = new AbortController();
      void untilSignal().then(() => stop.abort());
      await cloneAndInit(cfg, log, stop.signal);
      return 0;
    }
    case 'config-and-serve': {
      const cfg = load();
      const { startServer } = await import('./serve.ts');
      const server = await startServer({ cfg, log });
      const stop = new AbortController();
      // Ours (docs/pitr.md): only with BINLOG_ARCHIVE_URL; loaded only then.
      const archiving = cfg.binlogArchive
        ? import('./binlog-archive-command.ts').then((m) => m.runBinlogArchiveCommand(cfg, env, log, stop.signal))
        : Promise.resolve();
      const signal = await untilSignal();
      log.info('shutting down', { signal });
      stop.abort();
      await Promise.all([server.close(), archiving]);
      return 0;
    }
    case 'heartbeat': {
      const cfg = load();
      const stop = new AbortController();
      void untilSignal().then(() => stop.abort());
      const { runHeartbeatCommand } = await import('./heartbeat-command.ts');
      const confPath = line.heartbeat.defaultsFile ?? podFilePaths(cfg.paths.configDir).heartbeat;
      await runHeartbeatCommand({ confPath, failSuccessiveErrors: line.heartbeat.failSuccessiveErrors }, log, stop.signal);
      return 0;
    }
    case 'take-backup-to': {
      const cfg = load();
      const [host, url] = line.positional as [string, string];
      // libuv reads UV_THREADPOOL_SIZE when the pool first starts: nothing here has used it yet
      // (module loading does not), so setting it in-process works, and the Job needs no core count.
      const { threadPoolSize } = await import('./compress.ts');
      const pool = threadPoolSize(env, availableParallelism());
      if (pool) process.env.UV_THREADPOOL_SIZE = pool;
      const { takeBackupTo } = await import('./take-backup.ts');
      const stop = new AbortController();
      void untilSignal().then(() => stop.abort());
      const report = await takeBackupTo(cfg, host, url, log, stop.signal);
      const json = JSON.stringify(report);
      process.stdout.write(`${json}\n`);
      await writeTerminationMessage(cfg.paths.terminationLog, json);
      log.info('backup stored', { url, bytes: report.bytes, seconds: report.durationSeconds, gtid: report.position?.gtid });
      return 0;
    }
  }
}

const args = process.argv.slice(2);
const command = args[0];
const line = parseCommandLine(args);
const log = sidecarLogger({ fields: { component: 'sidecar', command } });
try {
  if (line.ok) process.exitCode = await run(line.value, process.env, log);
  else {
    process.stderr.write(`${line.error}\n${USAGE}\n`);
    process.exitCode = 2;
  }
} catch (err) {
  // Operational failures (a bad variable, a broken clone, a failing tool) are said in one line;
  // anything else is a bug and keeps its stack.
  const operational = ['ConfigError', 'CloneError', 'ToolError', 'DataDirError', 'StorageError', 'HeartbeatError', 'BackupError'];
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof ConfigError ? err.message : `${command} failed: ${errorMessage(err)}`;
  log.error(message, operational.includes(name) ? {} : { stack: err instanceof Error ? err.stack : String(err) });
  if (terminationLog) await writeTerminationMessage(terminationLog, message);
  process.exitCode = 1;
}
