// The binlog archiver (src/sidecar/binlog-archive.ts) against real MariaDB 10.11 and s3rver:
// every transaction of the master reaches the archive once and in order across a rotation and a
// switchover, and replaying the archive with `mariadb-binlog | mariadb` onto a server that was
// at the starting position reproduces the data (docs/pitr.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import {
  BINLOG_ARCHIVE_INDEX,
  type BinlogArchiveIndex,
  gtidState,
  gtidStateCovers,
  type BinlogSegment,
} from '../../../src/api/binlog-archive.ts';
import { storageFor, type BackupStorage } from '../../../src/storage/index.ts';
import { type ArchiverEvent, listSegments, runBinlogArchiver } from '../../../src/sidecar/binlog-archive.ts';
import { scanEvents } from '../../../src/sidecar/binlog-events.ts';
import { planReplay } from '../../../src/sidecar/decide-binlog-replay.ts';
import { planPointInTimeRestore, type RestoreRun } from '../../../src/sidecar/decide-pitr-restore.ts';
import { type MariaDBServer, startMariaDB, startReplicationPair, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { startS3 } from '../../support/s3.ts';
import { eventually } from '../../support/wait.ts';
import { startServeSidecar } from './support.ts';

const ARCHIVE = 's3://backups/c1/binlogs/';

function archiver(t: { after(fn: () => unknown): void }, server: MariaDBServer, storage: BackupStorage, intervalMs: number) {
  const stop = new AbortController();
  const events: ArchiverEvent[] = [];
  const done = runBinlogArchiver({
    connection: server.paramsFor(TEST_SYSTEM_USERS.operator.user, TEST_SYSTEM_USERS.operator.password),
    binlogDir: server.datadir,
    archiveUrl: ARCHIVE,
    storage,
    intervalMs,
    pollMs: 100,
    signal: stop.signal,
    onEvent: (e) => events.push(e),
  });
  const halt = async () => {
    stop.abort();
    await done;
  };
  t.after(halt);
  return { events, halt };
}

async function gtidPos(server: MariaDBServer): Promise<string> {
  return String((await server.sql('SELECT @@gtid_binlog_pos AS p'))[0]!.p);
}

async function readIndex(storage: BackupStorage): Promise<BinlogArchiveIndex | null> {
  try {
    return JSON.parse((await buffer(await storage.openRead(`${ARCHIVE}${BINLOG_ARCHIVE_INDEX}`))).toString()) as BinlogArchiveIndex;
  } catch {
    return null;
  }
}

/** Waits until the archive's index says it holds everything up to `pos`. */
async function archived(storage: BackupStorage, pos: string): Promise<BinlogArchiveIndex> {
  return eventually(`the archive to reach ${pos}`, async () => {
    const index = await readIndex(storage);
    return index && gtidStateCovers(index.endState, pos) ? index : false;
  });
}

/** Every segment's bytes, downloaded in archive order into `dir`. */
async function download(storage: BackupStorage, dir: string): Promise<{ segment: BinlogSegment; path: string }[]> {
  const out = [];
  for (const segment of await listSegments({ storage, archiveUrl: ARCHIVE })) {
    const path = join(dir, `${String(segment.seq).padStart(6, '0')}-${segment.serverId}.bin`);
    const objects = await storage.list(ARCHIVE);
    const url = objects.find(
      (o) =>
        o.url.endsWith(`_${segment.start}-${segment.end}_${segment.file}`) && o.url.includes(`/${String(segment.seq).padStart(10, '0')}_`),
    )!.url;
    await writeFile(path, await buffer(await storage.openRead(url)));
    out.push({ segment, path });
  }
  return out;
}

/** The GTIDs of binlog files in order, as their GTID events name them. */
async function gtidsOf(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) for (const e of scanEvents(await readFile(p), 0).events) if (e.gtid) out.push(e.gtid);
  return out;
}

async function serverBinlogPaths(server: MariaDBServer): Promise<string[]> {
  return (await readdir(server.datadir))
    .filter((f) => /^mysql-bin\.\d+$/.test(f))
    .sort()
    .map((f) => join(server.datadir, f));
}

function run(cmd: string, args: string[], input?: NodeJS.ReadableStream): Promise<{ code: number; stderr: string; stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TZ: 'UTC' } });
    const out: Buffer[] = [];
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => out.push(c));
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, stderr, stdout: Buffer.concat(out) }));
    if (input) input.pipe(p.stdin);
    else p.stdin.end();
  });
}

/** `mariadb-binlog --start-position=<applied> <segment> | mariadb` for each step of the plan. */
async function replay(files: { segment: BinlogSegment; path: string }[], from: string, target: MariaDBServer): Promise<void> {
  const plan = planReplay(
    files.map((f) => f.segment),
    from,
  );
  assert.equal(plan.gapAfter, null, 'the archive has no gap');
  await apply(
    files,
    plan.steps.map((s) => ({ segment: s.segment, args: s.startPosition ? [`--start-position=${s.startPosition}`] : [] })),
    target,
  );
}

/** `mariadb-binlog <args> <segment> | mariadb` for each run, in order. */
async function apply(files: { segment: BinlogSegment; path: string }[], runs: readonly RestoreRun[], target: MariaDBServer): Promise<void> {
  for (const step of runs) {
    const path = files.find((f) => f.segment === step.segment)!.path;
    const args = [...step.args, path];
    const dump = spawn('mariadb-binlog', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TZ: 'UTC' } });
    let dumpErr = '';
    dump.stderr.on('data', (c: Buffer) => (dumpErr += c.toString()));
    const dumpDone = new Promise<number>((resolve) => dump.on('close', (code) => resolve(code ?? -1)));
    const apply = await run('mariadb', ['-h', target.host, '-P', String(target.port), '-u', 'root'], dump.stdout);
    assert.equal(await dumpDone, 0, `mariadb-binlog ${args.join(' ')}: ${dumpErr}`);
    assert.equal(apply.code, 0, `mariadb < ${path}: ${apply.stderr}`);
  }
}

async function checksums(server: MariaDBServer): Promise<string> {
  const rows = await server.sql('CHECKSUM TABLE shop.orders, shop.items');
  return JSON.stringify(rows);
}

async function writeSome(server: MariaDBServer, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    await server.sql('INSERT INTO shop.orders (id, note) VALUES (?, ?)', [i, `order ${i}`]);
    await server.sql('INSERT INTO shop.items (order_id, qty) VALUES (?, ?)', [i, i % 7]);
    if (i % 5 === 0) await server.sql('UPDATE shop.orders SET note = CONCAT(note, " updated") WHERE id = ?', [i - 2]);
    if (i % 9 === 0) await server.sql('DELETE FROM shop.items WHERE order_id = ?', [i - 4]);
  }
}

const SCHEMA =
  'CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, note VARCHAR(100)); ' +
  'CREATE TABLE shop.items (id INT AUTO_INCREMENT PRIMARY KEY, order_id INT, qty INT)';

test('the master archive holds every transaction once and in order across a rotation, and replaying it reproduces the data', async (t) => {
  const s3 = await startS3({ t });
  const storage = storageFor(ARCHIVE, s3.env);
  const master = await startMariaDB({ name: 'arch', systemUsers: true, t });
  await (await master.node()).setReadOnly(false);
  // What a restored copy starts from: a server that was at this position (no shop schema yet).
  const base = await gtidPos(master);
  const copy = await startMariaDB({ name: 'copy', systemUsers: true, t });
  const a = archiver(t, master, storage, 500);

  await master.sql(SCHEMA);
  await writeSome(master, 1, 20);
  await master.sql('FLUSH BINARY LOGS');
  await writeSome(master, 21, 20);
  const index = await archived(storage, await gtidPos(master));
  assert.ok(index.firstEventTime > 0 && index.completeUpTo >= index.firstEventTime, JSON.stringify(index));

  const dir = await mkdtemp(join(tmpdir(), 'binlog-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const files = await download(storage, dir);
  assert.ok(new Set(files.map((f) => f.segment.file)).size >= 2, 'the rotation shows as two files');
  assert.deepEqual(await gtidsOf(files.map((f) => f.path)), await gtidsOf(await serverBinlogPaths(master)), 'every GTID once, in order');
  assert.ok(!a.events.some((e) => e.kind === 'error' || e.kind === 'gap'), JSON.stringify(a.events.filter((e) => e.kind === 'error')));

  await replay(files, base, copy);
  assert.equal(await checksums(copy), await checksums(master));
});

test('a replica promoted to master continues the archive from where it stopped, with no gap, and the replay matches the new master', async (t) => {
  const s3 = await startS3({ t });
  const storage = storageFor(ARCHIVE, s3.env);
  const { master, replica } = await startReplicationPair({ t });
  const base = await gtidPos(master);
  const copy = await startMariaDB({ name: 'copy2', systemUsers: true, t });
  const onMaster = archiver(t, master, storage, 300);
  const onReplica = archiver(t, replica, storage, 300);

  await master.sql(SCHEMA);
  await writeSome(master, 1, 15);
  await archived(storage, await gtidPos(master));
  await eventually('the replica archiver to stay idle', () => onReplica.events.some((e) => e.kind === 'idle-replica'));

  // A switchover: the old master read-only (its archiver idles), the replica caught up and writable.
  await writeSome(master, 16, 5);
  const mNode = await master.node();
  await mNode.setReadOnly(true);
  const last = await gtidPos(master);
  const rNode = await replica.node();
  await eventually('the replica to catch up', async () => gtidStateCovers(await gtidPos(replica), last));
  await rNode.stopReplication();
  await rNode.setReadOnly(false);
  await writeSome(replica, 21, 15);
  await replica.sql('FLUSH BINARY LOGS');
  await writeSome(replica, 36, 5);
  await archived(storage, await gtidPos(replica));

  assert.ok(
    onMaster.events.some((e) => e.kind === 'idle-replica'),
    'the demoted master stopped archiving',
  );
  const started = onReplica.events.find((e) => e.kind === 'started');
  assert.ok(started, 'the new master started archiving');
  assert.ok(!onReplica.events.some((e) => e.kind === 'gap' || e.kind === 'diverged'), JSON.stringify(onReplica.events));

  const dir = await mkdtemp(join(tmpdir(), 'binlog-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const files = await download(storage, dir);
  assert.ok(files.some((f) => f.segment.serverId === master.serverId) && files.some((f) => f.segment.serverId === replica.serverId));
  // Every transaction of domain 0 from the first shop write on, once and in order.
  const seqs = (await gtidsOf(files.map((f) => f.path))).map((g) => Number(g.split('-')[2]));
  const baseSeq = gtidState(base).get(0)?.seq ?? 0;
  const after = seqs.filter((s) => s > baseSeq);
  assert.ok(after.length > 40, `the shop writes are archived: ${after.length}`);
  assert.deepEqual(
    after,
    Array.from({ length: after.length }, (_, i) => after[0]! + i),
    'contiguous, no duplicate',
  );

  await replay(files, base, copy);
  assert.equal(await checksums(copy), await checksums(replica));
});

test('config-and-serve with BINLOG_ARCHIVE_URL archives its writable server through the storage keys of its environment, and stops on SIGTERM', async (t) => {
  const s3 = await startS3({ t });
  const storage = storageFor(ARCHIVE, s3.env);
  const master = await startMariaDB({ name: 'sidecar-arch', systemUsers: true, t });
  await (await master.node()).setReadOnly(false);
  const sidecar = await startServeSidecar(t, master, {
    ...s3.env,
    BINLOG_ARCHIVE_URL: ARCHIVE,
    BINLOG_ARCHIVE_INTERVAL_SECONDS: '1',
    SIDECAR_DATA_DIR: master.datadir,
  });
  await master.sql(SCHEMA);
  await writeSome(master, 1, 10);
  await archived(storage, await gtidPos(master));
  assert.match(sidecar.output(), /binlog archive: uploaded/);
  assert.ok(!sidecar.output().includes(String(s3.env.AWS_SECRET_ACCESS_KEY)), 'no storage key in the log');
  sidecar.proc.kill('SIGTERM');
  await eventually('the sidecar to exit', () => sidecar.proc.exitCode !== null);
  assert.equal(sidecar.proc.exitCode, 0, sidecar.output());
});

test('the archive brings a copy at the backup position to a time, and to a GTID, exactly as the source was then (a table dropped later)', async (t) => {
  const s3 = await startS3({ t });
  const storage = storageFor(ARCHIVE, s3.env);
  const master = await startMariaDB({ name: 'pitr', systemUsers: true, t });
  await (await master.node()).setReadOnly(false);
  // The "backup": a server at this position (the copies start from it), taken at this second.
  const backupGtid = await gtidPos(master);
  const backupTime = Math.floor(Date.now() / 1000);
  await master.sql(SCHEMA);
  await writeSome(master, 1, 15);
  // T: the first second after the last write before it; the source as it was at T.
  const lastWrite = Math.floor(Date.now() / 1000);
  const target = await eventually('the next second', () => {
    const now = Math.floor(Date.now() / 1000);
    return now > lastWrite ? now : false;
  });
  const atT = await checksums(master);
  const gtidAtT = await gtidPos(master);
  await writeSome(master, 16, 15);
  await master.sql('DROP TABLE shop.items');
  // Archived only now, so one segment holds the writes on both sides of T and of its GTID: the
  // restore has to stop inside it.
  archiver(t, master, storage, 300);
  const index = await archived(storage, await gtidPos(master));

  const dir = await mkdtemp(join(tmpdir(), 'binlog-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const files = await download(storage, dir);
  const facts = { segments: files.map((f) => f.segment), backupGtid, backupTime, completeUpTo: index.completeUpTo };
  const [byTime, byGtid] = await Promise.all([
    startMariaDB({ name: 'pitr-time', systemUsers: true, t }),
    startMariaDB({ name: 'pitr-gtid', systemUsers: true, t }),
  ]);
  const toTime = planPointInTimeRestore(facts, { time: target });
  assert.equal(toTime.kind, 'plan', toTime.reason);
  assert.ok(
    toTime.kind === 'plan' && toTime.runs.some((r) => r.args.some((x) => x.startsWith('--stop-datetime='))),
    'stops inside a segment',
  );
  await apply(files, toTime.kind === 'plan' ? toTime.runs : [], byTime);
  assert.equal(await checksums(byTime), atT, 'restored to the time');
  const toGtid = planPointInTimeRestore(facts, { gtid: gtidAtT });
  assert.equal(toGtid.kind, 'plan', toGtid.reason);
  await apply(files, toGtid.kind === 'plan' ? toGtid.runs : [], byGtid);
  assert.equal(await checksums(byGtid), atT, 'restored to the GTID');
  assert.equal(planPointInTimeRestore(facts, { time: index.completeUpTo + 3600 }).kind, 'refused');
});

test('after the master dies with its open binlog not yet uploaded, the promoted replica archives those transactions from its own binlog: no gap', async (t) => {
  const s3 = await startS3({ t });
  const storage = storageFor(ARCHIVE, s3.env);
  const { master, replica } = await startReplicationPair({ t });
  const base = await gtidPos(master);
  const copy = await startMariaDB({ name: 'copy3', systemUsers: true, t });
  // The master's open binlog is due only every 60 s: what it writes now stays unarchived when it dies.
  const onMaster = archiver(t, master, storage, 60_000);
  archiver(t, replica, storage, 300);
  await eventually('the master archiver to start', () => onMaster.events.some((e) => e.kind === 'started'));
  await master.sql(SCHEMA);
  await writeSome(master, 1, 12);
  const last = await gtidPos(master);
  await eventually('the replica to catch up', async () => gtidStateCovers(await gtidPos(replica), last));
  const index = await readIndex(storage);
  assert.ok(!index || !gtidStateCovers(index.endState, last), 'the dead master had not archived its last writes');
  await master.kill();

  const rNode = await replica.node();
  await rNode.stopReplication();
  await rNode.setReadOnly(false);
  await writeSome(replica, 13, 8);
  await archived(storage, await gtidPos(replica));

  const dir = await mkdtemp(join(tmpdir(), 'binlog-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const files = await download(storage, dir);
  const gtids = await gtidsOf(files.filter((f) => f.segment.serverId === replica.serverId).map((f) => f.path));
  assert.ok(
    gtids.some((g) => g.split('-')[1] === String(master.serverId)),
    "the new master uploaded the old master's transactions from its own binlog",
  );
  const baseSeq = gtidState(base).get(0)?.seq ?? 0;
  const seqs = (await gtidsOf(files.map((f) => f.path))).map((g) => Number(g.split('-')[2])).filter((s) => s > baseSeq);
  assert.deepEqual(
    seqs,
    Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i),
    'contiguous, no duplicate',
  );
  await replay(files, base, copy);
  assert.equal(await checksums(copy), await checksums(replica));
});
