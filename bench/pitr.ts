// `npm run bench -- pitr [--quick]` (issue 25): the binlog archive (docs/pitr.md) under a write
// load, on one MariaDB 10.11 server and a local S3 server (s3rver).
//   lag:    one client commits small transactions back to back for `seconds` while the archiver
//           (src/sidecar/binlog-archive.ts, in process, interval 1 s) uploads; for each commit,
//           the time from its COMMIT returning to the end of the upload whose end position holds
//           its GTID: p50, p99, max.
//   cost:   the same writer for the same time without the archiver just before, in each round:
//           commits per second with / without (`commit_rate_ratio_*`, 1 = no slower).
//   replay: the archive replayed onto an empty copy by the replay plan (`mariadb-binlog
//           --start-position=<applied> <segment> | mariadb` per segment), against one
//           `mariadb-binlog <the server's binlog files> | mariadb` onto another copy, same data;
//           both copies' CHECKSUM TABLE must equal the source's.
// Headline `ratio`: replay seconds of the plain pipeline / of the archive (1 = replaying the
// archive costs nothing over replaying the server's own files).
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import mysql from 'mysql2/promise';
import { gtidState } from '../src/api/binlog-archive.ts';
import { type ArchiverEvent, listSegments, runBinlogArchiver } from '../src/sidecar/binlog-archive.ts';
import { planReplay } from '../src/sidecar/decide-binlog-replay.ts';
import { storageFor } from '../src/storage/index.ts';
import { type MariaDBServer, startMariaDB, TEST_SYSTEM_USERS } from '../test/support/mariadb.ts';
import { startS3 } from '../test/support/s3.ts';

const quick = process.argv.includes('--quick');
const seconds = quick ? 6 : 15;
const rounds = quick ? 1 : 3;
const ARCHIVE = 's3://backups/bench/binlogs/';
const cleanups: Array<() => unknown> = [];
const t = { after: (fn: () => unknown) => cleanups.push(fn) };

async function gtidPos(server: MariaDBServer): Promise<string> {
  return String((await server.sql('SELECT @@gtid_binlog_pos AS p'))[0]!.p);
}

/** Commits one small row at a time for `ms`; each commit's GTID sequence number and the time COMMIT returned. */
async function write(server: MariaDBServer, ms: number, from: number): Promise<{ seq: number; at: number }[]> {
  const c = await mysql.createConnection({ host: server.host, port: server.port, user: 'root' });
  const out: { seq: number; at: number }[] = [];
  const end = Date.now() + ms;
  try {
    for (let i = from; Date.now() < end; i++) {
      await c.query('INSERT INTO bench.t (id, v) VALUES (?, REPEAT(?, 200))', [i, String(i % 10)]);
      const [rows] = await c.query('SELECT @@last_gtid AS g');
      const at = performance.now();
      out.push({ seq: Number(String((rows as { g: string }[])[0]!.g).split('-')[2]), at });
    }
  } finally {
    await c.end();
  }
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function pipe(dumpArgs: string[], target: MariaDBServer): Promise<void> {
  return new Promise((resolve, reject) => {
    const dump = spawn('mariadb-binlog', dumpArgs, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TZ: 'UTC' } });
    const apply = spawn('mariadb', ['-h', target.host, '-P', String(target.port), '-u', 'root'], { stdio: ['pipe', 'inherit', 'inherit'] });
    dump.stdout.pipe(apply.stdin);
    let left = 2;
    const done = (what: string) => (code: number | null) => {
      if (code !== 0) reject(new Error(`${what} exited ${code}`));
      else if (--left === 0) resolve();
    };
    dump.on('close', done('mariadb-binlog'));
    apply.on('close', done('mariadb'));
  });
}

const round2 = (n: number) => Math.round(n * 100) / 100;

try {
  const s3 = await startS3({ t });
  const storage = storageFor(ARCHIVE, s3.env);
  const master = await startMariaDB({ name: 'pitr-bench', systemUsers: true, t });
  await (await master.node()).setReadOnly(false);
  const base = await gtidPos(master);
  await master.sql('CREATE DATABASE bench; CREATE TABLE bench.t (id INT PRIMARY KEY, v VARCHAR(255))');

  // cost: rounds of the writer without, then with the archiver (each pair under about the same
  // load of a shared machine); the archiver is stopped between rounds and continues from the archive.
  const without: { seq: number; at: number }[][] = [];
  const withArchive: { seq: number; at: number }[][] = [];
  const uploads: { state: string; at: number }[] = [];
  let nextId = 1;
  for (let round = 0; round < rounds; round++) {
    const w = await write(master, seconds * 1000, nextId);
    nextId += w.length;
    without.push(w);
    const stop = new AbortController();
    const archiving = runBinlogArchiver({
      connection: master.paramsFor(TEST_SYSTEM_USERS.operator.user, TEST_SYSTEM_USERS.operator.password),
      binlogDir: master.datadir,
      archiveUrl: ARCHIVE,
      storage,
      intervalMs: 1000,
      signal: stop.signal,
      onEvent: (e: ArchiverEvent) => {
        if (e.kind === 'uploaded') uploads.push({ state: e.segment.endState, at: performance.now() });
        if (e.kind === 'error') console.error('archiver:', e.message);
      },
    });
    const a = await write(master, seconds * 1000, nextId);
    nextId += a.length;
    withArchive.push(a);
    const last = Math.max(...a.map((x) => x.seq));
    const deadline = Date.now() + 60_000;
    while (!uploads.some((u) => (gtidState(u.state).get(0)?.seq ?? 0) >= last) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await archiving;
  }

  // Each commit of a round with the archiver, to the first upload after it that holds it.
  const lags = withArchive
    .flat()
    .map((w) => {
      const u = uploads.find((x) => x.at >= w.at && (gtidState(x.state).get(0)?.seq ?? 0) >= w.seq);
      return u ? u.at - w.at : Number.NaN;
    })
    .filter((x) => !Number.isNaN(x))
    .sort((a, b) => a - b);

  // replay: the archive vs the server's own files, each onto a fresh copy.
  const dir = await mkdtemp(join(tmpdir(), 'pitr-bench-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const objects = await storage.list(ARCHIVE);
  const files = [];
  for (const segment of await listSegments({ storage, archiveUrl: ARCHIVE })) {
    const name = objects.find((o) => o.url.includes(`/${String(segment.seq).padStart(10, '0')}_${segment.serverId}_`))!.url;
    const path = join(dir, `${segment.seq}.bin`);
    await writeFile(path, await buffer(await storage.openRead(name)));
    files.push({ segment, path });
  }
  const [copyA, copyB] = await Promise.all([
    startMariaDB({ name: 'pitr-copy-a', systemUsers: true, t }),
    startMariaDB({ name: 'pitr-copy-b', systemUsers: true, t }),
  ]);
  const plan = planReplay(
    files.map((f) => f.segment),
    base,
  );
  const t0 = performance.now();
  for (const step of plan.steps) {
    const path = files.find((f) => f.segment === step.segment)!.path;
    await pipe([...(step.startPosition ? [`--start-position=${step.startPosition}`] : []), path], copyA);
  }
  const archiveReplayS = (performance.now() - t0) / 1000;
  const own = (await readdir(master.datadir))
    .filter((f) => /^mysql-bin\.\d+$/.test(f))
    .sort()
    .map((f) => join(master.datadir, f));
  const t1 = performance.now();
  await pipe([...(base ? [`--start-position=${base}`] : []), ...own], copyB);
  const plainReplayS = (performance.now() - t1) / 1000;
  const sum = async (s: MariaDBServer) => JSON.stringify(await s.sql('CHECKSUM TABLE bench.t'));
  const [sm, sa, sb] = await Promise.all([sum(master), sum(copyA), sum(copyB)]);
  if (sa !== sm || sb !== sm) throw new Error(`checksums differ: source ${sm}, archive replay ${sa}, plain replay ${sb}`);

  const rate = (w: readonly { at: number }[]) => w.length / seconds;
  const ratios = withArchive.map((w, i) => rate(w) / rate(without[i]!));
  console.log(
    JSON.stringify({
      bench: 'pitr',
      seconds_per_phase: seconds,
      rounds,
      interval_s: 1,
      commits_without_archive_per_s: without.map((w) => round2(rate(w))),
      commits_with_archive_per_s: withArchive.map((w) => round2(rate(w))),
      commit_rate_ratio_per_round: ratios.map(round2),
      commit_rate_ratio_median: round2([...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!),
      archive_lag_ms_p50: Math.round(pct(lags, 50)),
      archive_lag_ms_p99: Math.round(pct(lags, 99)),
      archive_lag_ms_max: Math.round(lags[lags.length - 1] ?? Number.NaN),
      lag_samples: lags.length,
      segments: files.length,
      archive_replay_s: round2(archiveReplayS),
      plain_replay_s: round2(plainReplayS),
      transactions_replayed: without.flat().length + withArchive.flat().length,
      ratio: round2(plainReplayS / archiveReplayS),
    }),
  );
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
