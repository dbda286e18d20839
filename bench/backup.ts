// `npm run bench -- backup [--quick]` (issue 14): take-backup-to against the anchor's backup
// pipeline. One MariaDB server with 1 GiB of InnoDB rows (--quick: 64 MiB) that compress about
// 4:1 like typical row data (a 256-byte random head, then a repeated digest), its sidecar serving
// /xbackup, and a local S3 server (s3rver). In the same run, alternately:
//   anchor: the anchor's pipeline `mariabackup --stream=xbstream | gzip` (one gzip process,
//           level 6), its output uploaded through the same src/storage S3 upload;
//   ours:   the real `sidecar take-backup-to` from the sidecar's /xbackup to S3: parallel gzip
//           members (level 1) on all cores, the xbstream scan, the multipart upload; run as the
//           image ships it, built JavaScript (`npm run build`, dist/sidecar/main.js), built first;
//   ours_ts: the same from the TypeScript sources (src/sidecar/main.ts, Node's type stripping), as
//           the tests run it: its peak RSS and time, to show what shipping JavaScript saves.
// Headline `ratio`: anchor seconds / ours seconds, best of each (end-to-end throughput; issue goal
// ≥ 2). Also: the peak RSS of take-backup-to in both forms (VmHWM; goal flat, < 150 MB); the CPU seconds each
// side spent, by process (wall times on a shared machine move with the load; CPU seconds much
// less): anchor = mariabackup + gzip, its upload, s3rver; ours = the source sidecar with
// mariabackup, take-backup-to, s3rver; the object sizes; and the compressors alone on one saved
// stream (gzip -6 and gzip -1 processes vs ours → /dev/null: `ratio_compressor_vs_gzip6`,
// `ratio_compressor_vs_gzip1`, the latter isolating the parallelism).
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../test/support/mariadb.ts';
import { startS3 } from '../test/support/s3.ts';
import { podEnv, SIDECAR_MAIN, startServeSidecar, startSidecar, type After } from '../test/integration/sidecar/support.ts';
import { loadConfig } from '../src/sidecar/config.ts';
import { outcomeOf } from '../src/sidecar/child.ts';
import { backupArgs, backupDefaults } from '../src/sidecar/tools.ts';
import { writeSecretFile } from '../src/sidecar/secret-file.ts';
import { parallelCompressor } from '../src/sidecar/compress.ts';
import { storageFor } from '../src/storage/index.ts';
import { build, DIST } from '../scripts/build.ts';

const quick = process.argv.includes('--quick');
const dataMb = quick ? 64 : 1024;
const rounds = quick ? 2 : 3;
const MiB = 1024 * 1024;

const cleanups: Array<() => unknown> = [];
const t: After = { after: (fn) => cleanups.push(fn) };
const log = (msg: string): void => void process.stderr.write(`[backup] ${msg}\n`);
const round2 = (n: number): number => Math.round(n * 100) / 100;

async function load(server: MariaDBServer, mb: number): Promise<number> {
  await server.sql('CREATE DATABASE bench');
  await server.sql('CREATE TABLE bench.t (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload VARBINARY(1024) NOT NULL) ENGINE=InnoDB');
  const row = '(CONCAT(RANDOM_BYTES(256), REPEAT(MD5(RAND()), 24)))';
  await server.sql(`INSERT INTO bench.t (payload) VALUES ${Array.from({ length: 1000 }, () => row).join(',')}`);
  const want = Math.ceil((mb * MiB) / 1024);
  let rows = 1000;
  while (rows < want) {
    const add = Math.min(rows, want - rows);
    await server.sql(`INSERT INTO bench.t (payload) SELECT CONCAT(RANDOM_BYTES(256), REPEAT(MD5(RAND()), 24)) FROM bench.t LIMIT ${add}`);
    rows += add;
  }
  return rows;
}

function hwmOf(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Fields of /proc/<pid>/stat after the command name (field 3 onwards). */
function statOf(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
const ticks = (f: string[], fields: number[]): number => fields.reduce((sum, i) => sum + Number(f[i]), 0) / 100;
/** CPU seconds of a process and of its children it has waited for (utime, stime, cutime, cstime). */
const cpuOf = (pid: number): number => ticks(statOf(pid), [11, 12, 13, 14]);
/** CPU seconds of this process's children reaped so far (a finished pipeline or take-backup-to). */
const reapedCpu = (): number => ticks(statOf('self'), [13, 14]);
const ownCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const devNull = (): Writable => new Writable({ write: (_c, _e, cb) => cb() });

try {
  build();
  const server = await startMariaDB({
    name: 'bench-backup',
    systemUsers: true,
    t,
    extraConfig: ['innodb-buffer-pool-size=256M', 'innodb-flush-log-at-trx-commit=0'],
  });
  await (await server.node()).setReadOnly(false);
  const started = performance.now();
  const rows = await load(server, dataMb);
  log(`loaded ${rows} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const s3 = await startS3({ t });
  const storage = storageFor(`s3://${s3.bucket}/`, s3.env);
  const sidecar = await startServeSidecar(t, server);
  const work = await mkdtemp(join(tmpdir(), 'bench-backup-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  const cfg = loadConfig(podEnv({ MY_POD_NAME: 'c-mysql-1' }), [], ['version', 'backup-http']);
  const defaults = await writeSecretFile('backup.cnf', backupDefaults(TEST_SYSTEM_USERS.backupTool));
  t.after(() => defaults.remove());
  const toolArgs = (dir: string) =>
    backupArgs(
      { ...cfg, mysql: { host: server.host, port: server.port }, paths: { ...cfg.paths, xtrabackupTargetDir: dir } },
      defaults.path,
      TEST_SYSTEM_USERS.backupTool,
    );

  interface Run {
    s: number;
    bytes: number;
    cpu: Record<string, number>;
  }

  /** The anchor's pipeline: mariabackup | gzip, uploaded; seconds, object bytes, CPU seconds. */
  const anchor = async (i: number): Promise<Run> => {
    const [reaped0, own0, s30] = [reapedCpu(), ownCpu(), cpuOf(s3.pid)];
    const begin = performance.now();
    const child = spawn('bash', ['-c', 'set -o pipefail; mariabackup "$@" | gzip -c', 'bash', ...toolArgs(join(work, `a-${i}`))], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const outcome = outcomeOf(child);
    const { bytes } = await storage.upload(`s3://${s3.bucket}/anchor-${i}.xbackup.gz`, child.stdout!);
    const o = await outcome;
    if (!o.ok) throw new Error(`anchor pipeline failed: ${o.stderrTail}`);
    const s = (performance.now() - begin) / 1000;
    return { s, bytes, cpu: { mariabackup_gzip: reapedCpu() - reaped0, upload: ownCpu() - own0, s3rver: cpuOf(s3.pid) - s30 } };
  };

  /** take-backup-to as the backup Job runs it; seconds, object bytes, CPU seconds, stream bytes, peak RSS. */
  const ours = async (i: number, main: string): Promise<Run & { streamBytes: number; hwm: number }> => {
    const [reaped0, src0, s30] = [reapedCpu(), cpuOf(sidecar.proc.pid!), cpuOf(s3.pid)];
    const begin = performance.now();
    const job = startSidecar(
      ['take-backup-to', sidecar.url, `s3://${s3.bucket}/ours-${i}.xbackup.gz`],
      podEnv({ ...(s3.env as Record<string, string>) }),
      main,
    );
    let hwm = 0;
    const poll = setInterval(() => (hwm = Math.max(hwm, hwmOf(job.proc.pid!))), 50);
    const run = await job.done;
    clearInterval(poll);
    if (run.code !== 0) throw new Error(`take-backup-to failed: ${run.output}`);
    const report = JSON.parse(run.output.split('\n').find((l) => l.startsWith('{"url"')) ?? '{}') as { bytes: number; streamBytes: number };
    const s = (performance.now() - begin) / 1000;
    const cpu = {
      source_sidecar_mariabackup: cpuOf(sidecar.proc.pid!) - src0,
      take_backup_to: reapedCpu() - reaped0,
      s3rver: cpuOf(s3.pid) - s30,
    };
    return { s, bytes: report.bytes, cpu, streamBytes: report.streamBytes, hwm };
  };

  // One saved stream for the compressor-only comparison, and page cache warm-up for both sides.
  const streamFile = join(work, 'stream.xbstream');
  const save = spawn('mariabackup', toolArgs(join(work, 'warm')), { stdio: ['ignore', 'pipe', 'pipe'] });
  const saved = outcomeOf(save);
  await pipeline(save.stdout!, createWriteStream(streamFile));
  if (!(await saved).ok) throw new Error('mariabackup failed');
  const streamMb = statSync(streamFile).size / MiB;

  const compressorRun = async (kind: 'gzip -6' | 'gzip -1' | 'ours'): Promise<number> => {
    const begin = performance.now();
    if (kind === 'ours') {
      await pipeline(createReadStream(streamFile, { highWaterMark: MiB }), parallelCompressor('gzip'), devNull());
    } else {
      const o = await outcomeOf(spawn('sh', ['-c', `${kind} -c < '${streamFile}' > /dev/null`], { stdio: ['ignore', 'ignore', 'pipe'] }));
      if (!o.ok) throw new Error(`${kind} failed: ${o.stderrTail}`);
    }
    return (performance.now() - begin) / 1000;
  };

  const a: Run[] = [];
  const o: Array<Run & { streamBytes: number; hwm: number }> = [];
  const ts: Array<Run & { streamBytes: number; hwm: number }> = [];
  const comp: Record<string, number[]> = { 'gzip -6': [], 'gzip -1': [], ours: [] };
  for (let i = 0; i < rounds; i++) {
    a.push(await anchor(i));
    o.push(await ours(i, DIST.sidecar));
    ts.push(await ours(i, SIDECAR_MAIN));
    for (const k of ['gzip -6', 'gzip -1', 'ours'] as const) comp[k]!.push(await compressorRun(k));
    const cpuText = (r: Run): string =>
      Object.entries(r.cpu)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(' + ');
    log(
      `round ${i}: anchor ${a[i]!.s.toFixed(2)} s (cpu ${cpuText(a[i]!)}), ours ${o[i]!.s.toFixed(2)} s (cpu ${cpuText(o[i]!)}, peak ${Math.round(o[i]!.hwm / MiB)} MiB), ours_ts ${ts[i]!.s.toFixed(2)} s (peak ${Math.round(ts[i]!.hwm / MiB)} MiB); compressors ${Object.entries(
        comp,
      )
        .map(([k, v]) => `${k} ${v[i]!.toFixed(2)} s`)
        .join(', ')}`,
    );
  }
  const best = (xs: number[]): number => Math.min(...xs);
  /** Per process, the least CPU seconds any round spent (the run least disturbed by the machine's load). */
  const leastCpu = (runs: Run[]): Record<string, number> =>
    Object.fromEntries(Object.keys(runs[0]!.cpu).map((k) => [k, round2(best(runs.map((r) => r.cpu[k]!)))]));
  const total = (cpu: Record<string, number>): number => round2(Object.values(cpu).reduce((x, y) => x + y, 0));
  const bestA = best(a.map((r) => r.s));
  const bestO = best(o.map((r) => r.s));
  const c6 = best(comp['gzip -6']!);
  const c1 = best(comp['gzip -1']!);
  const cOurs = best(comp.ours!);
  const result = {
    bench: 'backup',
    quick,
    cores: availableParallelism(),
    data_mb: Math.round((rows * 1024) / MiB),
    stream_mb: Math.round(streamMb),
    rounds,
    anchor_s: round2(bestA),
    ours_s: round2(bestO),
    anchor_mib_s: round2(streamMb / bestA),
    ours_mib_s: round2(streamMb / bestO),
    anchor_object_mb: round2(a[0]!.bytes / MiB),
    ours_object_mb: round2(o[0]!.bytes / MiB),
    take_backup_peak_rss_mb: Math.round(Math.max(...o.map((r) => r.hwm)) / MiB),
    take_backup_peak_rss_mb_per_round: o.map((r) => Math.round(r.hwm / MiB)),
    take_backup_ts_peak_rss_mb: Math.round(Math.max(...ts.map((r) => r.hwm)) / MiB),
    take_backup_ts_peak_rss_mb_per_round: ts.map((r) => Math.round(r.hwm / MiB)),
    ours_ts_s: round2(best(ts.map((r) => r.s))),
    ours_ts_s_per_round: ts.map((r) => round2(r.s)),
    ratio_ts: round2(bestA / best(ts.map((r) => r.s))),
    anchor_s_per_round: a.map((r) => round2(r.s)),
    ours_s_per_round: o.map((r) => round2(r.s)),
    // Each round's pair ran back to back, under about the same load of the machine.
    ratio_per_round: a.map((r, i) => round2(r.s / o[i]!.s)),
    anchor_cpu_s: leastCpu(a),
    ours_cpu_s: leastCpu(o),
    anchor_cpu_s_total: total(leastCpu(a)),
    ours_cpu_s_total: total(leastCpu(o)),
    compressor_gzip6_mib_s: round2(streamMb / c6),
    compressor_gzip1_mib_s: round2(streamMb / c1),
    compressor_ours_mib_s: round2(streamMb / cOurs),
    ratio_compressor_vs_gzip6: round2(c6 / cOurs),
    ratio_compressor_vs_gzip1: round2(c1 / cOurs),
    ratio: round2(bestA / bestO),
  };
  console.log(JSON.stringify(result));
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
