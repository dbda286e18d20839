// Built-in kinds are refused, and stored, as a real kube-apiserver v1.26 refuses and stores them:
// decoding (400: JSON types, quantities, Time/MicroTime), validation (422: the schema's required
// fields and enums, and the cross-field rules quoted from pkg/apis/*/validation). The expected
// messages are the real server's; runs unchanged against the cluster of TEST_KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeEnv } from '../../support/kube-env.ts';
import { raw } from './helpers.ts';

type Obj = Record<string, unknown>;

async function create(kc: KubeConfig, path: string, body: Obj): Promise<{ status: number; json: Obj }> {
  const r = await raw(kc, 'POST', path, { body: JSON.stringify(body) });
  return { status: r.status, json: r.json as Obj };
}

function causes(json: Obj): string[] {
  const details = (json.details ?? {}) as { causes?: { field: string; message: string }[] };
  return (details.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

const container = (resources: Obj = {}) => ({ name: 'c', image: 'registry.k8s.io/pause:3.9', resources });
const sts = (name: string, spec: Obj) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name },
  spec: {
    replicas: 0,
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [container()] } },
    ...spec,
  },
});

test('decoding refuses bad quantities and wrong JSON types with 400, before any validation', async (t) => {
  const env = await kubeEnv(t);
  const path = `/apis/apps/v1/namespaces/${env.namespace}/statefulsets`;
  const lots = sts('lots', {});
  (lots.spec.template.spec.containers[0] as Obj).resources = { requests: { memory: 'lots' } };
  const r = await create(env.kubeConfig, path, lots);
  assert.equal(r.status, 400);
  assert.equal(
    r.json.message,
    `StatefulSet in version "v1" cannot be handled as a StatefulSet: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  );
  const pvc = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'x' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1x' } } },
  };
  assert.equal((await create(env.kubeConfig, `/api/v1/namespaces/${env.namespace}/persistentvolumeclaims`, pvc)).status, 400);
  const typed = await create(env.kubeConfig, path, sts('typed', { replicas: 'three' }));
  assert.equal(typed.status, 400);
  assert.match(
    String(typed.json.message),
    /^StatefulSet in version "v1" cannot be handled as a StatefulSet: json: cannot unmarshal string into Go struct field .*spec\.replicas of type /,
  );
});

test('quantities are stored in the canonical form of resource.Quantity', async (t) => {
  const env = await kubeEnv(t);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'q' },
    spec: {
      containers: [
        container({ requests: { cpu: 0.5, memory: '1.5Gi' }, limits: { cpu: '1000m', memory: '2048Mi', 'ephemeral-storage': '100M' } }),
      ],
    },
  };
  const r = await create(env.kubeConfig, `/api/v1/namespaces/${env.namespace}/pods`, pod);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const resources = ((r.json.spec as Obj).containers as Obj[])[0]!.resources;
  // A limit without its request is requested too (SetDefaults_Pod), ephemeral-storage as well.
  assert.deepEqual(resources, {
    limits: { cpu: '1', 'ephemeral-storage': '100M', memory: '2Gi' },
    requests: { cpu: '500m', 'ephemeral-storage': '100M', memory: '1536Mi' },
  });
});

test('MicroTime needs six fractional digits; Time takes fractions and offsets and is stored in UTC seconds', async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const regarding = { kind: 'ConfigMap', apiVersion: 'v1', name: 'x', namespace: ns };
  const event = (name: string, eventTime: string) => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name },
    eventTime,
    reportingController: 'test/x',
    reportingInstance: 'i',
    action: 'Test',
    reason: 'Test',
    regarding,
    type: 'Normal',
    note: 'n',
  });
  const ms = await create(env.kubeConfig, `/apis/events.k8s.io/v1/namespaces/${ns}/events`, event('ms', '2026-11-21T10:00:00.076Z'));
  assert.equal(ms.status, 400);
  assert.equal(
    ms.json.message,
    'Event in version "v1" cannot be handled as a Event: parsing time "2026-11-21T10:00:00.076Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".076Z" as ".000000"',
  );
  const micro = await create(
    env.kubeConfig,
    `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
    event('micro', '2026-11-21T10:00:00.076000+01:00'),
  );
  assert.equal(micro.status, 201, JSON.stringify(micro.json));
  assert.equal(micro.json.eventTime, '2026-11-21T09:00:00.076000Z');
  const core = (name: string, firstTimestamp: string) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: regarding,
    reason: 'Test',
    message: 'm',
    firstTimestamp,
    type: 'Normal',
  });
  const offset = await create(env.kubeConfig, `/api/v1/namespaces/${ns}/events`, core('offset', '2026-11-21T10:00:00.5+02:00'));
  assert.equal(offset.status, 201, JSON.stringify(offset.json));
  assert.equal(offset.json.firstTimestamp, '2026-11-21T08:00:00Z');
  const words = await create(env.kubeConfig, `/api/v1/namespaces/${ns}/events`, core('words', 'yesterday'));
  assert.equal(words.status, 400);
  assert.equal(
    words.json.message,
    'Event in version "v1" cannot be handled as a Event: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  );
});

test("validation refuses what the schema and the kinds' rules refuse, with the real server's causes", async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const refused = async (path: string, body: Obj): Promise<string[]> => {
    const r = await create(env.kubeConfig, path, body);
    assert.equal(r.status, 422, JSON.stringify(r.json));
    assert.equal(r.json.reason, 'Invalid');
    return causes(r.json);
  };
  const mismatch = sts('mismatch', {});
  mismatch.spec.selector = { matchLabels: { app: 'other' } };
  assert.deepEqual(await refused(`/apis/apps/v1/namespaces/${ns}/statefulsets`, mismatch), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"mismatch"}: `selector` does not match template `labels`',
  ]);
  assert.deepEqual(
    await refused(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { minAvailable: '150%', selector: { matchLabels: { app: 'x' } } },
    }),
    ['spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%'],
  );
  const both = await refused(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'p' },
    spec: { minAvailable: 1, maxUnavailable: 1 },
  });
  assert.match(
    both[0]!,
    /^spec: Invalid value: policy\.PodDisruptionBudgetSpec\{.*\}: minAvailable and maxUnavailable cannot be both set$/,
  );
  assert.deepEqual(
    await refused(`/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: {
        ports: [
          { name: 'a', port: 70000 },
          { name: 'a', port: 80 },
        ],
      },
    }),
    [
      'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      // targetPort defaults to port before validation.
      'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.ports[1].name: Duplicate value: "a"',
    ],
  );
  assert.deepEqual(
    await refused(`/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 't' },
      type: 'kubernetes.io/tls',
      stringData: { 'tls.crt': 'x' },
    }),
    ['data[tls.key]: Required value'],
  );
  assert.deepEqual(
    await refused(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'over' },
      spec: { containers: [container({ requests: { cpu: '2' }, limits: { cpu: '1' } })] },
    }),
    ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit'],
  );
  assert.deepEqual(
    await refused(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'd' },
      spec: { resources: { requests: { storage: '1Gi' } } },
    }),
    ['spec.accessModes: Required value: at least 1 access mode is required'],
  );
  assert.deepEqual(
    await refused(`/apis/batch/v1/namespaces/${ns}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [container()] } } },
    }),
    ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
  );
  assert.deepEqual(
    await refused(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 0 },
    }),
    ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'],
  );
  assert.deepEqual(
    await refused(`/api/v1/namespaces/${ns}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'elsewhere' },
      reason: 'R',
      message: 'm',
    }),
    ['involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace'],
  );
  const noName = await refused(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'anon' },
    spec: { containers: [{ image: 'x' }] },
  });
  assert.ok(noName.includes('spec.containers[0].name: Required value'), noName.join('\n'));
});
