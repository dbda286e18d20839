// The cluster's NetworkPolicy (render-network-policy.ts, planNetworkPolicy): who reaches each
// port of the MySQL pods, what spec.networkPolicy.mysqlFrom changes, that nothing is rendered
// without --network-policies, and that turning it off deletes ours only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controllerRef } from '../../../src/api/names.ts';
import { planNetworkPolicy } from '../../../src/controllers/cluster/decide-writes.ts';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { clusterRef } from '../../../src/controllers/cluster/render-cluster.ts';
import { renderNetworkPolicy, type NetworkPolicyObject } from '../../../src/controllers/cluster/render-network-policy.ts';
import { renderBackupJob } from '../../../src/controllers/backup/render-job.ts';
import { announceNarrowedMysqlPort, narrowedMysqlPortMessage } from '../../../src/controllers/cluster/decide-mysql-port-notice.ts';
import { ANCHOR_OPTIONS, anchorCluster, cluster, render, wire } from './builders.ts';

const PEERS = {
  namespace: 'mysql-operator',
  operatorPodLabels: { 'app.kubernetes.io/name': 'mysql-operator', 'app.kubernetes.io/component': 'operator' },
  orchestratorPodLabels: { 'app.kubernetes.io/name': 'mysql-operator', 'app.kubernetes.io/component': 'orchestrator' },
};
const SELECTOR = {
  'mysql.presslabs.org/cluster': 'my-db',
  'app.kubernetes.io/name': 'mysql',
  'app.kubernetes.io/managed-by': 'mysql.presslabs.org',
};
const CLUSTER_PODS = { podSelector: { matchLabels: SELECTOR } };
const OPERATOR = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'mysql-operator' } },
  podSelector: { matchLabels: PEERS.operatorPodLabels },
};
const ORCHESTRATOR = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'mysql-operator' } },
  podSelector: { matchLabels: PEERS.orchestratorPodLabels },
};
/** A podSelector alone: every pod of the policy's namespace, no other namespace. */
const SAME_NAMESPACE = { podSelector: {} };
const BACKUP_JOBS = {
  podSelector: {
    matchLabels: { 'app.kubernetes.io/managed-by': 'mysql.presslabs.org', 'app.kubernetes.io/component': 'backup', cluster: 'my-db' },
  },
};

function policy(spec: Parameters<typeof cluster>[0] = {}): NetworkPolicyObject {
  const c = cluster(spec);
  return renderNetworkPolicy(clusterRef(c), c.spec, PEERS);
}

test('the policy selects the pods by the selector labels, the anchor pods carry too, and is owned by the cluster', () => {
  const p = policy();
  assert.equal(p.metadata?.name, 'my-db-mysql');
  assert.equal(p.metadata?.namespace, 'default');
  assert.deepEqual(p.spec?.podSelector, { matchLabels: SELECTOR });
  assert.deepEqual(p.spec?.policyTypes, ['Ingress']);
  assert.equal(p.metadata?.ownerReferences?.[0]?.kind, 'MysqlCluster');
  // An adopted anchor cluster's StatefulSet selects its pods by the same labels.
  const anchorSts = render(anchorCluster()).statefulSet;
  const anchorTemplateLabels = anchorSts.spec!.template.metadata!.labels!;
  for (const [k, v] of Object.entries(
    renderNetworkPolicy(clusterRef(anchorCluster()), anchorCluster().spec, PEERS).spec!.podSelector.matchLabels!,
  )) {
    assert.equal(anchorTemplateLabels[k], v, `anchor pods carry ${k}`);
  }
});

test("without mysqlFrom, MySQL's port answers the cluster's namespace, the operator and Orchestrator only; the sidecar's the cluster's pods, the operator and its backup Jobs", () => {
  assert.deepEqual(policy().spec?.ingress, [
    { ports: [{ protocol: 'TCP', port: 3306 }], from: [CLUSTER_PODS, OPERATOR, ORCHESTRATOR, SAME_NAMESPACE] },
    { ports: [{ protocol: 'TCP', port: 8080 }], from: [CLUSTER_PODS, OPERATOR, BACKUP_JOBS] },
    { ports: [{ protocol: 'TCP', port: 9125 }] },
  ]);
});

test("mysqlFrom closes MySQL's port to all but the cluster's pods, the operator, Orchestrator and the peers it names", () => {
  const app = { namespaceSelector: { matchLabels: { team: 'shop' } }, podSelector: { matchLabels: { app: 'web' } } };
  assert.deepEqual(policy({ networkPolicy: { mysqlFrom: [app] } }).spec?.ingress?.[0], {
    ports: [{ protocol: 'TCP', port: 3306 }],
    from: [CLUSTER_PODS, OPERATOR, ORCHESTRATOR, app],
  });
  assert.deepEqual(policy({ networkPolicy: { mysqlFrom: [] } }).spec?.ingress?.[0]?.from, [CLUSTER_PODS, OPERATOR, ORCHESTRATOR]);
});

test("the user's extra containers keep their ports open, once each", () => {
  const containers = [
    { name: 'a', ports: [{ containerPort: 9000 }, { containerPort: 53, protocol: 'UDP' }] },
    { name: 'b', ports: [{ containerPort: 9000 }] },
  ];
  assert.deepEqual(policy({ podSpec: { containers } }).spec?.ingress?.[3], {
    ports: [
      { protocol: 'TCP', port: 9000 },
      { protocol: 'UDP', port: 53 },
    ],
  });
});

test('an unknown operator namespace or pod labels widen the peer, never drop it', () => {
  const c = cluster();
  const p = renderNetworkPolicy(clusterRef(c), c.spec, { namespace: '', operatorPodLabels: {}, orchestratorPodLabels: {} });
  assert.deepEqual(p.spec?.ingress?.[1]?.from?.[1], { namespaceSelector: {}, podSelector: {} });
});

test("the backup Job's pods carry the labels the policy lets in", () => {
  const c = cluster();
  const job = renderBackupJob({
    backup: { name: 'b1', namespace: 'default', uid: 'u' },
    cluster: { name: 'my-db', spec: c.spec },
    image: 'sidecar',
    imagePullPolicy: 'IfNotPresent',
    host: 'my-db-mysql-1.mysql.default',
    url: 's3://b/x',
    secretName: undefined,
    timeoutSeconds: 600,
  });
  const labels = job.spec!.template.metadata!.labels!;
  for (const [k, v] of Object.entries(BACKUP_JOBS.podSelector.matchLabels)) assert.equal(labels[k], v);
});

test('rendered only with --network-policies, from the operator flags', () => {
  assert.equal(render(cluster()).networkPolicy, undefined);
  const opts = clusterOptions({
    ...ANCHOR_OPTIONS,
    networkPolicies: true,
    operatorNamespace: PEERS.namespace,
    operatorPodLabels: PEERS.operatorPodLabels,
    orchestratorPodLabels: PEERS.orchestratorPodLabels,
  });
  assert.deepEqual(render(cluster(), opts).networkPolicy, policy());
});

test('plan: create, keep when equal as the server stores it, update a rule that lost its from, delete ours only when not wanted', () => {
  const c = cluster();
  const owner = controllerRef(clusterRef(c));
  const open = policy({ networkPolicy: { mysqlFrom: [{ ipBlock: { cidr: '0.0.0.0/0' } }] } });
  open.spec!.ingress![0] = { ports: [{ protocol: 'TCP', port: 3306 }] };
  const closed = policy({ networkPolicy: { mysqlFrom: [] } });
  assert.equal(planNetworkPolicy(open, undefined, owner).op, 'create');
  const stored = { ...wire(open), metadata: { ...wire(open).metadata, resourceVersion: '5', uid: 'np' } };
  assert.equal(planNetworkPolicy(open, stored, owner).op, 'none');
  const storedClosed = { ...wire(closed), metadata: { ...wire(closed).metadata, resourceVersion: '6' } };
  const reopen = planNetworkPolicy(open, storedClosed, owner);
  assert.equal(reopen.op, 'update');
  assert.deepEqual(reopen.op === 'update' && reopen.object.spec?.ingress?.[0], { ports: [{ protocol: 'TCP', port: 3306 }] });
  assert.equal(planNetworkPolicy(closed, stored, owner).op, 'update');
  assert.equal(planNetworkPolicy(undefined, stored, owner).op, 'delete');
  const someoneElses = { ...stored, metadata: { ...stored.metadata, ownerReferences: [] } };
  assert.equal(planNetworkPolicy(undefined, someoneElses, owner).op, 'none');
  assert.equal(planNetworkPolicy(undefined, undefined, owner).op, 'none');
});

/** The policy an operator before the narrowing wrote: MySQL's rule without `from`. */
function openPolicyOfOlderOperator(): NetworkPolicyObject {
  const p = wire(policy());
  p.spec!.ingress![0] = { ports: [{ protocol: 'TCP', port: 3306 }] };
  return { ...p, metadata: { ...p.metadata, resourceVersion: '5' } };
}

test("the narrowing is announced once on a cluster whose MySQL port was open: an older operator's policy, or none on a running cluster", () => {
  const c = cluster();
  const owner = controllerRef(clusterRef(c));
  const desired = policy();
  const older = openPolicyOfOlderOperator();
  const announce = (existing: NetworkPolicyObject | undefined, stsExists: boolean, spec = c.spec, want = desired): boolean =>
    announceNarrowedMysqlPort(want, spec, existing, stsExists, planNetworkPolicy(want, existing, owner).op);
  // Upgraded: the older policy is updated to the narrowed one.
  assert.equal(planNetworkPolicy(desired, older, owner).op, 'update');
  assert.equal(announce(older, true), true);
  // Adopted or --network-policies turned on: a running cluster gets its first policy.
  assert.equal(announce(undefined, true), true);
  // A new cluster: its policy comes with its StatefulSet; nothing ran open.
  assert.equal(announce(undefined, false), false);
  // Once written, the next pass finds it narrowed: said once.
  const stored = { ...wire(desired), metadata: { ...wire(desired).metadata, resourceVersion: '6' } };
  assert.equal(announce(stored, true), false);
  // mysqlFrom set: the user named the sources, nothing to announce; no policy wanted: neither.
  const named = cluster({ networkPolicy: { mysqlFrom: [] } });
  assert.equal(announce(older, true, named.spec, policy({ networkPolicy: { mysqlFrom: [] } })), false);
  assert.equal(announceNarrowedMysqlPort(undefined, c.spec, older, true, 'delete'), false);
  assert.match(narrowedMysqlPortMessage(clusterRef(c)), /namespace default.*spec\.networkPolicy\.mysqlFrom/);
});
