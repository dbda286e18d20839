// Golden tests: the files clone-and-init writes for the anchor's sample pod my-db-mysql-1 are
// byte-identical to test/fixtures/anchor-v0.6.3/pod-files (the heartbeat password is random per run,
// so it is put in place of the fixture's placeholder before comparing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadConfig } from '../../../src/sidecar/config.ts';
import { gatherDataDirFacts, renderPodFiles, writePodFiles } from '../../../src/sidecar/write-pod-files.ts';
import { anchorInitFileWithCredentials, BACKUP_TOOL_PLACEHOLDER } from '../../support/anchor-init-file.ts';
import { ALL_NEEDS, anchorPodEnv } from './env.ts';

const FIXTURES = new URL('../../fixtures/anchor-v0.6.3/', import.meta.url).pathname;
const POD_FILES = join(FIXTURES, 'pod-files/etc/mysql');
const GTID = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5';
const HEARTBEAT_PLACEHOLDER = 'PlaceHbt10';

async function fixture(rel: string): Promise<string> {
  return readFile(join(POD_FILES, rel), 'utf8');
}

function rendered(files: Array<[string, string]>, name: string): string {
  const hit = files.find(([p]) => p.endsWith(`/${name}`));
  assert.ok(hit, `no ${name} rendered`);
  return hit[1];
}

/** The anchor's sample pod, its data directory cloned at GTID (status table data there or not). */
function anchorPodFiles(statusTableMissing: boolean): Array<[string, string]> {
  const cfg = loadConfig(anchorPodEnv(), [], ALL_NEEDS);
  return renderPodFiles(cfg, {
    facts: { statusTableMissing, backupGtid: GTID },
    restoredFromBucket: false,
    resumeReplication: false,
    heartbeatPassword: HEARTBEAT_PLACEHOLDER,
    backupToolPassword: BACKUP_TOOL_PLACEHOLDER,
  });
}

test('first start after a clone: every rendered file equals the anchor file byte for byte (the init-file plus the replication credentials)', async () => {
  const files = anchorPodFiles(true);
  assert.deepEqual(
    files.map(([p]) => p),
    [
      '/etc/mysql/conf.d/10-identity.cnf',
      '/etc/mysql/conf.d/operator-init.sql',
      '/etc/mysql/conf.d/10-init-file.cnf',
      '/etc/mysql/client.conf',
      '/etc/mysql/heartbeat.conf',
      '/etc/mysql/xtrabackup.cnf',
    ],
  );
  assert.equal(rendered(files, 'xtrabackup.cnf'), `[xtrabackup]\nuser     = sys_xtrabackup\npassword = ${BACKUP_TOOL_PLACEHOLDER}\n\n`);
  for (const name of ['conf.d/10-identity.cnf', 'conf.d/10-init-file.cnf', 'client.conf', 'heartbeat.conf']) {
    assert.equal(rendered(files, name), await fixture(name), name);
  }
  assert.equal(rendered(files, 'operator-init.sql'), anchorInitFileWithCredentials(await fixture('conf.d/operator-init.sql')));
});

test('a later restart keeps the GTID line and drops the DROP TABLE (anchor .variant-restart)', async () => {
  assert.equal(
    rendered(anchorPodFiles(false), 'operator-init.sql'),
    anchorInitFileWithCredentials(await fixture('conf.d/operator-init.sql.variant-restart')),
  );
});

test('a replica that resumes keeps configured and starts replication as the last statement', () => {
  const cfg = loadConfig(anchorPodEnv({ MY_MYSQL_VERSION: 'mariadb-10.11' }), [], ALL_NEEDS);
  const initFile = (resumeReplication: boolean) =>
    rendered(
      renderPodFiles(cfg, {
        facts: { statusTableMissing: false, backupGtid: null },
        restoredFromBucket: false,
        resumeReplication,
        heartbeatPassword: 'x',
        backupToolPassword: 'y',
      }),
      'operator-init.sql',
    );
  const resumed = initFile(true).trimEnd().split('\n');
  assert.equal(resumed.at(-1), 'START SLAVE;');
  assert.ok(!resumed.some((l) => /'configured'/.test(l)), 'configured left as it was');
  const reset = initFile(false);
  assert.match(reset, /'configured'/);
  assert.doesNotMatch(reset, /START SLAVE/);
});

test('the facts come from the data directory: status.ibd and xtrabackup_binlog_info', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sidecar-facts-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.deepEqual(await gatherDataDirFacts(dir), { statusTableMissing: true, backupGtid: null });
  await mkdir(join(dir, 'sys_operator'));
  await writeFile(join(dir, 'sys_operator/status.ibd'), '');
  await writeFile(join(dir, 'xtrabackup_binlog_info'), `mysql-bin.000003\t194\t${GTID}\n`);
  assert.deepEqual(await gatherDataDirFacts(dir), { statusTableMissing: false, backupGtid: GTID });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(relative(dir, join(e.parentPath, e.name)));
  }
  return out.sort();
}

test('writePodFiles produces the anchor /etc/mysql tree from the ConfigMap mount and the data directory', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'sidecar-podfiles-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const [conf, mnt, data] = ['etc-mysql', 'mnt-conf', 'data'].map((d) => join(root, d)) as [string, string, string];
  await cp(join(FIXTURES, 'configmap-data'), mnt, { recursive: true });
  // What a ConfigMap volume also contains: the atomic-writer's hidden entries.
  await mkdir(join(mnt, '..2026_01_01'));
  await mkdir(data);
  await writeFile(join(data, 'xtrabackup_binlog_info'), `mysql-bin.000003\t194\t${GTID}\n`);
  const cfg = loadConfig(anchorPodEnv(), [`--config-dir=${conf}`, `--conf-source-dir=${mnt}`, `--data-dir=${data}`], ALL_NEEDS);
  await writePodFiles(cfg, { cloned: false, restoredFromBucket: false });

  const expected = (await listFiles(POD_FILES)).filter((f) => !f.endsWith('.variant-restart'));
  // Ours besides the anchor's: the backup tools' option file (docs/credentials.md).
  assert.deepEqual(await listFiles(conf), [...expected, 'xtrabackup.cnf'].sort());
  const heartbeat = await readFile(join(conf, 'heartbeat.conf'), 'utf8');
  const password = /password = ([A-Za-z0-9]{10})\n/.exec(heartbeat)?.[1];
  assert.ok(password, 'heartbeat password is 10 alphanumerics');
  const toolConf = await readFile(join(conf, 'xtrabackup.cnf'), 'utf8');
  const toolPassword = /password = ([A-Za-z0-9]{24})\n/.exec(toolConf)?.[1];
  assert.ok(toolPassword, 'the backup tools password is 24 alphanumerics');
  assert.equal((await stat(join(conf, 'xtrabackup.cnf'))).mode & 0o777, 0o600);
  for (const f of expected) {
    let want = await fixture(f);
    if (f === 'conf.d/10-init-file.cnf') want = want.replace('/etc/mysql/', `${conf}/`);
    if (f === 'conf.d/operator-init.sql') want = anchorInitFileWithCredentials(want);
    const got: string = (await readFile(join(conf, f), 'utf8'))
      .replaceAll(password, HEARTBEAT_PLACEHOLDER)
      .replaceAll(toolPassword, BACKUP_TOOL_PLACEHOLDER);
    assert.equal(got, want, f);
  }
  assert.equal((await stat(join(conf, 'conf.d'))).mode & 0o777, 0o755);
});

test('each run of the init container gets a new heartbeat password', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'sidecar-podfiles-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'mnt'));
  await writeFile(join(root, 'mnt/my.cnf'), '[mysqld]\n');
  const cfg = loadConfig(
    anchorPodEnv(),
    [`--config-dir=${root}/etc`, `--conf-source-dir=${root}/mnt`, `--data-dir=${root}/data`],
    ALL_NEEDS,
  );
  await writePodFiles(cfg, { cloned: false, restoredFromBucket: false });
  const first = await readFile(join(root, 'etc/heartbeat.conf'), 'utf8');
  await writePodFiles(cfg, { cloned: false, restoredFromBucket: false });
  assert.notEqual(await readFile(join(root, 'etc/heartbeat.conf'), 'utf8'), first);
});
