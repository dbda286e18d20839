// A pass that wrote the pod's condition ends only once the pod cache shows the write, so a pass
// queued meanwhile (here: a cluster change) does not decide on the pod from before it and write the
// condition, with its Event, a second time. The test API server delivers pod watch events late
// (Faults.delayWatchEvents), as a lagging cache under load does. Flavour: MariaDB 10.11.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeCluster, podName, CLUSTER } from './node-cluster.ts';
import type { PodObject } from '../../../src/topology/index.ts';
import { verifiedSinceStart } from '../../../src/controllers/mysql-node/decide-condition.ts';
import { eventually } from '../../support/wait.ts';

const SKIP = process.env.TEST_KUBECONFIG ? "needs the test API server's fault injection (late watch events) and request log" : false;
/**
 * Under CACHE_CATCH_UP_MS (2 s), so the pass sees its write arrive and ends; over 1 s, so the
 * queued pass can start in a later second than the stamp (in the same second the condition would
 * be the same, and a stale pass wrote nothing even before the fix).
 */
const POD_EVENTS_LATE_MS = 1500;

test('a restarted node is re-checked and stamped once, even when its pod cache lags behind the write', { skip: SKIP }, async (t) => {
  const c = await nodeCluster(t, 2);
  const op = await c.bootstrap();
  const server = c.kube.server!;
  const pod1 = podName(1);
  await eventually('pod 1 verified after its container started', async () =>
    verifiedSinceStart(await c.client.get<PodObject>({ apiVersion: 'v1', kind: 'Pod', namespace: c.ns, name: pod1 })),
  );

  server.faults.delayWatchEvents('pods', POD_EVENTS_LATE_MS);
  t.after(() => server.faults.delayWatchEvents('pods', 0));
  // A mysqld restart as the kubelet reports it: the node is re-checked and stamped again.
  await c.markStarted(1);
  const mark = server.requestLog.mark();
  const stamps = () =>
    server.requestLog.filter({ verb: 'patch', resource: 'pods', subresource: 'status', namespace: c.ns, name: pod1 }, mark);
  const stamp = await eventually('the operator to stamp the re-checked node', () => stamps()[0]);
  await eventually('a second later than the stamp', () => Math.floor(Date.now() / 1000) > Math.floor(stamp.time / 1000));

  // While the stamp's watch event is still on its way, a cluster change queues the pod again.
  const passes = op.reconciles.mark();
  await c.client.patch(
    { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: c.ns, name: CLUSTER },
    { metadata: { annotations: { 'test.example/touched': String(Date.now()) } } },
    { type: 'merge' },
  );
  // Two finished passes of the pod after the mark: at least the second began after the change.
  await op.reconciles.settled([`${c.ns}/${pod1}`], passes, 2);

  assert.equal(stamps().length, 1, 'the condition is written once');
  const events = server.requestLog.writes(mark).filter((e) => e.namespace === c.ns && e.resource === 'events');
  assert.equal(events.length, 1, 'one NodeConfigured Event');
});
