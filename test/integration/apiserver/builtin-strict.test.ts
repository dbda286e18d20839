// Built-in kinds as v1.26's decoder and validation treat them where the test API server used to be
// kinder: unknown fields (dropped, a Warning, or under fieldValidation=Strict a 400), the
// events.k8s.io/v1 create-only rules, and a Job's immutable fields. Raw HTTP, so the same
// requests reach the test server or (TEST_KUBECONFIG) a real cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeEnv } from '../../support/kube-env.ts';
import { raw } from './helpers.ts';
import type { Json } from '../../support/json.ts';

const json = (o: unknown) => JSON.stringify(o);
const warnings = (r: { headers: { warning?: string | string[] } }) => [r.headers.warning ?? []].flat().join(', ');

const statefulSet = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    serviceName: name,
    replicas: 0,
    foo: 1,
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'busybox', bar: 'x', resources: { requests: { memory: '1Mi' } } }] },
    },
  },
  ...extra,
});

test('unknown fields of a built-in kind: Strict refuses with 400 (a patch with 422), Warn warns, Ignore does not; none is stored', async (t) => {
  const env = await kubeEnv(t);
  const base = `/apis/apps/v1/namespaces/${env.namespace}/statefulsets`;

  const strict = await raw(env.kubeConfig, 'POST', `${base}?fieldValidation=Strict`, { body: json(statefulSet('u1')) });
  assert.equal(strict.status, 400, strict.text);
  assert.equal(strict.json.reason, 'BadRequest');
  assert.equal(
    strict.json.message,
    'StatefulSet in version "v1" cannot be handled as a StatefulSet: strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].bar"',
  );

  const warned = await raw(env.kubeConfig, 'POST', base, { body: json(statefulSet('u2')) });
  assert.equal(warned.status, 201, warned.text);
  assert.equal(warnings(warned), '299 - "unknown field \\"spec.foo\\"", 299 - "unknown field \\"spec.template.spec.containers[0].bar\\""');
  assert.equal(warned.json.spec.foo, undefined, 'the unknown field is dropped, not stored');
  assert.equal(warned.json.spec.template.spec.containers[0].bar, undefined);
  assert.deepEqual(warned.json.metadata.labels, { app: 'u2' }, 'map keys are kept');
  assert.equal(warned.json.spec.template.spec.containers[0].resources.requests.memory, '1Mi');

  const ignored = await raw(env.kubeConfig, 'POST', `${base}?fieldValidation=Ignore`, { body: json(statefulSet('u3')) });
  assert.equal(ignored.status, 201, ignored.text);
  assert.equal(warnings(ignored), '');
  assert.equal((await raw(env.kubeConfig, 'GET', `${base}/u3`)).json.spec.foo, undefined);

  const patched = await raw(env.kubeConfig, 'PATCH', `${base}/u3?fieldValidation=Strict`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { annotations: { 'example.com/a': 'b' } }, spec: { baz: true } }),
  });
  // A patch is decoded after it is applied: the error is a 422 of the field `patch` whose value is
  // the patched object (patch.go), not the 400 of a create.
  assert.equal(patched.status, 422, patched.text);
  assert.equal(patched.json.reason, 'Invalid');
  assert.deepEqual(
    patched.json.details.causes.map((c: Json) => [c.reason, c.field]),
    [['FieldValueInvalid', 'patch']],
  );
  assert.match(
    patched.json.details.causes[0].message,
    /^Invalid value: "\{.*\\"baz\\":true.*\}": strict decoding error: unknown field "spec\.baz"$/,
  );
  assert.match(patched.json.message, /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec\.baz"$/);
  assert.equal(
    (await raw(env.kubeConfig, 'GET', `${base}/u3`)).json.metadata.annotations?.['example.com/a'],
    undefined,
    'nothing of the patch is stored',
  );
  const smp = await raw(env.kubeConfig, 'PATCH', `${base}/u3?fieldValidation=Strict`, {
    contentType: 'application/strategic-merge-patch+json',
    body: json({ spec: { baz: true } }),
  });
  assert.equal(smp.status, 422, smp.text);
  assert.deepEqual(
    smp.json.details.causes.map((c: Json) => [c.field, c.message]),
    [['patch', 'Invalid value: "map[spec:map[baz:true]]": strict decoding error: unknown field "spec.baz"']],
  );
});

test('events.k8s.io/v1 refuses at create what core/v1 still takes from old clients', async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const regarding = { kind: 'ConfigMap', apiVersion: 'v1', name: 'x', namespace: ns };
  const bad = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'v1-bad' },
    eventTime: '2026-11-21T10:00:00.000000Z',
    reportingController: 'example.com/test',
    reportingInstance: 'i',
    action: 'Test',
    reason: 'Test',
    regarding,
    type: 'Info',
    series: { count: 1, lastObservedTime: '2026-11-21T10:00:01.000000Z' },
    deprecatedCount: 3,
    deprecatedSource: { component: 'c' },
    deprecatedFirstTimestamp: '2026-11-21T10:00:00Z',
  };
  const refused = await raw(env.kubeConfig, 'POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, { body: json(bad) });
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(
    refused.json.details.causes.map((c: Json) => [c.field, c.message]),
    [
      ['series.count', 'Invalid value: "": should be at least 2'],
      ['type', 'Invalid value: "": has invalid value: Info'],
      ['firstTimestamp', 'Invalid value: "": needs to be unset'],
      ['count', 'Invalid value: "": needs to be unset'],
      ['source', 'Invalid value: "": needs to be unset'],
    ],
  );
  const untimed = await raw(env.kubeConfig, 'POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
    body: json({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'v1-untimed' },
      reason: 'Test',
      regarding,
      type: 'Normal',
    }),
  });
  assert.equal(untimed.status, 422, untimed.text);
  assert.deepEqual(
    untimed.json.details.causes.map((c: Json) => [c.field, c.message]),
    [['eventTime', 'Required value']],
  );

  const legacy = await raw(env.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/events`, {
    body: json({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'legacy' },
      involvedObject: regarding,
      reason: 'Test',
      type: 'Info',
      count: 3,
      source: { component: 'c' },
    }),
  });
  assert.equal(legacy.status, 201, legacy.text);
});

test('a Job keeps its completions, completionMode, selector and pod template (a suspended one its containers)', async (t) => {
  const env = await kubeEnv(t);
  const base = `/apis/batch/v1/namespaces/${env.namespace}/jobs`;
  const body = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j1' },
    spec: {
      suspend: true,
      completions: 2,
      parallelism: 1,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
  assert.equal((await raw(env.kubeConfig, 'POST', base, { body: json(body) })).status, 201);
  const patch = (spec: Record<string, unknown>) =>
    raw(env.kubeConfig, 'PATCH', `${base}/j1`, { contentType: 'application/merge-patch+json', body: json({ spec }) });
  const causes = (r: { json: Json }) => r.json.details.causes.map((c: Json) => [c.field, c.message]);

  const completions = await patch({ completions: 3 });
  assert.equal(completions.status, 422, completions.text);
  assert.deepEqual(causes(completions), [['spec.completions', 'Invalid value: 3: field is immutable']]);
  const mode = await patch({ completionMode: 'Indexed' });
  assert.equal(mode.status, 422, mode.text);
  assert.deepEqual(causes(mode), [['spec.completionMode', 'Invalid value: "Indexed": field is immutable']]);
  const image = await patch({ template: { spec: { containers: [{ name: 'c', image: 'alpine' }] } } });
  assert.equal(image.status, 422, image.text);
  assert.deepEqual(
    causes(image).map(([f]: string[]) => f),
    ['spec.template'],
  );
  assert.match(causes(image)[0][1], /^Invalid value: .*: field is immutable$/);

  const allowed = await patch({ parallelism: 2, suspend: false, activeDeadlineSeconds: 600 });
  assert.equal(allowed.status, 200, allowed.text);
  assert.equal(allowed.json.spec.parallelism, 2);
});
