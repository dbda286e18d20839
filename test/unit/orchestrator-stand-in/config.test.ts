// The stand-in reads Orchestrator's own config file: the keys it acts on, every other key ignored,
// and a clear error naming the key it cannot use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoRecovers, parseConfig } from '../../../sandbox/orchestrator/config.ts';

const MINIMAL = { MySQLTopologyUser: 'orc', ReplicationCredentialsQuery: "SELECT 'repl', 'pw'" };
const parse = (over: Record<string, unknown>) => parseConfig(JSON.stringify({ ...MINIMAL, ...over }));

test('defaults, hook lists and unknown keys', () => {
  const cfg = parse({ RaftEnabled: false, PostFailoverProcesses: ['echo {failedHost}'] });
  assert.deepEqual([cfg.instancePollSeconds, cfg.recoveryPeriodBlockSeconds, cfg.failureDetectionPeriodBlockMinutes], [1, 3600, 60]);
  assert.deepEqual(cfg.hooks.PostFailoverProcesses, ['echo {failedHost}']);
  assert.deepEqual(cfg.hooks.PreFailoverProcesses, []);
});

test('a config it cannot use is an error naming the key', () => {
  const cases: Array<[string | Record<string, unknown>, RegExp]> = [
    ['{', /orchestrator config: not JSON/],
    ['[]', /must be a JSON object/],
    [{ MySQLTopologyUser: undefined }, /MySQLTopologyUser is required/],
    [{ MySQLTopologyUser: 7 }, /MySQLTopologyUser must be a string/],
    [{ InstancePollSeconds: '1' }, /InstancePollSeconds must be a number/],
    [{ InstancePollSeconds: 0 }, /InstancePollSeconds must be positive/],
    [{ ReplicationCredentialsQuery: undefined }, /ReplicationCredentialsQuery is required/],
    [{ DelayMasterPromotionIfSQLThreadNotUpToDate: 'yes' }, /DelayMasterPromotionIfSQLThreadNotUpToDate must be a boolean/],
    [
      { FailMasterPromotionIfSQLThreadNotUpToDate: true, DelayMasterPromotionIfSQLThreadNotUpToDate: true },
      /Cannot have both FailMasterPromotionIfSQLThreadNotUpToDate and DelayMasterPromotionIfSQLThreadNotUpToDate/,
    ],
    [{ PreFailoverProcesses: 'echo' }, /PreFailoverProcesses must be a list of strings/],
    [{ RecoverMasterClusterFilters: [1] }, /RecoverMasterClusterFilters must be a list of strings/],
  ];
  for (const [input, error] of cases) {
    assert.throws(() => (typeof input === 'string' ? parseConfig(input) : parse(input)), error, JSON.stringify(input));
  }
});

test('the password never appears in an error', () => {
  assert.throws(
    () => parse({ MySQLTopologyPassword: 's3cret', InstancePollSeconds: -1 }),
    (e: unknown) => e instanceof Error && !e.message.includes('s3cret'),
  );
});

test('RecoverMasterClusterFilters match the cluster name or alias; none means no automatic recovery', () => {
  assert.equal(autoRecovers(parse({ RecoverMasterClusterFilters: ['*'] }), 'h:3306', 'my-db.default'), true);
  assert.equal(autoRecovers(parse({ RecoverMasterClusterFilters: ['^my-db\\.'] }), 'h:3306', 'my-db.default'), true);
  assert.equal(autoRecovers(parse({ RecoverMasterClusterFilters: ['other'] }), 'h:3306', 'my-db.default'), false);
  assert.equal(autoRecovers(parse({}), 'h:3306', 'my-db.default'), false);
});

test("the topology account from MySQLTopologyCredentialsConfigFile's [client] section, as the chart gives it", () => {
  const files: Record<string, string> = {
    '/etc/orchestrator/orc-topology.cnf': '[mysqld]\nuser=mysql\n[client]\nuser = orc\npassword=p=w\n',
  };
  const text = JSON.stringify({
    ...MINIMAL,
    MySQLTopologyUser: undefined,
    MySQLTopologyCredentialsConfigFile: '/etc/orchestrator/orc-topology.cnf',
  });
  const cfg = parseConfig(text, (path) => files[path]!);
  assert.deepEqual([cfg.topologyUser, cfg.topologyPassword], ['orc', 'p=w']);
  assert.throws(() => parseConfig(text), /MySQLTopologyUser is required/, 'no file reader: the file is not read');
});

test('the promotion variants for a candidate whose SQL thread is behind: neither by default, as 3.2.6; ReasonableReplicationLagSeconds 10', () => {
  const d = parse({});
  assert.deepEqual([d.failPromotionIfSqlBehind, d.delayPromotionIfSqlBehind, d.reasonableReplicationLagSeconds], [false, false, 10]);
  const delay = parse({ DelayMasterPromotionIfSQLThreadNotUpToDate: true, ReasonableReplicationLagSeconds: 30 });
  assert.deepEqual(
    [delay.failPromotionIfSqlBehind, delay.delayPromotionIfSqlBehind, delay.reasonableReplicationLagSeconds],
    [false, true, 30],
  );
});
