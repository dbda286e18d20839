// Issue 14 (storage, take-backup-to, restore on bootstrap) on real parts: MariaDB 10.11 with
// mariabackup (the only flavour installable here), the real sidecar binary serving /xbackup, a
// real S3-speaking server (s3rver); for gs:// and azure:// (issue 25 item 4), Azurite and a
// server answering as the GCS JSON API documents (test/support/cloud-storage.ts). A backup lands in S3 only when it is complete; a pod 0 with
// initBucketURL restores it with the same rows, checksum and GTID position; broken streams and
// broken objects leave nothing behind: no object, or an empty data directory.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseBackupReport, type BackupReport, type RestoreReport } from '../../../src/api/backup-report.ts';
import { storageFor, type BackupStorage } from '../../../src/storage/index.ts';
import { startMariaDB, startReplicationPair, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { startAzurite, startGcsServer } from '../../support/cloud-storage.ts';
import { startS3, type S3Server } from '../../support/s3.ts';
import { eventually } from '../../support/wait.ts';
import {
  configMapDir,
  confDirFor,
  fileCleanups,
  fillData,
  podEnv,
  startSidecar,
  startServeSidecar,
  tempDir,
  type After,
  type RunningSidecar,
  type SidecarExit,
} from './support.ts';

const suite = fileCleanups();
let source: MariaDBServer;
let sourceSidecar: RunningSidecar;
let s3: S3Server;
let storage: BackupStorage;
let sourceGtid = '';

before(async () => {
  s3 = await startS3({ t: suite });
  storage = storageFor(`s3://${s3.bucket}/`, s3.env);
  source = await startMariaDB({ name: 'source', systemUsers: true, t: suite });
  await (await source.node()).setReadOnly(false);
  await fillData(source, 8);
  sourceGtid = String((await source.sql('SELECT @@gtid_binlog_pos AS g'))[0]?.g);
  sourceSidecar = await startServeSidecar(suite, source);
});

/** The storage Secret's keys and the pod's, with a termination message file like the kubelet's. */
async function jobEnv(t: After, over: Record<string, string> = {}): Promise<{ env: Record<string, string>; terminationLog: string }> {
  const dir = await tempDir(t, 'sidecar-termination-');
  const terminationLog = join(dir, 'termination-log');
  await writeFile(terminationLog, '');
  const env = podEnv({ ...(s3.env as Record<string, string>), SIDECAR_TERMINATION_LOG: terminationLog, ...over });
  return { env, terminationLog };
}

function takeBackup(host: string, url: string, env: Record<string, string>): Promise<SidecarExit> {
  return startSidecar(['take-backup-to', host, url], env).done;
}

async function objectsIn(prefix: string): Promise<string[]> {
  return (await storage.list(`s3://${s3.bucket}/${prefix}`)).map((o) => o.url);
}

/** A stopped harness server with an empty data directory, its pod conf dir, and clone-and-init args for pod 0. */
async function emptyPod0(t: After): Promise<{ target: MariaDBServer; confDir: string; args: string[] }> {
  const confDir = await confDirFor(t);
  const target = await startMariaDB({ name: 'restored', t, extraConfig: [`!includedir ${confDir}/conf.d`] });
  await target.stop();
  for (const name of await readdir(target.datadir)) await rm(join(target.datadir, name), { recursive: true, force: true });
  const args = [
    `--data-dir=${target.datadir}`,
    `--config-dir=${confDir}`,
    `--conf-source-dir=${await configMapDir(t)}`,
    `--mysql-port=${target.port}`,
  ];
  return { target, confDir, args };
}

const NOBODY = 'http://127.0.0.1:9';

async function restore(
  t: After,
  url: string,
  storageEnv: Record<string, string> = {},
): Promise<{ run: SidecarExit; target: MariaDBServer; terminationLog: string }> {
  const { target, args } = await emptyPod0(t);
  const { env, terminationLog } = await jobEnv(t, {
    ...storageEnv,
    MY_POD_NAME: 'c-mysql-0',
    INIT_BUCKET_URI: url,
    SIDECAR_CLONE_REPLICAS_URL: NOBODY,
    SIDECAR_CLONE_MASTER_URL: NOBODY,
  });
  const run = await startSidecar(['clone-and-init', ...args], env).done;
  return { run, target, terminationLog };
}

async function checksum(server: MariaDBServer): Promise<string> {
  return String((await server.sql('CHECKSUM TABLE app.rows'))[0]?.Checksum);
}

for (const suffix of ['.xbackup.gz', '.xbackup.zst']) {
  test(`take-backup-to puts a ${suffix} backup in S3 with its position, and pod 0 restores it with the same rows and GTID`, async (t) => {
    const url = `s3://${s3.bucket}/c/c-auto-1${suffix}`;
    const { env, terminationLog } = await jobEnv(t);
    const backup = await takeBackup(sourceSidecar.url, url, env);
    assert.equal(backup.code, 0, backup.output);
    const report = parseBackupReport(backup.output) as BackupReport;
    assert.equal(report.url, url);
    assert.equal(report.source, sourceSidecar.url);
    assert.equal(report.position?.gtid, sourceGtid);
    assert.match(report.position?.binlogFile ?? '', /^mysql-bin\.\d+$/);
    assert.ok(report.streamBytes > report.bytes, 'compressed');
    assert.deepEqual(parseBackupReport(await readFile(terminationLog, 'utf8')), report);
    const [stored] = await storage.list(url);
    assert.equal(stored?.bytes, report.bytes);

    const { run, target, terminationLog: restoreLog } = await restore(t, url);
    assert.equal(run.code, 0, run.output);
    const restored = JSON.parse(await readFile(restoreLog, 'utf8')) as RestoreReport;
    assert.deepEqual(restored, { restoredFrom: url, position: report.position });
    await target.start();
    assert.equal(await checksum(target), await checksum(source));
    const seeded = await target.sql("SELECT value FROM sys_operator.status WHERE name = 'backup_gtid_purged'");
    assert.equal(seeded[0]?.value, sourceGtid);
  });
}

for (const cloud of ['gs', 'azure'] as const) {
  test(`take-backup-to puts a backup in ${cloud}:// with the anchor's Secret keys, and pod 0 restores it; no key in any output`, async (t) => {
    const server = cloud === 'gs' ? await startGcsServer({ t }) : await startAzurite({ t });
    const keys = server.env as Record<string, string>;
    const url = `${cloud}://${server.bucket}/c/c-auto-1.xbackup.gz`;
    const { env } = await jobEnv(t, keys);
    const backup = await takeBackup(sourceSidecar.url, url, env);
    assert.equal(backup.code, 0, backup.output);
    const report = parseBackupReport(backup.output) as BackupReport;
    assert.equal(report.url, url);
    assert.equal(report.position?.gtid, sourceGtid);
    const [stored] = await storageFor(url, keys).list(`${cloud}://${server.bucket}/c/`);
    assert.equal(stored?.url, url);
    assert.equal(stored?.bytes, report.bytes);

    const { run, target } = await restore(t, url, keys);
    assert.equal(run.code, 0, run.output);
    await target.start();
    assert.equal(await checksum(target), await checksum(source));
    if (keys.AZUREBLOB_KEY) {
      for (const out of [backup.output, run.output]) assert.ok(!out.includes(keys.AZUREBLOB_KEY), 'the account key in the output');
    }
  });
}

test("the anchor's restore path reads our parallel gzip: gunzip | mbstream -x unpacks the object", async (t) => {
  const url = `s3://${s3.bucket}/c/c-auto-anchor.xbackup.gz`;
  const { env } = await jobEnv(t);
  const backup = await takeBackup(sourceSidecar.url, url, env);
  assert.equal(backup.code, 0, backup.output);
  const dir = await tempDir(t, 'anchor-restore-');
  const object = join(dir, 'object.gz');
  await pipeline(await storage.openRead(url), createWriteStream(object));
  await mkdir(join(dir, 'x'));
  const r = spawnSync('sh', ['-c', `gunzip -c '${object}' | mbstream -x -C '${join(dir, 'x')}'`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const info = await readFile(join(dir, 'x', 'xtrabackup_binlog_info'), 'utf8');
  assert.match(info, new RegExp(`\\t${sourceGtid}`));
  assert.ok((await readdir(join(dir, 'x', 'app'))).includes('rows.ibd'));
});

test('a backup whose stream ends with X-Backup-Status: Failed stores nothing and says so', async (t) => {
  // The server refuses this backup tool password: mariabackup fails and the trailer says Failed.
  const broken = await startServeSidecar(t, source, {}, { ...TEST_SYSTEM_USERS.backupTool, password: 'not-the-password' });
  const url = `s3://${s3.bucket}/failed/c-auto-2.xbackup.gz`;
  const { env, terminationLog } = await jobEnv(t);
  const run = await takeBackup(broken.url, url, env);
  assert.notEqual(run.code, 0);
  assert.match(run.output, /X-Backup-Status: Failed; nothing was stored/);
  assert.match(await readFile(terminationLog, 'utf8'), /X-Backup-Status: Failed/);
  assert.deepEqual(await objectsIn('failed/'), []);
});

test('a source killed mid-stream fails the backup and leaves no object', async (t) => {
  const doomed = await startServeSidecar(t, source);
  const url = `s3://${s3.bucket}/killed/c-auto-3.xbackup.gz`;
  const { env } = await jobEnv(t);
  const job = startSidecar(['take-backup-to', doomed.url, url], env);
  // Mid-stream: the job has the response once mariabackup wrote some MiB through the sidecar.
  await eventually('mariabackup to have streamed 4 MiB', () =>
    childrenOf(doomed.proc.pid!, 'mariabackup').some((pid) => bytesWritten(pid) > 4 << 20),
  );
  await doomed.kill('SIGKILL');
  const run = await job.done;
  assert.notEqual(run.code, 0);
  assert.match(run.output, /backup stream from .* broke off.*nothing was stored/);
  assert.deepEqual(await objectsIn('killed/'), []);
});

test('S3 down mid-upload fails the backup as unreachable; the source stops streaming', async (t) => {
  const own = await startS3({ t });
  const watched = await startServeSidecar(t, source);
  const url = `s3://${own.bucket}/c-auto-4.xbackup.gz`;
  // s3rver does not check SigV4 signatures, so any secret is accepted: one to look for in the output.
  const secret = 'job-secret-8d1f0c';
  const { env } = await jobEnv(t, { ...(own.env as Record<string, string>), AWS_SECRET_ACCESS_KEY: secret });
  const job = startSidecar(['take-backup-to', watched.url, url], env);
  await eventually('mariabackup to stream', () => childrenOf(watched.proc.pid!, 'mariabackup').length > 0);
  await own.kill();
  const run = await job.done;
  assert.notEqual(run.code, 0);
  assert.match(run.output, /storage endpoint is unreachable/);
  assert.ok(!run.output.includes(secret), 'no secret in the output');
  await eventually('mariabackup to be stopped', () => childrenOf(watched.proc.pid!, 'mariabackup').length === 0);
});

test('S3 down or credentials refused mid-upload: the backup fails, and the replica it streamed from replicates as before, caught up', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  await fillData(master, 12);
  const replicaNode = await replica.node();
  const caughtUp = async (): Promise<void> => {
    const want = String((await master.sql('SELECT @@gtid_binlog_pos AS g'))[0]?.g);
    await eventually(`replica at ${want}, both threads running`, async () => {
      const r = await replicaNode.replicationStatus();
      return r?.ioRunning === true && r.sqlRunning === true && r.gtidExecuted === want && r.lastSqlErrno === 0 && r.lastIoErrno === 0;
    });
  };
  await caughtUp();
  const replicaSidecar = await startServeSidecar(t, replica);

  const failMidUpload = async (label: string, env: Record<string, string>, url: string, why: RegExp, breakIt?: () => Promise<void>) => {
    const job = startSidecar(['take-backup-to', replicaSidecar.url, url], env);
    if (breakIt) {
      await eventually(`${label}: mariabackup to stream`, () => childrenOf(replicaSidecar.proc.pid!, 'mariabackup').length > 0);
      await breakIt();
    }
    const run = await job.done;
    assert.notEqual(run.code, 0, label);
    assert.match(run.output, why, label);
    await eventually(`${label}: mariabackup to be stopped`, () => childrenOf(replicaSidecar.proc.pid!, 'mariabackup').length === 0);
    // The master keeps writing meanwhile; the replica must apply all of it.
    await master.sql("INSERT INTO app.rows (payload) VALUES ('after a failed backup')");
    await caughtUp();
  };

  const down = await startS3({ t });
  await failMidUpload(
    'S3 down',
    (await jobEnv(t, down.env as Record<string, string>)).env,
    `s3://${down.bucket}/r-1.xbackup.gz`,
    /storage endpoint is unreachable/,
    () => down.kill(),
  );
  // s3rver checks the access key id (not signatures): a wrong one is refused at the first
  // request, made once the first part is full, so with the stream under way.
  const refusing = (await jobEnv(t, { AWS_ACCESS_KEY_ID: 'WRONG' })).env;
  await failMidUpload(
    'credentials refused',
    refusing,
    `s3://${s3.bucket}/replica/r-2.xbackup.gz`,
    /access denied|AccessDenied|InvalidAccessKeyId/i,
  );
  assert.deepEqual(await objectsIn('replica/'), []);
  assert.equal(Number((await replica.sql("SELECT COUNT(*) AS n FROM app.rows WHERE payload = 'after a failed backup'"))[0]?.n), 2);
});

test('a BACKUP_COMPRESS_COMMAND that fails stores nothing', async (t) => {
  const url = `s3://${s3.bucket}/cmd/c-auto-5.xbackup.gz`;
  const { env } = await jobEnv(t, { BACKUP_COMPRESS_COMMAND: 'sh -c "head -c 100000; exit 3"' });
  const run = await takeBackup(sourceSidecar.url, url, env);
  assert.notEqual(run.code, 0);
  assert.deepEqual(await objectsIn('cmd/'), []);
});

test('restoring a missing, truncated or uncompressed backup fails clearly and leaves the data directory empty', async (t) => {
  const missing = await restore(t, `s3://${s3.bucket}/nope/c-auto-0.xbackup.gz`);
  assert.notEqual(missing.run.code, 0);
  assert.match(missing.run.output, /c-auto-0\.xbackup\.gz does not exist/);
  assert.match(await readFile(missing.terminationLog, 'utf8'), /does not exist/);
  assert.deepEqual(await readdir(missing.target.datadir), []);

  const good = `s3://${s3.bucket}/c/c-auto-trunc-src.xbackup.gz`;
  const { env } = await jobEnv(t);
  assert.equal((await takeBackup(sourceSidecar.url, good, env)).code, 0);
  const whole = await Readable.from(await storage.openRead(good)).toArray();
  const bytes = Buffer.concat(whole as Buffer[]);
  const truncatedUrl = `s3://${s3.bucket}/trunc/c-auto-6.xbackup.gz`;
  await storage.upload(truncatedUrl, Readable.from([bytes.subarray(0, Math.floor(bytes.length * 0.6))]));
  const truncated = await restore(t, truncatedUrl);
  assert.notEqual(truncated.run.code, 0);
  assert.match(truncated.run.output, /c-auto-6\.xbackup\.gz is truncated or corrupt \(gzip: unexpected end of file\)/);
  assert.match(await readFile(truncated.terminationLog, 'utf8'), /truncated or corrupt/);
  assert.deepEqual(await readdir(truncated.target.datadir), []);

  const plainUrl = `s3://${s3.bucket}/plain/c-auto-7.xbackup.gz`;
  await storage.upload(plainUrl, Readable.from([Buffer.from('XBSTCK01 but never compressed')]));
  const plain = await restore(t, plainUrl);
  assert.notEqual(plain.run.code, 0);
  assert.match(plain.run.output, /c-auto-7\.xbackup\.gz is neither gzip nor zstd \(it starts with 58425354\w*\); not a backup object/);
  assert.deepEqual(await readdir(plain.target.datadir), []);
});

function childrenOf(pid: number, name: string): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid), '-f', name], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function bytesWritten(pid: number): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
