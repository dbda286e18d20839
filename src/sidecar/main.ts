// The sidecar binary: one entry, the subcommands of COMPAT.md.
//   clone-and-init            init container: get this pod's data, write its config files
//   config-and-serve | run    sidecar container: HTTP /health and /xbackup on 8080
//   heartbeat | pt-heartbeat  pt-heartbeat's job: sys_operator.heartbeat while writable
//   take-backup-to <host> <url>   backup Job (backups issue)
// Configuration comes from the environment (config.ts); `--data-dir=...` style flags override
// the container paths and ports for tests and the sandbox. The heartbeat container runs
// `pt-heartbeat` with the anchor's pt-heartbeat arguments (command-line.ts). Each command loads
// only its own modules: the long-running ones (serve, heartbeat) keep their memory small that way.
import type { Logger } from '../runtime/logger.ts';
import { errorMessage } from '../runtime/redact.ts';
import { sidecarLogger } from './log.ts';
import { ConfigError, loadConfig, OVERRIDE_FLAGS, podFilePaths, type Env } from './config.ts';
import { COMMAND_NEEDS, parseCommandLine, type ParsedCommandLine } from './command-line.ts';

const USAGE = `usage: sidecar <command> [--flag=value ...]
commands:
  clone-and-init               clone or restore the data directory if empty, write config files
  config-and-serve (or run)    serve /health and /xbackup on port 8080
  heartbeat                    write sys_operator.heartbeat every second while writable
  pt-heartbeat --update [--defaults-file F] [--fail-successive-errors N] ...
                               the same, with pt-heartbeat's arguments (the pt-heartbeat container)
  take-backup-to <host> <url>  stream a peer's backup to storage (not implemented yet)
overrides (all but pt-heartbeat): ${OVERRIDE_FLAGS.map((f) => `${f}=...`).join(' ')}`;

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
  });
}

async function run(line: ParsedCommandLine, env: Env, log: Logger): Promise<number> {
  const load = () => loadConfig(env, line.overrides, COMMAND_NEEDS[line.command]);
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
      const signal = await untilSignal();
      log.info('shutting down', { signal });
      await server.close();
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
    case 'take-backup-to':
      log.error('take-backup-to is not implemented yet (backups issue)');
      return 2;
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
  const operational = ['ConfigError', 'CloneError', 'ToolError', 'DataDirError', 'StorageError', 'HeartbeatError'];
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof ConfigError ? err.message : `${command} failed: ${errorMessage(err)}`;
  log.error(message, operational.includes(name) ? {} : { stack: err instanceof Error ? err.stack : String(err) });
  process.exitCode = 1;
}
