// Issue 21, "two masters impossible": before a pod is labelled role=master, the pods the API server
// (not the pod cache) lists with role=master lose the label, and every label patch carries the
// resourceVersion it was decided on. Against the test API server (or TEST_KUBECONFIG): the
// decision is made on a snapshot of the pods that is stale, as a lagging cache would be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL_CLUSTER, LABEL_ROLE } from '../../../src/api/constants.ts';
import type { LabelPatch } from '../../../src/controllers/orchestrator-controller/decide-labels.ts';
import { applyLabelRounds, patchPodLabels } from '../../../src/controllers/orchestrator-controller/pod-labels.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { isConflict } from '../../../src/runtime/kube/errors.ts';
import type { PodObject } from '../../../src/topology/index.ts';
import { kubeEnv } from '../../support/kube-env.ts';

const CLUSTER = 'my-db';
const pod = (i: number) => `${CLUSTER}-mysql-${i}`;

async function setup(t: import('node:test').TestContext) {
  const kube = await kubeEnv(t);
  const client = new KubeClient(kube.kubeConfig);
  t.after(() => client.close());
  const ns = kube.namespace;
  for (let i = 0; i < 3; i++) {
    await client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod(i), namespace: ns, labels: { [LABEL_CLUSTER]: CLUSTER, [LABEL_ROLE]: 'replica', healthy: 'yes' } },
      spec: { schedulerName: 'no-scheduler-runs-this', containers: [{ name: 'mysql', image: 'mariadb:10.11' }] },
    } as never);
  }
  const snapshot = async (): Promise<PodObject[]> =>
    (await client.list<PodObject>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: ns, labelSelector: { [LABEL_CLUSTER]: CLUSTER } })).items;
  const masters = async (): Promise<string[]> =>
    (await snapshot())
      .filter((p) => p.metadata?.labels?.[LABEL_ROLE] === 'master')
      .map((p) => p.metadata?.name ?? '')
      .sort();
  return { client, ns, snapshot, masters };
}

test('a promotion decided on a stale view demotes the master the API server shows first, never two role=master', async (t) => {
  const { client, ns, snapshot, masters } = await setup(t);
  const decidedOn = await snapshot();
  // After the snapshot (a cache that has not seen it yet): pod 0 carries role=master.
  await patchPodLabels({ client }, ns, { pod: pod(0), labels: { role: 'master', healthy: 'yes' } });

  const seen: string[][] = [];
  const promotion: LabelPatch[] = [{ pod: pod(1), labels: { role: 'master', healthy: 'yes' } }];
  const demoted = await applyLabelRounds(client, ns, CLUSTER, promotion, decidedOn, async (p) => {
    await patchPodLabels({ client }, ns, p);
    seen.push(await masters());
  });

  assert.deepEqual(demoted, [pod(0)]);
  assert.deepEqual(seen, [[], [pod(1)]], 'pod 0 loses role=master before pod 1 gets it');
  assert.deepEqual(await masters(), [pod(1)]);
});

test('a label patch on a pod changed since the decision is refused (409), not applied over it', async (t) => {
  const { client, ns, snapshot, masters } = await setup(t);
  const decidedOn = await snapshot();
  // pod 2's labels change after the decision (another pass, or a lost label move).
  await client.patch(
    { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod(2) },
    { metadata: { labels: { healthy: 'unknown' } } },
    { type: 'merge' },
  );

  const patches: LabelPatch[] = [{ pod: pod(2), labels: { role: 'replica', healthy: 'no' } }];
  await assert.rejects(
    applyLabelRounds(client, ns, CLUSTER, patches, decidedOn, (p) => patchPodLabels({ client }, ns, p).then(() => undefined)),
    isConflict,
  );
  const live = (await snapshot()).find((p) => p.metadata?.name === pod(2));
  assert.equal(live?.metadata?.labels?.healthy, 'unknown');
  assert.deepEqual(await masters(), []);
});

test('a pod whose status alone changed since the decision (the kubelet) is labelled all the same, on its live version', async (t) => {
  const { client, ns, snapshot, masters } = await setup(t);
  const decidedOn = await snapshot();
  // The kubelet's write between the decision and the patch: the status moves, the labels do not.
  await client.patchStatus(
    { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod(1) },
    { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } },
  );
  const conflicts: number[] = [];
  const promotion: LabelPatch[] = [{ pod: pod(1), labels: { role: 'master', healthy: 'yes' } }];
  await applyLabelRounds(client, ns, CLUSTER, promotion, decidedOn, async (p) => {
    try {
      await patchPodLabels({ client }, ns, p);
    } catch (e) {
      if (isConflict(e)) conflicts.push(1);
      throw e;
    }
  });
  assert.equal(conflicts.length, 1, 'the first patch, on the version decided on, was refused');
  assert.deepEqual(await masters(), [pod(1)]);
});

test('a pod deleted and made again since the decision is not labelled (its uid changed)', async (t) => {
  const { client, ns, snapshot, masters } = await setup(t);
  const decidedOn = await snapshot();
  await client.delete({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod(1) });
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod(1), namespace: ns, labels: { [LABEL_CLUSTER]: CLUSTER, [LABEL_ROLE]: 'replica', healthy: 'yes' } },
    spec: { schedulerName: 'no-scheduler-runs-this', containers: [{ name: 'mysql', image: 'mariadb:10.11' }] },
  } as never);
  const promotion: LabelPatch[] = [{ pod: pod(1), labels: { role: 'master', healthy: 'yes' } }];
  await assert.rejects(
    applyLabelRounds(client, ns, CLUSTER, promotion, decidedOn, (p) => patchPodLabels({ client }, ns, p).then(() => undefined)),
    isConflict,
  );
  assert.deepEqual(await masters(), []);
});
