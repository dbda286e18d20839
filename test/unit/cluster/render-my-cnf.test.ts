import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveMysqlConf, humanizeSize, renderMyCnf } from '../../../src/controllers/cluster/render-my-cnf.ts';
import { resolveVersion } from '../../../src/controllers/shared/resolve-version.ts';

function v(text: string) {
  const r = resolveVersion(text);
  if (!r.ok) throw new Error(r.message);
  return r.version;
}

test('sizes are written in the largest unit that divides them within 0.1%', () => {
  assert.equal(humanizeSize(402653184), '384M');
  assert.equal(humanizeSize(2684354560), '2560M');
  assert.equal(humanizeSize(1024 ** 3), '1G');
  assert.equal(humanizeSize(1000), '1000');
  assert.equal(humanizeSize(1025), '1K');
});

test('the buffer pool follows the memory request in the anchor steps', () => {
  const pool = (mem: string) =>
    effectiveMysqlConf({ version: v('5.7'), perconaImage: true, memoryRequest: mem })['innodb-buffer-pool-size'];
  assert.equal(pool('512Mi'), undefined, 'too small: the server default stays');
  assert.equal(pool('1Gi'), '384M');
  assert.equal(pool('2Gi'), '1344M');
  assert.equal(pool('8Gi'), '6G');
});

test('the log file size steps with memory; 8.4 sizes the redo log capacity instead', () => {
  const conf = (mem: string, ver = '5.7') => effectiveMysqlConf({ version: v(ver), perconaImage: true, memoryRequest: mem });
  assert.equal(conf('512Mi')['innodb-log-file-size'], '48M');
  assert.equal(conf('4Gi')['innodb-log-file-size'], '128M');
  assert.equal(conf('16Gi')['innodb-log-file-size'], '1G');
  assert.equal(conf('32Gi')['innodb-log-file-size'], '2G');
  assert.equal(conf('1Gi', '8.4')['innodb-redo-log-capacity'], '256M');
  assert.equal(conf('1Gi', '8.4')['innodb-log-file-size'], undefined);
});

test('binlog limits follow the volume; binlog-space-limit only on Percona images', () => {
  const conf = (storage: string, percona: boolean, ver = '5.7') =>
    effectiveMysqlConf({ version: v(ver), perconaImage: percona, memoryRequest: '1Gi', storageRequest: storage });
  assert.equal(conf('5Gi', true)['binlog-space-limit'], '2560M');
  assert.equal(conf('5Gi', true)['max-binlog-size'], '640M');
  assert.equal(conf('5Gi', false)['binlog-space-limit'], undefined);
  assert.equal(conf('1Gi', true)['binlog-space-limit'], '341M', 'small volumes keep a third');
  assert.equal(conf('100Gi', true)['max-binlog-size'], '1G');
  assert.equal(conf('100Gi', false, 'mariadb-11.4')['max-binlog-total-size'], '50G');
  assert.equal(conf('100Gi', false, 'mariadb-10.11')['max-binlog-total-size'], undefined);
});

test('buffer pool instances come from the CPU limit, capped by the pool size in GiB (MySQL only)', () => {
  const conf = (cpu: string, mem: string, ver = '8.0') =>
    effectiveMysqlConf({ version: v(ver), perconaImage: true, memoryRequest: mem, cpuLimit: cpu });
  assert.equal(conf('4', '8Gi')['innodb-buffer-pool-instances'], 4);
  assert.equal(conf('4', '2Gi')['innodb-buffer-pool-instances'], 1);
  assert.equal(conf('1500m', '16Gi')['innodb-buffer-pool-instances'], 2);
  assert.equal(conf('4', '8Gi', 'mariadb-10.11')['innodb-buffer-pool-instances'], undefined);
});

test('mysqlConf overrides a default in place and adds new keys in the last group, sorted', () => {
  const cnf = renderMyCnf({
    version: v('5.7'),
    perconaImage: true,
    memoryRequest: '1Gi',
    mysqlConf: { 'max-connections': 800, 'innodb-buffer-pool-size': '512M', 'a-new-option': 'x', 'z-option': 1 },
  });
  const lines = cnf.split('\n');
  const at = (k: string) => lines.findIndex((l) => l.startsWith(`${k} `));
  assert.equal(lines[at('max-connections')], 'max-connections                = 800');
  assert.ok(at('max-connections') < at('max-heap-table-size'), 'kept its place among the common keys');
  assert.equal(lines[at('innodb-buffer-pool-size')], 'innodb-buffer-pool-size        = 512M', 'user value beats the computed one');
  assert.ok(at('a-new-option') < at('innodb-buffer-pool-size') && at('innodb-log-file-size') < at('z-option'));
  assert.equal(lines.at(-2), '!includedir /etc/mysql/conf.d');
  assert.equal(lines.at(-1), '');
});

test('a key longer than every default widens the alignment; odd keys and values are quoted as go-ini does', () => {
  const cnf = renderMyCnf({
    version: v('5.7'),
    perconaImage: true,
    mysqlConf: { 'performance-schema-consumer-events-waits-current': 'ON', 'plugin-load-add': 'a;b', 'init-connect': ' SET x=1 ' },
  });
  assert.match(cnf, /\nperformance-schema-consumer-events-waits-current = ON\n/);
  assert.match(cnf, /\nsync-binlog {38}= 1\n/);
  assert.match(cnf, /\nplugin-load-add += a;b\n/, 'inline comment characters stay bare');
  assert.match(cnf, /\ninit-connect += " SET x=1 "\n/);
});

test('rendering is deterministic whatever the order of mysqlConf keys', () => {
  const a = renderMyCnf({ version: v('8.0'), perconaImage: true, mysqlConf: { b: 1, a: 2, c: 'x' } });
  const b = renderMyCnf({ version: v('8.0'), perconaImage: true, mysqlConf: { c: 'x', a: 2, b: 1 } });
  assert.equal(a, b);
});

test('MariaDB my.cnf has none of the MySQL-only options it would refuse to start with', () => {
  for (const ver of ['mariadb-10.6', 'mariadb-10.11', 'mariadb-11.4']) {
    const cnf = renderMyCnf({ version: v(ver), perconaImage: false, memoryRequest: '2Gi', cpuLimit: '4', storageRequest: '10Gi' });
    for (const bad of [
      'gtid-mode',
      'enforce-gtid-consistency',
      'master-info-repository',
      'relay-log-info-repository',
      'innodb-log-files-in-group',
      'innodb-buffer-pool-instances',
      'default-authentication-plugin',
    ]) {
      assert.doesNotMatch(cnf, new RegExp(`^${bad}`, 'm'), `${ver}: ${bad}`);
    }
  }
});

test('MySQL 8.4 my.cnf uses the replica spellings and no removed options', () => {
  const cnf = renderMyCnf({ version: v('8.4'), perconaImage: true, memoryRequest: '1Gi' });
  for (const bad of [
    'skip-host-cache',
    'default-authentication-plugin',
    'master-info-repository',
    'log-slave-updates',
    'skip-slave-start',
    'expire-logs-days',
  ]) {
    assert.doesNotMatch(cnf, new RegExp(`^${bad}`, 'm'), bad);
  }
  assert.match(cnf, /^log-replica-updates += on$/m);
});

test('durable commits (lossless defaults): both flushes at every commit, in place, unless mysqlConf sets them', () => {
  const plain = renderMyCnf({ version: v('mariadb-10.11'), perconaImage: false });
  assert.match(plain, /^innodb-flush-log-at-trx-commit += 2$/m, 'the anchor value without lossless defaults');
  const durable = renderMyCnf({ version: v('mariadb-10.11'), perconaImage: false, durableCommits: true });
  assert.match(durable, /^innodb-flush-log-at-trx-commit += 1$/m);
  assert.match(durable, /^sync-binlog += 1$/m);
  assert.equal(durable.split('\n').length, plain.split('\n').length + 1, 'same keys, same places, and the net timeout');
  assert.doesNotMatch(plain, /net-timeout/, "the servers' default (60 s) without lossless defaults");
  const user = renderMyCnf({
    version: v('8.0'),
    perconaImage: true,
    durableCommits: true,
    mysqlConf: { 'innodb-flush-log-at-trx-commit': 2, 'sync-binlog': 0 },
  });
  assert.match(user, /^innodb-flush-log-at-trx-commit += 2$/m, 'mysqlConf wins');
  assert.match(user, /^sync-binlog += 0$/m);
});

test('lossless defaults: a replica gives up on a silent master within 4 s, under the name its server knows', () => {
  assert.match(renderMyCnf({ version: v('mariadb-10.11'), perconaImage: false, durableCommits: true }), /^slave-net-timeout += 4$/m);
  assert.match(renderMyCnf({ version: v('5.7'), perconaImage: false, durableCommits: true }), /^slave-net-timeout += 4$/m);
  assert.match(renderMyCnf({ version: v('8.0.26'), perconaImage: false, durableCommits: true }), /^replica-net-timeout += 4$/m);
  assert.match(
    renderMyCnf({ version: v('8.0'), perconaImage: false, durableCommits: true, mysqlConf: { 'replica-net-timeout': 30 } }),
    /^replica-net-timeout += 30$/m,
    'mysqlConf wins',
  );
});
