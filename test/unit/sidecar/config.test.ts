import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, splitArgs, splitSql } from '../../../src/sidecar/config.ts';
import { nativePasswordHash, storedHashMatches } from '../../../src/mysql/accounts.ts';
import { podOrdinal } from '../../../src/api/names.ts';
import { ALL_NEEDS, anchorPodEnv } from './env.ts';

test('the anchor pod environment gives server-id ordinal + 100, the anchor paths and peer URLs', () => {
  const cfg = loadConfig(anchorPodEnv(), [], ALL_NEEDS);
  assert.equal(cfg.ordinal, 1);
  assert.equal(cfg.serverId, 101);
  assert.equal(cfg.fqdn, 'my-db-mysql-1.mysql.default');
  assert.equal(cfg.flavour.family, 'mysql');
  assert.deepEqual(cfg.paths, {
    configDir: '/etc/mysql',
    dataDir: '/var/lib/mysql',
    confSourceDir: '/mnt/conf',
    xtrabackupTargetDir: '/tmp/xtrabackup_backupfiles/',
    terminationLog: '/dev/termination-log',
  });
  assert.deepEqual(cfg.mysql, { host: '127.0.0.1', port: 3306 });
  assert.deepEqual(cfg.http, { host: '0.0.0.0', port: 8080 });
  assert.deepEqual(cfg.cloneSources, {
    replicas: 'http://my-db-mysql-replicas:8080',
    master: 'http://my-db-mysql-master:8080',
  });
  assert.equal(cfg.initBucketUri, undefined);
  assert.equal(cfg.compressCommand, undefined);
});

test('every missing variable is named in one error', () => {
  const env = anchorPodEnv({ MY_NAMESPACE: undefined, BACKUP_PASSWORD: '', OPERATOR_USER: undefined });
  assert.throws(
    () => loadConfig(env, [], ALL_NEEDS),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems.length === 3 &&
      /MY_NAMESPACE/.test(err.message) &&
      /BACKUP_PASSWORD/.test(err.message) &&
      /OPERATOR_USER/.test(err.message),
  );
});

test('bad values are rejected naming the variable and the value', () => {
  assert.throws(() => loadConfig(anchorPodEnv({ MY_SERVER_ID_OFFSET: 'ten' }), [], ALL_NEEDS), /MY_SERVER_ID_OFFSET='ten'/);
  assert.throws(() => loadConfig(anchorPodEnv({ MY_POD_NAME: 'mysql' }), [], ALL_NEEDS), /MY_POD_NAME='mysql' does not end/);
  assert.throws(() => loadConfig(anchorPodEnv({ MY_MYSQL_VERSION: 'latest' }), [], ALL_NEEDS), /MY_MYSQL_VERSION='latest'/);
  assert.throws(() => loadConfig(anchorPodEnv(), ['--http-port=99999'], ALL_NEEDS), /SIDECAR_HTTP_PORT='99999'/);
});

test('a subcommand only requires the groups it needs', () => {
  const cfg = loadConfig({ BACKUP_USER: 'u', BACKUP_PASSWORD: 'p', MY_MYSQL_VERSION: 'mariadb-10.11' }, [], ['version', 'backup-http']);
  assert.equal(cfg.flavour.family, 'mariadb');
  assert.deepEqual(cfg.backup, { user: 'u', password: 'p' });
});

test('MariaDB versions as the operator passes them pick the MariaDB tools', () => {
  for (const v of ['mariadb-10.11', '10.11.10', 'mariadb-11.4.4']) {
    assert.equal(loadConfig(anchorPodEnv({ MY_MYSQL_VERSION: v }), [], ALL_NEEDS).flavour.family, 'mariadb', v);
  }
});

test('flags override environment overrides, which override the container defaults', () => {
  const env = anchorPodEnv({
    SIDECAR_DATA_DIR: '/env/data',
    SIDECAR_CONFIG_DIR: '/env/conf',
    SIDECAR_CLONE_MASTER_URL: 'http://127.0.0.1:1',
  });
  const cfg = loadConfig(env, ['--data-dir=/flag/data', '--http-port=0', '--mysql-port=3307'], ALL_NEEDS);
  assert.equal(cfg.paths.dataDir, '/flag/data');
  assert.equal(cfg.paths.configDir, '/env/conf');
  assert.equal(cfg.http.port, 0);
  assert.equal(cfg.mysql.port, 3307);
  assert.equal(cfg.cloneSources.master, 'http://127.0.0.1:1');
  assert.equal(cfg.cloneSources.replicas, 'http://my-db-mysql-replicas:8080');
});

test('extra arguments and extra SQL are split the way the anchor joined them', () => {
  const cfg = loadConfig(
    anchorPodEnv({
      XTRABACKUP_EXTRA_ARGS: '--parallel=2  --throttle=10',
      INITFILE_EXTRA_SQL: 'SET GLOBAL x = 1; CREATE DATABASE IF NOT EXISTS app;',
      BACKUP_COMPRESS_COMMAND: 'zstd -3',
      BACKUP_DECOMPRESS_COMMAND: 'zstd -d',
      MY_SERVER_ID_OFFSET: '1000',
    }),
    [],
    ALL_NEEDS,
  );
  assert.deepEqual(cfg.xtrabackupExtraArgs, ['--parallel=2', '--throttle=10']);
  assert.deepEqual(cfg.initFileExtraSql, ['SET GLOBAL x = 1', 'CREATE DATABASE IF NOT EXISTS app']);
  assert.deepEqual(cfg.decompressCommand, ['zstd', '-d']);
  assert.equal(cfg.serverId, 1001);
});

test('each backup command comes from its own variable: the init container gets only the decompressor', () => {
  // The anchor's template gives the init container BACKUP_DECOMPRESS_COMMAND alone, and only
  // when the spec sets both commands (render-statefulset.ts applies that rule, not the sidecar).
  const init = loadConfig(anchorPodEnv({ BACKUP_DECOMPRESS_COMMAND: 'zstd -d' }), [], ALL_NEEDS);
  assert.deepEqual(init.decompressCommand, ['zstd', '-d']);
  assert.equal(init.compressCommand, undefined);
  const job = loadConfig(anchorPodEnv({ BACKUP_COMPRESS_COMMAND: 'zstd' }), [], ALL_NEEDS);
  assert.deepEqual(job.compressCommand, ['zstd']);
  assert.equal(job.decompressCommand, undefined);
});

test('helpers: ordinal from the pod name, argument and SQL splitting', () => {
  assert.equal(podOrdinal('my-db-mysql-12'), 12);
  assert.equal(podOrdinal('my-db-mysql'), -1);
  assert.deepEqual(splitArgs(' a  b '), ['a', 'b']);
  assert.deepEqual(splitArgs(undefined), []);
  assert.deepEqual(splitSql(';;a;'), ['a']);
});

test("the topology account: the Secret's hash first, else the hash of the plain password; a bad hash or none is refused without its value", () => {
  const hash = nativePasswordHash('Install-Wide-1');
  const fromHash = loadConfig(anchorPodEnv({ ORC_TOPOLOGY_PASSWORD: undefined, ORC_TOPOLOGY_PASSWORD_HASH: hash }), [], ALL_NEEDS);
  assert.deepEqual(fromHash.orchestrator, { user: 'orchestrator', passwordHash: hash });
  const fromPlain = loadConfig(anchorPodEnv(), [], ALL_NEEDS);
  assert.deepEqual(fromPlain.orchestrator, { user: 'orchestrator', passwordHash: nativePasswordHash('PlaceOrc10') });
  const maria84 = loadConfig(anchorPodEnv({ MY_MYSQL_VERSION: '8.4' }), [], ALL_NEEDS);
  assert.ok(storedHashMatches(maria84.orchestrator.passwordHash, 'PlaceOrc10'), 'MySQL 8.4: caching_sha2_password');
  assert.match(maria84.orchestrator.passwordHash, /^\$A\$005\$/);
  const bad = () =>
    loadConfig(anchorPodEnv({ ORC_TOPOLOGY_PASSWORD: undefined, ORC_TOPOLOGY_PASSWORD_HASH: 'not-a-hash-value' }), [], ALL_NEEDS);
  assert.throws(
    bad,
    (e: Error) =>
      e instanceof ConfigError && /ORC_TOPOLOGY_PASSWORD_HASH is neither/.test(e.message) && !e.message.includes('not-a-hash-value'),
  );
  const none = () => loadConfig(anchorPodEnv({ ORC_TOPOLOGY_PASSWORD: undefined }), [], ALL_NEEDS);
  assert.throws(none, /ORC_TOPOLOGY_PASSWORD_HASH \(or ORC_TOPOLOGY_PASSWORD\) is not set/);
  // Subcommands that create no account do not need it.
  assert.equal(
    loadConfig(anchorPodEnv({ ORC_TOPOLOGY_PASSWORD: undefined }), [], ['version', 'backup-http']).orchestrator.passwordHash,
    '',
  );
});

test('the binlog archive: off without BINLOG_ARCHIVE_URL; a folder of a supported scheme and an interval when set; bad values named', () => {
  assert.equal(loadConfig(anchorPodEnv(), [], ALL_NEEDS).binlogArchive, undefined);
  assert.deepEqual(loadConfig(anchorPodEnv({ BINLOG_ARCHIVE_URL: 's3://bkp/c/binlogs/' }), [], ALL_NEEDS).binlogArchive, {
    url: 's3://bkp/c/binlogs/',
    intervalSeconds: 60,
  });
  const env = (over: Record<string, string>) => anchorPodEnv({ BINLOG_ARCHIVE_URL: 's3://bkp/c/binlogs/', ...over });
  assert.throws(
    () => loadConfig(env({ BINLOG_ARCHIVE_URL: 's3://bkp/c/binlogs' }), [], ALL_NEEDS),
    /BINLOG_ARCHIVE_URL='s3:\/\/bkp\/c\/binlogs' is not a folder/,
  );
  assert.throws(
    () => loadConfig(env({ BINLOG_ARCHIVE_URL: 'ftp://h/x/' }), [], ALL_NEEDS),
    /BINLOG_ARCHIVE_URL: ftp:\/\/ backups are not supported/,
  );
  assert.throws(
    () => loadConfig(env({ BINLOG_ARCHIVE_INTERVAL_SECONDS: '0' }), [], ALL_NEEDS),
    /BINLOG_ARCHIVE_INTERVAL_SECONDS='0' is not an integer in 1\.\.86400/,
  );
});
