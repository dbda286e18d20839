// What a stock kube-apiserver v1.26 adds to new objects beyond the schema defaults: the admission
// plugins it enables by default (Priority, DefaultTolerationSeconds, StorageObjectInUseProtection),
// the Job and Service registries, and the zero fields of core Events. Raw HTTP, so the same requests
// reach the test server or (TEST_KUBECONFIG) a real cluster. The recorded fixtures ran without
// those plugins (their README): there pods have no priority or tolerations, and that is why the
// fixture replay starts the test server with `stockAdmission: false`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';
import { raw } from './helpers.ts';
import type { Json } from '../../support/json.ts';

const json = (o: unknown) => JSON.stringify(o);
const pod = (name: string, spec: Record<string, unknown> = {}) =>
  json({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox:1.36' }], ...spec },
  });
const owned = (o: Json) => JSON.stringify(o.metadata.managedFields);

test('a new pod gets priority 0, PreemptLowerPriority and the two 300 s tolerations, owned by no manager', async (t) => {
  const env = await kubeEnv(t);
  const base = `/api/v1/namespaces/${env.namespace}/pods`;
  const created = await raw(env.kubeConfig, 'POST', base, { body: pod('p1') });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.spec.priority, 0);
  assert.equal(created.json.spec.preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(created.json.spec.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ]);
  for (const f of ['f:priority', 'f:preemptionPolicy', 'f:tolerations']) assert.ok(!owned(created.json).includes(f), `${f} is not owned`);

  const ownToleration = { key: 'node.kubernetes.io/not-ready', operator: 'Exists' };
  const tolerating = await raw(env.kubeConfig, 'POST', base, { body: pod('p2', { tolerations: [ownToleration] }) });
  assert.equal(tolerating.status, 201, tolerating.text);
  assert.deepEqual(
    tolerating.json.spec.tolerations.map((x: Json) => x.key),
    ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'],
    'a pod tolerating not-ready gets only unreachable',
  );

  // plugin/pkg/admission/priority/admission.go
  const priority = await raw(env.kubeConfig, 'POST', base, { body: pod('p3', { priority: 5 }) });
  assert.equal(priority.status, 403, priority.text);
  assert.equal(
    priority.json.message,
    'pods "p3" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
  );
  const noClass = await raw(env.kubeConfig, 'POST', base, { body: pod('p4', { priorityClassName: 'no-such-class' }) });
  assert.equal(noClass.status, 403, noClass.text);
  assert.equal(noClass.json.message, 'pods "p4" is forbidden: no PriorityClass with name no-such-class was found');
  const critical = await raw(env.kubeConfig, 'POST', base, { body: pod('p5', { priorityClassName: 'system-cluster-critical' }) });
  assert.equal(critical.status, 201, critical.text);
  assert.equal(critical.json.spec.priority, 2000000000);
});

test('a PVC gets the protection finalizer and goes once no scheduled pod uses it', async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const claims = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  // A name no StatefulSet controller owns.
  const claim = json({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'protected' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const created = await raw(env.kubeConfig, 'POST', claims, { body: claim });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  assert.ok(!owned(created.json).includes('f:finalizers'), 'the finalizer is owned by no manager');

  const pods = `/api/v1/namespaces/${ns}/pods`;
  const user = await raw(env.kubeConfig, 'POST', pods, {
    body: pod('user', { nodeName: 'no-such-node', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'protected' } }] }),
  });
  assert.equal(user.status, 201, user.text);
  const deleting = await raw(env.kubeConfig, 'DELETE', `${claims}/protected`);
  assert.equal(deleting.status, 200, deleting.text);
  assert.ok(deleting.json.metadata.deletionTimestamp, 'the claim waits for its user');
  const held = await raw(env.kubeConfig, 'GET', `${claims}/protected`);
  assert.equal(held.status, 200, 'still there while a scheduled pod uses it');
  assert.equal((await raw(env.kubeConfig, 'DELETE', `${pods}/user`, { body: json({ gracePeriodSeconds: 0 }) })).status, 200);
  await eventually('the claim to go', async () => (await raw(env.kubeConfig, 'GET', `${claims}/protected`)).status === 404 || undefined);
});

test('a Job gets its generated selector, template labels and tracking annotation (v1.26)', async (t) => {
  const env = await kubeEnv(t);
  const body = json({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j1' },
    spec: {
      suspend: true,
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] },
      },
    },
  });
  const r = await raw(env.kubeConfig, 'POST', `/apis/batch/v1/namespaces/${env.namespace}/jobs`, { body });
  assert.equal(r.status, 201, r.text);
  const uid = r.json.metadata.uid;
  assert.equal(r.json.metadata.annotations['batch.kubernetes.io/job-tracking'], '');
  assert.deepEqual(r.json.spec.selector, { matchLabels: { 'controller-uid': uid } });
  // v1.27 added batch.kubernetes.io/controller-uid and batch.kubernetes.io/job-name; v1.26 has these.
  assert.deepEqual(r.json.spec.template.metadata.labels, { app: 'x', 'controller-uid': uid, 'job-name': 'j1' });
  for (const f of ['f:selector', 'f:controller-uid', 'f:job-tracking']) assert.ok(!owned(r.json).includes(f), `${f} is not owned`);
});

test('NodePort and LoadBalancer Services get node ports and the external traffic policy', async (t) => {
  const env = await kubeEnv(t);
  const base = `/api/v1/namespaces/${env.namespace}/services`;
  const svc = (name: string, type: string) =>
    json({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { type, selector: { app: name }, ports: [{ name: 'mysql', port: 3306 }] },
    });
  const np = await raw(env.kubeConfig, 'POST', base, { body: svc('np', 'NodePort') });
  assert.equal(np.status, 201, np.text);
  const port = np.json.spec.ports[0].nodePort;
  assert.ok(Number.isInteger(port) && port >= 30000 && port <= 32767, `nodePort ${port} in the default range`);
  assert.deepEqual(Object.keys(np.json.spec.ports[0]), ['name', 'protocol', 'port', 'targetPort', 'nodePort']);
  assert.equal(np.json.spec.externalTrafficPolicy, 'Cluster');
  assert.equal(np.json.spec.internalTrafficPolicy, 'Cluster');
  assert.equal(np.json.spec.sessionAffinity, 'None');
  assert.deepEqual(np.json.spec.ipFamilies, ['IPv4']);
  assert.equal(np.json.spec.ipFamilyPolicy, 'SingleStack');
  assert.ok(!owned(np.json).includes('f:nodePort'), 'the allocated port is owned by no manager');
  const relabelled = await raw(env.kubeConfig, 'PATCH', `${base}/np`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { labels: { a: 'b' } } }),
  });
  assert.equal(relabelled.json.spec.ports[0].nodePort, port, 'an update keeps the port');

  const lb = await raw(env.kubeConfig, 'POST', base, { body: svc('lb', 'LoadBalancer') });
  assert.equal(lb.status, 201, lb.text);
  assert.ok(lb.json.spec.ports[0].nodePort >= 30000);
  assert.equal(lb.json.spec.allocateLoadBalancerNodePorts, true);
  assert.equal(lb.json.spec.externalTrafficPolicy, 'Cluster');
});

test('core Events: absent fields answer as Go encodes them; Events with eventTime have limits, never truncation', async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const base = `/api/v1/namespaces/${ns}/events`;
  const bare = await raw(env.kubeConfig, 'POST', base, {
    body: json({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { namespace: ns }, reason: 'R' }),
  });
  assert.equal(bare.status, 201, bare.text);
  const { metadata: _m, ...fields } = bare.json;
  assert.deepEqual(fields, {
    kind: 'Event',
    apiVersion: 'v1',
    involvedObject: { namespace: ns },
    reason: 'R',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
  });
  const view = await raw(env.kubeConfig, 'GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events/e1`);
  const { metadata: _v, ...viewFields } = view.json;
  assert.deepEqual(viewFields, {
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    eventTime: null,
    reason: 'R',
    regarding: { namespace: ns },
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  });

  // Without eventTime the server takes any message length (client-go's recorder truncates, not the server).
  const long = 'x'.repeat(5000);
  const legacy = await raw(env.kubeConfig, 'POST', base, {
    body: json({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e2' }, involvedObject: { namespace: ns }, message: long }),
  });
  assert.equal(legacy.status, 201, legacy.text);
  assert.equal(legacy.json.message, long);

  // pkg/apis/core/validation/events.go: legacyValidateEvent, for an Event with eventTime; through
  // core/v1 the reporting controller's field is named `reportingComponent`, and an empty name
  // fails both the length and the format of a qualified name.
  const timed = await raw(env.kubeConfig, 'POST', base, {
    body: json({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e3' },
      involvedObject: { namespace: ns },
      eventTime: '2026-11-21T19:45:00.000000Z',
      message: long,
    }),
  });
  assert.equal(timed.status, 422, timed.text);
  assert.deepEqual(timed.json.details.causes, [
    { reason: 'FieldValueRequired', message: 'Required value', field: 'reportingComponent' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: "": name part must be non-empty', field: 'reportingComponent' },
    {
      reason: 'FieldValueInvalid',
      message:
        "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      field: 'reportingComponent',
    },
    { reason: 'FieldValueRequired', message: 'Required value', field: 'reportingInstance' },
    { reason: 'FieldValueRequired', message: 'Required value', field: 'action' },
    { reason: 'FieldValueRequired', message: 'Required value', field: 'reason' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: "": can have at most 1024 characters', field: 'message' },
  ]);
});
