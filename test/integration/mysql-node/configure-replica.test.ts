// Issue 6 acceptance: the node controller against the test API server and real MariaDB servers
// standing in for the pods (flavour: MariaDB 10.11, GTID slave_pos).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER, nodeCluster, podName, waitSameData } from './node-cluster.ts';
import type { PodObject } from '../../../src/topology/index.ts';
import { verifiedSinceStart } from '../../../src/controllers/mysql-node/decide-condition.ts';
import { eventually } from '../../support/wait.ts';

test('a new replica pod becomes configured, replicates from pod 0, and its condition says so', async (t) => {
  const c = await nodeCluster(t, 2);
  const op = await c.bootstrap();

  const master = await c.waitCondition(0, 'True');
  assert.equal(master.reason, 'mysqlInitializationSucceeded');
  const replica = await c.waitCondition(1, 'True');
  assert.equal(replica.reason, 'mysqlInitializationSucceeded');

  const [m, r] = [c.servers[0]!, c.servers[1]!];
  const rs = await (await c.root(1)).replicationStatus();
  assert.equal(rs?.masterHost, m.host);
  assert.equal(rs?.ioRunning && rs.sqlRunning, true);
  assert.equal(await (await c.root(1)).isReadOnly(), true);
  assert.equal(await (await c.root(1)).isConfigured(), true);
  // The master pod is configured without CHANGE MASTER and its read_only is not this controller's.
  assert.equal(await (await c.root(0)).replicationStatus(), null);

  await m.sql('SET GLOBAL read_only = 0');
  await m.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO app.t VALUES (1, "a"), (2, "b")');
  await waitSameData(m, r, 'app.t');
  assert.ok(!op.output().includes('repl-secret-1') && !op.output().includes('op-secret-1'), 'no password in the logs');
  assert.match(op.output(), new RegExp(`"pod":"${podName(1)}".*"step":"markConfigured"`));

  const log = c.kube.server?.requestLog;
  await t.test(
    'steady state: resyncs read the servers and write nothing',
    { skip: log ? false : "needs the test API server's request log: a real cluster does not list the requests it received" },
    async () => {
      // A node checked in the very second its container started is checked and stamped once more
      // (docs/node-controller.md): the window starts once every pod's last check counts.
      const pods = [0, 1].map(podName);
      await eventually('every node verified after its container started', async () => {
        for (const name of pods) {
          const pod = await c.client.get<PodObject>({ apiVersion: 'v1', kind: 'Pod', namespace: c.ns, name });
          if (!verifiedSinceStart(pod)) return false;
        }
        return true;
      });
      const mark = log!.mark();
      // Three finished resyncs (every 2 s here) of each pod: at least two ran wholly inside the window.
      await op.reconciles.settled(
        pods.map((p) => `${c.ns}/${p}`),
        op.reconciles.mark(),
        3,
      );
      assert.deepEqual(
        log!
          .writes(mark)
          .filter((e) => e.namespace === c.ns)
          .map((e) => `${e.verb} ${e.resource}/${e.name}`),
        [],
      );
    },
  );
});

test('nothing is configured while the cluster has FailoverInProgress=True; once it clears, the pod is configured', async (t) => {
  const c = await nodeCluster(t, 2);
  await c.createCluster(2);
  const clusterRef = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: c.ns, name: CLUSTER };
  const failover = (status: 'True' | 'False', reason: string) => ({
    status: {
      conditions: [
        {
          type: 'FailoverInProgress',
          status,
          reason,
          message: 'recovery of my-db.test',
          lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      ],
    },
  });
  await c.client.patchStatus(clusterRef, failover('True', 'OrcFailoverInProgress'));
  await c.createOperatedSecret();
  await c.createPod(0);
  await c.createPod(1);
  const op = c.startOperator();
  t.after(() => op.stop());

  const cond = await c.waitCondition(1, 'False', /^FailoverInProgress: .*recovery of my-db.test/);
  assert.equal(cond.reason, 'mysqlInitializationFailed');
  assert.equal(await (await c.root(1)).replicationStatus(), null, 'not touched during the failover');

  await c.client.patchStatus(clusterRef, failover('False', 'ClusterMasterHealthy'));
  await c.waitCondition(1, 'True');
  assert.equal((await (await c.root(1)).replicationStatus())?.masterHost, c.servers[0]!.host);
});
