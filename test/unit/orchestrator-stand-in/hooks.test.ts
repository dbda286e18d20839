// The placeholders and ORC_* variables the stand-in gives hook processes, as Orchestrator 3.2.6
// gave them in the recordings (fixtures/orchestrator/hooks/README.md), and how hooks run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hookEnv, placeholders, runHooks, substitute, type HookContext } from '../../../sandbox/orchestrator/hooks.ts';

const failed = { host: 'my-db-mysql-0.mysql.default', port: 3306 };
const replicas = [
  { host: 'my-db-mysql-1.mysql.default', port: 3306 },
  { host: 'my-db-mysql-2.mysql.default', port: 3306 },
];

function context(over: Partial<HookContext> = {}): HookContext {
  return {
    failureType: 'DeadMaster',
    failureDescription: 'Master cannot be reached by orchestrator and none of its replicas is replicating',
    command: '',
    failed,
    clusterName: 'my-db-mysql-0.mysql.default:3306',
    clusterAlias: 'my-db.default',
    clusterDomain: 'my-db-mysql-0.mysql.default:3306',
    replicas,
    isDowntimed: false,
    autoMasterRecovery: true,
    orchestratorHost: 'mysql-operator-0',
    recoveryUID: 'uid-1',
    isSuccessful: false,
    successor: null,
    ...over,
  };
}

test('without a successor the successor placeholders stay literal and no ORC_SUCCESSOR_* is set', () => {
  const v = placeholders(context());
  const text = substitute("x 'failedHost={failedHost}' 'successorHost={successorHost}' 'replicaHosts={replicaHosts}' {notAPlaceholder}", v);
  assert.equal(
    text,
    "x 'failedHost=my-db-mysql-0.mysql.default' 'successorHost={successorHost}' 'replicaHosts=my-db-mysql-1.mysql.default:3306,my-db-mysql-2.mysql.default:3306' {notAPlaceholder}",
  );
  const env = hookEnv(v);
  assert.deepEqual(
    Object.keys(env).filter((k) => k.startsWith('ORC_SUCCESSOR')),
    [],
  );
  assert.deepEqual(
    [env.ORC_FAILED_HOST, env.ORC_FAILED_PORT, env.ORC_COUNT_REPLICAS, env.ORC_LOST_REPLICAS, env.ORC_IS_SUCCESSFUL, env.ORC_COMMAND],
    ['my-db-mysql-0.mysql.default', '3306', '2', '', 'false', ''],
  );
  assert.equal(env.ORC_FAILURE_CLUSTER_DOMAIN, 'my-db-mysql-0.mysql.default:3306');
  // The placeholders without an ORC_ variable in the recordings.
  for (const name of ['countSlaves', 'slaveHosts', 'lostSlaves', 'countLostReplicas']) assert.ok(v.has(name), name);
  assert.equal(Object.keys(env).length, 20);
});

test('after a promotion the successor is filled in, coordinates only when known', () => {
  const successor = { key: replicas[0]!, alias: 'my-db-mysql-1', binlogCoordinates: 'db12-bin.000001:919' };
  const env = hookEnv(placeholders(context({ isSuccessful: true, successor })));
  assert.deepEqual(
    [env.ORC_SUCCESSOR_HOST, env.ORC_SUCCESSOR_PORT, env.ORC_SUCCESSOR_ALIAS, env.ORC_SUCCESSOR_BINLOG_COORDINATES, env.ORC_IS_SUCCESSFUL],
    ['my-db-mysql-1.mysql.default', '3306', 'my-db-mysql-1', 'db12-bin.000001:919', 'true'],
  );
  // PreGracefulTakeover: successor known, coordinates not yet.
  const pre = placeholders(context({ successor: { ...successor, alias: '', binlogCoordinates: null } }));
  assert.equal(
    substitute('{successorHost} {successorBinlogCoordinates} [{successorAlias}]', pre),
    'my-db-mysql-1.mysql.default {successorBinlogCoordinates} []',
  );
  assert.equal(hookEnv(pre).ORC_SUCCESSOR_BINLOG_COORDINATES, undefined);
});

test('hooks run one after the other in list order; the first failing one stops the list with its exit status and stderr', async () => {
  await runHooks(['test "$ORC_FAILURE_TYPE" = DeadMaster', 'test {countReplicas} = 2'], context());
  await assert.rejects(runHooks(['echo first failing >&2; exit 3', 'echo never >&2; exit 4'], context()), {
    message: '(exit status 3) first failing\n',
  });
});
