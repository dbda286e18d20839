// Benchmark of the sidecar's backup stream (issue 5). One MariaDB server with D MB of InnoDB
// data (1024; --quick: 64). In the same run, alternately:
//   baseline: `mariabackup --backup --stream=xbstream > /dev/null`
//   clone:    the real sidecar binary (`config-and-serve`) streams /xbackup over HTTP into the
//             clone path (src/sidecar/clone.ts: HTTP client → `mbstream -x` into a directory)
// Headline ratio: clone throughput / baseline throughput (target ≥ 0.9). References:
//   local_extract: `mariabackup | mbstream -x` on one host with the clone's extract arguments,
//                  no sidecar, no HTTP (`ratio_vs_local_extract`);
//   relay:         /xbackup read by a Node HTTP client that drops the bytes: the sidecar and HTTP
//                  without extraction (`ratio_relay`);
//   fresh_write:   `dd` of as many bytes as the clone unpacked into a new file: what the clone's
//                  file writes cost here before any stream is involved. On this VM memory the page
//                  cache gives back returns to the hypervisor within ~2 s, and each new page then
//                  faults in the host. `ratio_ceiling` is the best any clone path can reach.
//                  The three writing steps each start after 4 s idle (`settle`), so all three
//                  meet that same state instead of whatever the previous step left.
// Also: CPU seconds of the sidecar and of the clone's client process per stream, the sidecar's
// peak RSS (VmHWM) and its RSS growth during the streams (target flat, < 100 MB), and the time
// of `mariabackup --prepare` on the clone (not part of the ratio).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../test/support/mariadb.ts';
import { getBackup, podEnv, startServeSidecar, BACKUP, type After } from '../test/integration/sidecar/support.ts';
import { loadConfig, type SidecarConfig } from '../src/sidecar/config.ts';
import { cloneFromPeer, prepareBackup } from '../src/sidecar/clone.ts';
import { outcomeOf } from '../src/sidecar/child.ts';
import { backupArgs, backupDefaults, extractArgs } from '../src/sidecar/tools.ts';
import { writeSecretFile } from '../src/sidecar/secret-file.ts';

const quick = process.argv.includes('--quick');
const dataMb = quick ? 64 : 1024;
const rounds = 3;
const MiB = 1024 * 1024;

const cleanups: Array<() => unknown> = [];
const t: After = { after: (fn) => cleanups.push(fn) };

function log(msg: string): void {
  process.stderr.write(`[stream] ${msg}\n`);
}

/** `mb` MiB of InnoDB rows of 1 KiB of random bytes: 1,000 rows, then doubled up to the size. */
async function load(server: MariaDBServer, mb: number): Promise<number> {
  await server.sql('CREATE DATABASE bench');
  await server.sql('CREATE TABLE bench.t (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload VARBINARY(1024) NOT NULL) ENGINE=InnoDB');
  const values = Array.from({ length: 1000 }, () => '(RANDOM_BYTES(1024))').join(',');
  await server.sql(`INSERT INTO bench.t (payload) VALUES ${values}`);
  const want = Math.ceil((mb * MiB) / 1024);
  let rows = 1000;
  while (rows < want) {
    const add = Math.min(rows, want - rows);
    await server.sql(`INSERT INTO bench.t (payload) SELECT RANDOM_BYTES(1024) FROM bench.t LIMIT ${add}`);
    rows += add;
  }
  return rows;
}

/** What the backup tool runs with: the sidecar's configuration and the option file holding its password. */
interface Tool {
  cfg: SidecarConfig;
  defaultsFile: string;
}

/** The sidecar's own backup arguments (src/sidecar/tools.ts), aimed at `server` and `targetDir`. */
function mariabackupArgs({ cfg, defaultsFile }: Tool, server: MariaDBServer, targetDir: string): string[] {
  return backupArgs(
    { ...cfg, mysql: { host: server.host, port: server.port }, paths: { ...cfg.paths, xtrabackupTargetDir: targetDir } },
    defaultsFile,
    TEST_SYSTEM_USERS.backupTool,
  );
}

/** `mariabackup --backup --stream=xbstream > /dev/null`; seconds. */
async function baseline(tool: Tool, server: MariaDBServer, targetDir: string): Promise<number> {
  const devNull = openSync('/dev/null', 'w');
  const started = performance.now();
  const o = await outcomeOf(spawn('mariabackup', mariabackupArgs(tool, server, targetDir), { stdio: ['ignore', devNull, 'pipe'] }));
  closeSync(devNull);
  if (!o.ok) throw new Error(`baseline mariabackup failed: ${o.stderrTail}`);
  return (performance.now() - started) / 1000;
}

/** `mariabackup --backup --stream=xbstream | mbstream <the clone path's extract args>` without the sidecar; seconds. */
async function localExtract(tool: Tool, server: MariaDBServer, targetDir: string, extract: string[]): Promise<number> {
  const started = performance.now();
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own expansions, for bash to expand
  const script = 'set -o pipefail; n=$1; shift; mariabackup "${@:n+1}" | mbstream "${@:1:n}"';
  const child = spawn('bash', ['-c', script, 'bash', String(extract.length), ...extract, ...mariabackupArgs(tool, server, targetDir)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const o = await outcomeOf(child);
  if (!o.ok) throw new Error(`local extract failed: ${o.stderrTail}`);
  return (performance.now() - started) / 1000;
}

/**
 * Waits until the memory freed by the previous step has gone back to the hypervisor (~2 s here),
 * so that every step that writes files meets the same memory state: new pages for all of them.
 */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 4000));
}

/** `dd` of `bytes` zeros into the new file `path` (removed afterwards); seconds. */
async function freshWrite(path: string, bytes: number): Promise<number> {
  const started = performance.now();
  const o = await outcomeOf(
    spawn('dd', ['if=/dev/zero', `of=${path}`, 'bs=1M', `count=${Math.ceil(bytes / MiB)}`, 'status=none'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await rm(path, { force: true });
  if (!o.ok) throw new Error(`dd failed: ${o.stderrTail}`);
  return seconds;
}

/** User + system CPU seconds a process has used so far. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

function dirBytes(dir: string): number {
  let total = 0;
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else total += statSync(p).size;
    }
  };
  walk(dir);
  return total;
}

try {
  const server = await startMariaDB({
    name: 'bench-stream',
    systemUsers: true,
    t,
    extraConfig: ['innodb-buffer-pool-size=256M', 'innodb-flush-log-at-trx-commit=0', 'skip-log-bin'],
  });
  const node = await server.node();
  await node.setReadOnly(false);
  let started = performance.now();
  const rows = await load(server, dataMb);
  log(`loaded ${rows} rows (${((rows * 1024) / MiB).toFixed(0)} MiB of payload) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const sidecar = await startServeSidecar(t, server);
  const pid = sidecar.proc.pid!;
  const rssAtStart = rssOf(pid).rss;
  const work = await mkdtemp(join(tmpdir(), 'bench-stream-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  const cfg = loadConfig(podEnv({ MY_POD_NAME: 'c-mysql-1' }), [], ['version', 'backup-http']);
  if (cfg.backup.password !== BACKUP.password) throw new Error('bench: backup credentials differ');
  const defaults = await writeSecretFile('backup.cnf', backupDefaults(TEST_SYSTEM_USERS.backupTool));
  t.after(() => defaults.remove());
  const tool: Tool = { cfg, defaultsFile: defaults.path };

  // Page cache warm-up, so neither side pays for the first read from disk.
  await baseline(tool, server, join(work, 'xb-warm'));

  const baselineSeconds: number[] = [];
  const localSeconds: number[] = [];
  const cloneSeconds: number[] = [];
  const relaySeconds: number[] = [];
  const freshWriteSeconds: number[] = [];
  const sidecarCpu: number[] = [];
  const clientCpu: number[] = [];
  let streamBytes = 0;
  let rssMax = rssAtStart;
  let prepareSeconds = 0;
  for (let i = 0; i < rounds; i++) {
    baselineSeconds.push(await baseline(tool, server, join(work, `xb-${i}`)));

    const dir = join(work, `clone-${i}`);
    await mkdir(dir);
    await settle();
    localSeconds.push(await localExtract(tool, server, join(work, `xl-${i}`), extractArgs(cfg, dir)));
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await settle();
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssOf(pid).rss)), 100);
    const sidecarCpuBefore = cpuSecondsOf(pid);
    const clientCpuBefore = process.cpuUsage();
    started = performance.now();
    await cloneFromPeer(cfg, sidecar.url, dir, new AbortController().signal);
    cloneSeconds.push((performance.now() - started) / 1000);
    const client = process.cpuUsage(clientCpuBefore);
    clientCpu.push((client.user + client.system) / 1e6);
    sidecarCpu.push(cpuSecondsOf(pid) - sidecarCpuBefore);
    clearInterval(sampler);
    streamBytes = dirBytes(dir);
    if (i === rounds - 1) {
      started = performance.now();
      await prepareBackup(cfg, dir, new AbortController().signal);
      prepareSeconds = (performance.now() - started) / 1000;
    }
    await rm(dir, { recursive: true, force: true });
    started = performance.now();
    const relayed = await getBackup(sidecar.url, BACKUP);
    if (relayed.trailer !== 'Success') throw new Error(`relay: ${relayed.trailer ?? 'no trailer'}`);
    relaySeconds.push((performance.now() - started) / 1000);
    await settle();
    freshWriteSeconds.push(await freshWrite(join(work, `fresh-${i}`), streamBytes));
    log(
      `round ${i + 1}: baseline ${baselineSeconds[i]!.toFixed(2)} s, local extract ${localSeconds[i]!.toFixed(2)} s, ` +
        `clone ${cloneSeconds[i]!.toFixed(2)} s (CPU: sidecar ${sidecarCpu[i]!.toFixed(2)} s, client ${clientCpu[i]!.toFixed(2)} s), ` +
        `relay ${relaySeconds[i]!.toFixed(2)} s, fresh write ${freshWriteSeconds[i]!.toFixed(2)} s, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
    );
  }

  // Best of the rounds: the machine is shared, and interference only ever makes a run slower.
  const bestBaseline = Math.min(...baselineSeconds);
  const bestLocal = Math.min(...localSeconds);
  const bestClone = Math.min(...cloneSeconds);
  const bestRelay = Math.min(...relaySeconds);
  const bestFreshWrite = Math.min(...freshWriteSeconds);
  const mean = (xs: number[]): number => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
  const { hwm } = rssOf(pid);
  const mibs = (s: number): number => Math.round((streamBytes / MiB / s) * 10) / 10;
  const result = {
    bench: 'stream',
    quick,
    data_mb: Math.round((rows * 1024) / MiB),
    stream_mb: Math.round(streamBytes / MiB),
    rounds,
    baseline_s: Math.round(bestBaseline * 100) / 100,
    local_extract_s: Math.round(bestLocal * 100) / 100,
    clone_s: Math.round(bestClone * 100) / 100,
    baseline_mib_s: mibs(bestBaseline),
    local_extract_mib_s: mibs(bestLocal),
    clone_mib_s: mibs(bestClone),
    relay_s: Math.round(bestRelay * 100) / 100,
    relay_mib_s: mibs(bestRelay),
    fresh_write_s: Math.round(bestFreshWrite * 100) / 100,
    fresh_write_mib_s: mibs(bestFreshWrite),
    clone_sidecar_cpu_s: mean(sidecarCpu),
    clone_client_cpu_s: mean(clientCpu),
    prepare_s: Math.round(prepareSeconds * 100) / 100,
    sidecar_rss_start_mb: Math.round(rssAtStart / MiB),
    sidecar_rss_max_mb: Math.round(rssMax / MiB),
    sidecar_peak_rss_mb: Math.round(hwm / MiB),
    ratio_vs_local_extract: Math.round((bestLocal / bestClone) * 1000) / 1000,
    ratio_relay: Math.round((bestBaseline / bestRelay) * 1000) / 1000,
    // A clone both receives the stream (no faster than the tool makes it) and writes the files (no
    // faster than dd writes as many bytes): the best ratio any clone path can reach on this host.
    ratio_ceiling: Math.round((bestBaseline / Math.max(bestBaseline, bestFreshWrite)) * 1000) / 1000,
    ratio: Math.round((bestBaseline / bestClone) * 1000) / 1000,
  };
  console.log(JSON.stringify(result));
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
