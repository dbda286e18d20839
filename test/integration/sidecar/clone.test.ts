// Acceptance of issue 5 for clone-and-init, on real MariaDB (flavour: MariaDB 10.11, the only
// server installable here): a master with a few MB of data serves /xbackup through the sidecar;
// a second server starts from an empty data directory cloned by clone-and-init, then replicates.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';

/** The operator's account, as the node controller connects: the cloned init-file fences root (docs/fencing.md). */
const asOperator = (s: MariaDBServer) => s.paramsFor(TEST_SYSTEM_USERS.operator.user, TEST_SYSTEM_USERS.operator.password);
import { eventually } from '../../support/wait.ts';
import {
  BACKUP,
  confDirFor,
  configMapDir,
  fileCleanups,
  fillData,
  getBackup,
  podEnv,
  rowCount,
  runCloneAndInit,
  startCloneAndInit,
  startServeSidecar,
  tempDir,
  type After,
  type RunningSidecar,
  type SidecarExit,
} from './support.ts';

// One source for the whole file: a writable master with data and its sidecar.
const suite = fileCleanups();
let source: MariaDBServer;
let sourceSidecar: RunningSidecar;
let sourceRows = 0;

before(async () => {
  source = await startMariaDB({ name: 'source', systemUsers: true, t: suite });
  const node = await source.node();
  await node.setReadOnly(false);
  sourceRows = await fillData(source, 4);
  sourceSidecar = await startServeSidecar(suite, source);
});

/** A stopped harness server whose data directory is empty, and its pod's `conf` directory. */
async function emptyTarget(t: After): Promise<{ target: MariaDBServer; confDir: string }> {
  const confDir = await confDirFor(t);
  const target = await startMariaDB({ name: 'target', t, extraConfig: [`!includedir ${confDir}/conf.d`] });
  await target.stop();
  for (const name of await readdir(target.datadir)) await rm(join(target.datadir, name), { recursive: true, force: true });
  return { target, confDir };
}

async function cloneArgs(t: After, target: MariaDBServer, confDir: string): Promise<string[]> {
  return [
    `--data-dir=${target.datadir}`,
    `--config-dir=${confDir}`,
    `--conf-source-dir=${await configMapDir(t)}`,
    `--mysql-port=${target.port}`,
  ];
}

const NOBODY = 'http://127.0.0.1:9';

/** Pod 1 of a new cluster cloned by clone-and-init from the master's sidecar (no replica answers). */
async function cloneFromMaster(t: After): Promise<{ target: MariaDBServer; confDir: string; run: SidecarExit }> {
  const { target, confDir } = await emptyTarget(t);
  const run = await runCloneAndInit(
    await cloneArgs(t, target, confDir),
    podEnv({ MY_POD_NAME: 'c-mysql-1', SIDECAR_CLONE_REPLICAS_URL: NOBODY, SIDECAR_CLONE_MASTER_URL: sourceSidecar.url }),
  );
  assert.equal(run.code, 0, run.output);
  return { target, confDir, run };
}

test('an empty replica clones from the master sidecar, starts, and replicates rows written after the clone', async (t) => {
  const { target, confDir, run } = await cloneFromMaster(t);
  assert.match(run.output, /cloning from the master/);
  assert.deepEqual(
    (await readdir(target.datadir)).filter((n) => n.startsWith('.')),
    [],
    'no staging left behind',
  );
  const initFile = await readFile(join(confDir, 'conf.d/operator-init.sql'), 'utf8');
  assert.match(initFile, /REPLACE INTO sys_operator\.status VALUES \('backup_gtid_purged', '0-\d+-\d+'\)/);
  assert.match(initFile, /DROP TABLE IF EXISTS sys_operator\.status/, 'the clone excludes the status table');

  await target.start();
  const node = await target.node(asOperator(target));
  const info = await node.serverInfo();
  assert.equal(info.serverId, 5001, 'server-id = ordinal + MY_SERVER_ID_OFFSET');
  assert.equal(info.reportHost, 'c-mysql-1.mysql.default');
  assert.equal(await node.isReadOnly(), true, 'the init-file starts the server read-only');
  assert.equal(await rowCount(target), await rowCount(source));
  assert.ok(sourceRows > 0);

  const seeded = await node.seedGtidAfterClone();
  assert.equal(seeded.seeded, true);
  await node.pointAt({ host: source.host, port: source.port }, TEST_SYSTEM_USERS.replication);
  await node.startReplication();
  await source.sql("INSERT INTO app.rows (payload) VALUES ('after the clone 1'), ('after the clone 2')");
  const want = await rowCount(source);
  await eventually('rows written after the clone to replicate', async () => (await rowCount(target)) === want);
  const status = await node.replicationStatus();
  assert.equal(status?.ioRunning, true);
  assert.equal(status?.sqlRunning, true);
});

/** A TCP relay that, once `after` bytes came from the server side, stops, calls `onCut` and drops both ends. */
async function relay(t: After, to: { host: string; port: number }, after: number, onCut: () => Promise<void>): Promise<string> {
  let forwarded = 0;
  let cut = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(to.port, to.host);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      forwarded += chunk.length;
      client.write(chunk);
      if (!cut && forwarded > after) {
        cut = true;
        upstream.pause();
        void onCut().then(() => {
          upstream.destroy();
          client.destroy();
        });
      }
    });
    upstream.on('close', () => client.destroy());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

test('a clone whose source dies mid-stream fails clearly, leaves the data directory empty, and a retry succeeds', async (t) => {
  const { target, confDir } = await emptyTarget(t);
  const dying = await startServeSidecar(t, source);
  const url = await relay(t, { host: '127.0.0.1', port: dying.port }, 1 << 20, () => dying.kill('SIGKILL'));
  const args = await cloneArgs(t, target, confDir);
  const env = podEnv({ MY_POD_NAME: 'c-mysql-1', SIDECAR_CLONE_REPLICAS_URL: url, SIDECAR_CLONE_MASTER_URL: NOBODY });

  const failed = await runCloneAndInit(args, env);
  assert.notEqual(failed.code, 0);
  assert.match(failed.output, /clone-and-init failed: stream from http:\/\/127\.0\.0\.1:\d+ broke off/);
  assert.deepEqual(await readdir(target.datadir), [], 'the data directory is empty after the failed clone');

  const retry = await runCloneAndInit(args, { ...env, SIDECAR_CLONE_REPLICAS_URL: sourceSidecar.url });
  assert.equal(retry.code, 0, retry.output);
  await target.start();
  assert.equal(await rowCount(target), await rowCount(source));
});

test('SIGTERM during a clone stops it: mbstream killed, data directory empty, non-zero exit', async (t) => {
  const { target, confDir } = await emptyTarget(t);
  let stalled!: () => void;
  const atStall = new Promise<void>((resolve) => (stalled = resolve));
  // The relay stops forwarding after 1 MiB and keeps the connection open: a source gone quiet.
  const url = await relay(t, { host: '127.0.0.1', port: sourceSidecar.port }, 2 ** 20, () => {
    stalled();
    return new Promise<void>(() => undefined);
  });
  const run = startCloneAndInit(
    await cloneArgs(t, target, confDir),
    podEnv({ MY_POD_NAME: 'c-mysql-1', SIDECAR_CLONE_REPLICAS_URL: url, SIDECAR_CLONE_MASTER_URL: NOBODY }),
  );
  t.after(() => run.proc.kill('SIGKILL'));
  await atStall;
  await eventually('the clone to be unpacking', async () => (await readdir(target.datadir)).length > 0);
  run.proc.kill('SIGTERM');
  const done = await run.done;
  assert.equal(done.code, 1, done.output);
  assert.match(done.output, /stopped while reading stream from/);
  assert.deepEqual(await readdir(target.datadir), []);
  const left = spawnSync('pgrep', ['-f', `mbstream.*${target.datadir}`], { encoding: 'utf8' }).stdout.trim();
  assert.equal(left, '', 'no mbstream left running');
});

test('wrong backup credentials: HTTP 403, nothing streamed, no password in any log', async (t) => {
  const wrong = 'Wrong-Pass-93b1';
  const refused = await getBackup(sourceSidecar.url, { user: BACKUP.user, password: wrong }, { keep: true });
  assert.equal(refused.status, 403);
  assert.equal(refused.body?.toString(), 'Not authenticated!\n');
  assert.equal(refused.trailer, undefined);

  const { target, confDir } = await emptyTarget(t);
  const run = await runCloneAndInit(
    await cloneArgs(t, target, confDir),
    podEnv({
      MY_POD_NAME: 'c-mysql-2',
      BACKUP_PASSWORD: wrong,
      SIDECAR_CLONE_REPLICAS_URL: NOBODY,
      SIDECAR_CLONE_MASTER_URL: sourceSidecar.url,
    }),
  );
  assert.notEqual(run.code, 0);
  assert.match(run.output, /answered HTTP 403/);
  assert.deepEqual(await readdir(target.datadir), []);
  for (const [name, log] of [
    ['clone-and-init', run.output],
    ['config-and-serve', sourceSidecar.output()],
  ] as const) {
    assert.ok(!log.includes(wrong), `${name} logged the wrong password`);
    assert.ok(!log.includes(BACKUP.password), `${name} logged the backup password`);
    assert.ok(!log.includes(TEST_SYSTEM_USERS.replication.password), `${name} logged the replication password`);
  }
  assert.match(sourceSidecar.output(), /refused backup request/);
});

test('pod 0 with no peer restores INIT_BUCKET_URI (a gzip of an xbstream) and forgets the source replication', async (t) => {
  const dir = await tempDir(t, 'sidecar-bucket-');
  const object = join(dir, 'c-auto-2026-01-01t00-00-00.xbackup.gz');
  const backup = await getBackup(sourceSidecar.url, BACKUP, { keep: true });
  assert.equal(backup.trailer, 'Success');
  await pipeline(Readable.from([backup.body!]), createGzip(), createWriteStream(object));

  const { target, confDir } = await emptyTarget(t);
  const run = await runCloneAndInit(
    await cloneArgs(t, target, confDir),
    podEnv({
      MY_POD_NAME: 'c-mysql-0',
      INIT_BUCKET_URI: `file://${object}`,
      SIDECAR_CLONE_REPLICAS_URL: NOBODY,
      SIDECAR_CLONE_MASTER_URL: NOBODY,
    }),
  );
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /restoring from INIT_BUCKET_URI/);
  assert.match(await readFile(join(confDir, 'conf.d/operator-init.sql'), 'utf8'), /RESET SLAVE ALL/);
  await target.start();
  assert.equal(await rowCount(target), await rowCount(source));
});

test('a restore from a missing or corrupt object fails clearly and leaves the data directory empty', async (t) => {
  const dir = await tempDir(t, 'sidecar-bucket-');
  const corrupt = join(dir, 'corrupt.xbackup.gz');
  await pipeline(Readable.from([Buffer.from('not an xbstream at all')]), createGzip(), createWriteStream(corrupt));
  const { target, confDir } = await emptyTarget(t);
  const args = await cloneArgs(t, target, confDir);
  const base = { MY_POD_NAME: 'c-mysql-0', SIDECAR_CLONE_REPLICAS_URL: NOBODY, SIDECAR_CLONE_MASTER_URL: NOBODY };

  const missing = await runCloneAndInit(args, podEnv({ ...base, INIT_BUCKET_URI: `file://${dir}/nope.xbackup.gz` }));
  assert.notEqual(missing.code, 0);
  assert.match(missing.output, /nope\.xbackup\.gz does not exist/);
  assert.deepEqual(await readdir(target.datadir), []);

  const bad = await runCloneAndInit(args, podEnv({ ...base, INIT_BUCKET_URI: `file://${corrupt}` }));
  assert.notEqual(bad.code, 0);
  assert.match(bad.output, /mbstream -x failed|prepare failed/);
  assert.deepEqual(await readdir(target.datadir), []);
});

test('existing data is kept: a second run of clone-and-init only rewrites the config files', async (t) => {
  const { target, confDir } = await emptyTarget(t);
  const args = await cloneArgs(t, target, confDir);
  const env = podEnv({ MY_POD_NAME: 'c-mysql-1', SIDECAR_CLONE_REPLICAS_URL: sourceSidecar.url, SIDECAR_CLONE_MASTER_URL: NOBODY });
  assert.equal((await runCloneAndInit(args, env)).code, 0);
  const again = await runCloneAndInit(args, { ...env, SIDECAR_CLONE_REPLICAS_URL: NOBODY });
  assert.equal(again.code, 0, again.output);
  assert.match(again.output, /data already exists; keeping it/);
});

test('a pod other than 0 with no peer to clone from fails and leaves the data directory empty', async (t) => {
  const { target, confDir } = await emptyTarget(t);
  const run = await runCloneAndInit(
    await cloneArgs(t, target, confDir),
    podEnv({ MY_POD_NAME: 'c-mysql-2', SIDECAR_CLONE_REPLICAS_URL: NOBODY, SIDECAR_CLONE_MASTER_URL: NOBODY }),
  );
  assert.equal(run.code, 1);
  assert.match(run.output, /nothing to clone from/);
  assert.deepEqual(await readdir(target.datadir), []);
});

/** The ERROR lines the server logged after `from` characters of its error log. */
function errorsSince(s: MariaDBServer, from: number): string[] {
  return s
    .errorLog(Number.MAX_SAFE_INTEGER)
    .slice(from)
    .split('\n')
    .filter((l) => l.includes('[ERROR]'));
}

// The clone leaves the status table out (per node), and `--prepare` removes its .frm, but InnoDB's
// data dictionary (in ibdata1) still names it. The init-file's DROP TABLE removes that entry; InnoDB
// first tries to open the missing status.ibd and logs it. Harmless (docs/sidecar.md); no quiet way
// to drop the entry was found (DROP DATABASE is quiet but would take the heartbeat table along).
test("a clone's first start drops the status table's stale dictionary entry once: the table works and the next start is clean", async (t) => {
  const { target } = await cloneFromMaster(t);
  assert.deepEqual(await readdir(join(target.datadir, 'sys_operator')), ['db.opt'], 'neither status.frm nor status.ibd is cloned');

  let from = target.errorLog(Number.MAX_SAFE_INTEGER).length;
  await target.start();
  const first = errorsSince(target, from);
  assert.ok(
    first.every((l) =>
      /InnoDB: (Operating system error number 2|Error number 2 means|Cannot open datafile for read-only: '\.\/sys_operator\/status\.ibd'|Could not find a valid tablespace file for sys_operator\/status\.)/.test(
        l,
      ),
    ),
    first.join('\n'),
  );
  const node = await target.node(asOperator(target));
  assert.equal(await node.isConfigured(), false, 'the init-file re-created the table and wrote the flag');
  await node.markConfigured();
  assert.equal(await node.isConfigured(), true);

  await target.stop();
  from = target.errorLog(Number.MAX_SAFE_INTEGER).length;
  await target.start();
  assert.deepEqual(errorsSince(target, from), [], 'the status table has its data file now: nothing to drop');
  assert.equal(await (await target.node(asOperator(target))).isConfigured(), false, 'reset at start, as the anchor does');
});
