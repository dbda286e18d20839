import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_REASONS } from '../../../src/api/constants.ts';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { validateCluster } from '../../../src/controllers/cluster/validate-cluster.ts';
import { cluster, ROOT_SECRET } from './builders.ts';

const opts = clusterOptions();

function problems(c: ReturnType<typeof cluster>, secret: unknown) {
  const v = validateCluster(c, secret as never, opts);
  return v.ok ? [] : v.problems;
}

test('a cluster with its Secret and a known version is valid', () => {
  assert.equal(validateCluster(cluster({ mysqlVersion: '8.0' }), ROOT_SECRET, opts).ok, true);
});

test('a missing user Secret is named in the problem', () => {
  const [p] = problems(cluster(), undefined);
  assert.equal(p?.reason, CLUSTER_REASONS.userSecretNotFound);
  assert.match(p!.message, /Secret default\/my-db-secret \(spec\.secretName\) does not exist/);
});

test('a missing initBucketSecretName Secret is refused, naming the field; none named or present is fine', () => {
  const restore = cluster({ initBucketURL: 's3://bucket/x.xbackup.gz', initBucketSecretName: 'creds' });
  const v = validateCluster(restore, ROOT_SECRET, opts, false);
  assert.equal(v.ok, false);
  const [p] = v.ok ? [] : v.problems;
  assert.equal(p?.reason, CLUSTER_REASONS.initBucketSecretNotFound);
  assert.match(p!.message, /Secret default\/creds \(spec\.initBucketSecretName\) does not exist/);
  assert.equal(validateCluster(restore, ROOT_SECRET, opts, true).ok, true);
  assert.equal(validateCluster(cluster(), ROOT_SECRET, opts, false).ok, true, 'no Secret named: nothing to find');
});

test('a user Secret without ROOT_PASSWORD names the Secret and the key', () => {
  const [p] = problems(cluster(), { metadata: { name: 'my-db-secret' }, data: { USER: 'dQ==' } });
  assert.equal(p?.reason, CLUSTER_REASONS.userSecretKeyMissing);
  assert.match(p!.message, /default\/my-db-secret .* ROOT_PASSWORD/);
});

test('an empty ROOT_PASSWORD counts as missing', () => {
  assert.equal(problems(cluster(), { metadata: {}, data: { ROOT_PASSWORD: '' } })[0]?.reason, CLUSTER_REASONS.userSecretKeyMissing);
});

test('an unknown mysqlVersion is refused with the supported list', () => {
  for (const v of ['9.1', 'latest', '5.6', 'mariadb-10.3']) {
    const [p] = problems(cluster({ mysqlVersion: v }), ROOT_SECRET);
    assert.equal(p?.reason, CLUSTER_REASONS.unknownMysqlVersion, v);
    assert.match(p!.message, /supported: 5\.7, 8\.0, 8\.4/);
  }
});

test('an exact version without a known image needs spec.image or the operator flag', () => {
  const [p] = problems(cluster({ mysqlVersion: '8.0.36' }), ROOT_SECRET);
  assert.equal(p?.reason, CLUSTER_REASONS.imageNotDerivable);
  assert.match(p!.message, /set spec\.image/);
  assert.equal(validateCluster(cluster({ mysqlVersion: '8.0.36', image: 'percona:8.0.36' }), ROOT_SECRET, opts).ok, true);
  const flagged = clusterOptions({ versionImages: { '8.0.36': 'percona:8.0.36' } });
  assert.equal(validateCluster(cluster({ mysqlVersion: '8.0.36' }), ROOT_SECRET, flagged).ok, true);
});

test('mysqlConf keys the operator owns are refused, in any spelling', () => {
  const [p] = problems(cluster({ mysqlConf: { server_id: 5, 'Report-Host': 'x', 'max-connections': 10 } }), ROOT_SECRET);
  assert.equal(p?.reason, CLUSTER_REASONS.operatorOwnedMysqlConf);
  assert.match(p!.message, /"server_id", "Report-Host"/);
  assert.doesNotMatch(p!.message, /max-connections/);
});

test('mysqlConf keys that mysqld reads as an owned option are refused: prefixes, skip-/disable-/enable-, loose-', () => {
  // MariaDB 10.11 reads `init-fil` as init-file and `report-hos` as report-host
  // (getopt-prefix-matching is on by default), and `skip-read-only` as read-only=0.
  const sneaky = [
    'init-fil',
    'report-hos',
    'skip-read-only',
    'disable_log_bin',
    'loose-skip-init-file',
    'Enable-GTID-Mode',
    'maximum-server-id',
  ];
  const [p] = problems(cluster({ mysqlConf: Object.fromEntries(sneaky.map((k) => [k, 1])) }), ROOT_SECRET);
  assert.equal(p?.reason, CLUSTER_REASONS.operatorOwnedMysqlConf);
  for (const k of sneaky) assert.ok(p!.message.includes(`"${k}"`), k);
  // Options of their own, some sharing a beginning with an owned one.
  const fine = [
    'skip-name-resolve',
    'skip-slave-start',
    'port-open-timeout',
    'log-bin-trust-function-creators',
    'read_buffer_size',
    'init-connect',
    'validate_password.policy',
  ];
  assert.equal(validateCluster(cluster({ mysqlConf: Object.fromEntries(fine.map((k) => [k, 1])) }), ROOT_SECRET, opts).ok, true);
});

test('a mysqlConf value with a line break or another control character is refused, naming the field', () => {
  for (const value of ['1\ninit-file=/tmp/x', '1\r\ninit-file=/tmp/x', '1\rinit-file=/tmp/x', '1\u0000x', 'a\u001bb', 'a\u007fb']) {
    const ps = problems(cluster({ mysqlConf: { max_connections: value, 'max-allowed-packet': '64M' } }), ROOT_SECRET);
    assert.deepEqual(
      ps.map((p) => p.reason),
      [CLUSTER_REASONS.invalidMysqlConf],
      JSON.stringify(value),
    );
    assert.match(ps[0]!.message, /^spec\.mysqlConf\.max_connections holds a line break or another control character/);
  }
  // A tab, quotes, # and = stay inside the value's line.
  const ok = {
    'sql-mode': '\tSTRICT_TRANS_TABLES',
    'log-error': '/var/log/"x"#1',
    'optimizer-switch': 'index_merge=off',
    'max-connections': 10,
  };
  assert.equal(validateCluster(cluster({ mysqlConf: ok }), ROOT_SECRET, opts).ok, true);
});

test('a mysqlConf key that is no option name is refused, quoted in the field path', () => {
  const keys = [
    'x\ninit-file',
    'x\rinit-file',
    '[client]',
    '!include /etc/secret.cnf',
    '!includedir /tmp',
    '#comment',
    ';comment',
    'a=b',
    'a:b',
    ' max-connections',
    'max connections',
    '',
    'a\u0000b',
    'a`b',
  ];
  const ps = problems(cluster({ mysqlConf: Object.fromEntries(keys.map((k) => [k, '1'])) }), ROOT_SECRET);
  const invalid = ps.filter((p) => p.reason === CLUSTER_REASONS.invalidMysqlConf);
  assert.deepEqual(
    invalid.map((p) => p.message.slice(0, p.message.indexOf(' is not an option name'))),
    keys.map((k) => `spec.mysqlConf[${JSON.stringify(k)}]`),
  );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is what the test looks for
  for (const p of ps) assert.doesNotMatch(p.message, /[\n\r\u0000]/, 'messages carry no raw control characters');
});

test('negative replicas are refused', () => {
  assert.equal(problems(cluster({ replicas: -1 }), ROOT_SECRET)[0]?.reason, CLUSTER_REASONS.invalidReplicas);
});

test('every problem is reported, not only the first', () => {
  const ps = problems(cluster({ replicas: -2, mysqlConf: { datadir: '/x' } }), undefined);
  assert.deepEqual(
    ps.map((p) => p.reason),
    [CLUSTER_REASONS.invalidReplicas, CLUSTER_REASONS.userSecretNotFound, CLUSTER_REASONS.operatorOwnedMysqlConf],
  );
});

test('quantities the API server cannot decode are refused with the field that holds them', () => {
  const bad = problems(
    cluster({
      podSpec: {
        resources: { requests: { memory: 'lots' } },
        ptHeartbeatResources: { limits: { cpu: '-1' } },
        containers: [{ name: 'x', image: 'x', resources: { limits: { 'nvidia.com/gpu': '1x' } } }],
      },
      volumeSpec: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5 GB' } } } },
      tmpfsSize: 'big',
    }),
    ROOT_SECRET,
  );
  assert.deepEqual(
    bad.map((p) => p.reason),
    Array(5).fill(CLUSTER_REASONS.invalidQuantity),
  );
  assert.deepEqual(
    bad.map((p) => p.message.split(' is ')[0]),
    [
      'spec.podSpec.resources.requests.memory',
      'spec.podSpec.ptHeartbeatResources.limits.cpu',
      'spec.podSpec.containers[0].resources.limits[nvidia.com/gpu]',
      'spec.volumeSpec.persistentVolumeClaim.resources.requests.storage',
      'spec.tmpfsSize',
    ],
  );
  assert.match(bad[0]!.message, /"lots": quantities must match the regular expression/);
  assert.match(bad[1]!.message, /must be greater than or equal to 0/);
  const good = cluster({
    podSpec: { resources: { requests: { memory: '1.5Gi', cpu: 0.5 as never }, limits: { cpu: '1e3' } } },
    tmpfsSize: 1024,
  });
  assert.equal(validateCluster(good, ROOT_SECRET, opts).ok, true);
});

test('minAvailable must be pods >= 0 or a percentage up to 100%', () => {
  for (const v of ['150%', '2', 'half', -1]) {
    const [p] = problems(cluster({ minAvailable: v }), ROOT_SECRET);
    assert.equal(p?.reason, CLUSTER_REASONS.invalidMinAvailable, String(v));
    assert.match(p!.message, new RegExp(`^spec\\.minAvailable is ${JSON.stringify(v).replace(/[.%]/g, '\\$&')}: `), String(v));
  }
  for (const v of ['100%', '0%', 2, 0, ''])
    assert.equal(validateCluster(cluster({ minAvailable: v }), ROOT_SECRET, opts).ok, true, String(v));
});
