// What a real kube-apiserver v1.26 refuses or answers that a kinder stand-in would get wrong:
// metadata rules, dry runs, request options and media types, DELETE answers, and the watch
// cache's DELETED event for an object leaving a selector. Raw HTTP, so the same requests reach the
// test server or (TEST_KUBECONFIG) a real cluster; messages are quoted from the v1.26 sources
// named in docs/test-apiserver.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeEnv } from '../../support/kube-env.ts';
import { cluster, raw, rawWatchLines } from './helpers.ts';
import type { Json } from '../../support/json.ts';

const json = (o: unknown) => JSON.stringify(o);
const cm = (name: string, metadata: Record<string, unknown> = {}) =>
  json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data: { a: '1' } });

function assertStatus(r: { status: number; json: Json }, code: number, reason: string | undefined, message: string | RegExp): void {
  assert.equal(r.status, code, JSON.stringify(r.json));
  assert.equal(r.json.kind, 'Status');
  assert.equal(r.json.reason, reason);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else assert.match(r.json.message, message);
}

test('metadata: finalizer names, no new finalizer while deleting, owner references', async (t) => {
  const env = await kubeEnv(t);
  const base = `/api/v1/namespaces/${env.namespace}/configmaps`;
  const badFinalizer = await raw(env.kubeConfig, 'POST', base, { body: cm('f1', { finalizers: ['bad finalizer!'] }) });
  // A built-in kind's finalizer without a domain must also be a standard one (pkg/apis/core's extra rule).
  assertStatus(
    badFinalizer,
    422,
    'Invalid',
    `ConfigMap "f1" is invalid: [metadata.finalizers: Invalid value: "bad finalizer!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), metadata.finalizers[0]: Invalid value: "bad finalizer!": name is neither a standard finalizer name nor is it fully qualified]`,
  );
  assert.deepEqual(
    badFinalizer.json.details.causes.map((c: Json) => [c.reason, c.field]),
    [
      ['FieldValueInvalid', 'metadata.finalizers'],
      ['FieldValueInvalid', 'metadata.finalizers[0]'],
    ],
  );
  const bare = await raw(env.kubeConfig, 'POST', base, { body: cm('f0', { finalizers: ['orphan', 'hold'] }) });
  assertStatus(
    bare,
    422,
    'Invalid',
    'ConfigMap "f0" is invalid: metadata.finalizers[1]: Invalid value: "hold": name is neither a standard finalizer name nor is it fully qualified',
  );

  const held = await raw(env.kubeConfig, 'POST', base, { body: cm('f2', { finalizers: ['example.com/hold'] }) });
  assert.equal(held.status, 201);
  assert.equal((await raw(env.kubeConfig, 'DELETE', `${base}/f2`)).status, 200);
  const added = await raw(env.kubeConfig, 'PATCH', `${base}/f2`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { finalizers: ['example.com/hold', 'example.com/more'] } }),
  });
  assertStatus(
    added,
    422,
    'Invalid',
    'ConfigMap "f2" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
  );
  const released = await raw(env.kubeConfig, 'PATCH', `${base}/f2`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { finalizers: null } }),
  });
  assert.equal(released.status, 200);

  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '6a1e0f2c-0000-4000-8000-000000000001' };
  const noUid = await raw(env.kubeConfig, 'POST', base, { body: cm('o1', { ownerReferences: [{ ...ref, uid: '' }] }) });
  assertStatus(noUid, 422, 'Invalid', 'ConfigMap "o1" is invalid: metadata.ownerReferences.uid: Invalid value: "": uid must not be empty');
  const twoControllers = await raw(env.kubeConfig, 'POST', base, {
    body: cm('o2', {
      ownerReferences: [
        { ...ref, controller: true },
        { ...ref, name: 'other', uid: '6a1e0f2c-0000-4000-8000-000000000002', controller: true },
      ],
    }),
  });
  assertStatus(
    twoControllers,
    422,
    'Invalid',
    /^ConfigMap "o2" is invalid: metadata\.ownerReferences: Invalid value: \[\]v1\.OwnerReference\{.*\}: Only one reference can have Controller set to true\. Found "true" in references for ConfigMap\/owner and ConfigMap\/other$/,
  );
});

test('dryRun=All answers as a write would and stores nothing; other dryRun values are refused', async (t) => {
  const env = await kubeEnv(t);
  const base = `/api/v1/namespaces/${env.namespace}/configmaps`;
  const created = await raw(env.kubeConfig, 'POST', `${base}?dryRun=All`, { body: cm('d1') });
  assert.equal(created.status, 201);
  assert.equal(created.json.metadata.name, 'd1');
  assert.ok(created.json.metadata.uid, 'a dry-run create has a uid');
  assert.equal(created.json.metadata.resourceVersion, undefined, 'and no resourceVersion');
  assert.equal((await raw(env.kubeConfig, 'GET', `${base}/d1`)).status, 404);

  assert.equal((await raw(env.kubeConfig, 'POST', base, { body: cm('d2') })).status, 201);
  const patched = await raw(env.kubeConfig, 'PATCH', `${base}/d2?dryRun=All`, {
    contentType: 'application/merge-patch+json',
    body: json({ data: { a: '2' } }),
  });
  assert.equal(patched.status, 200);
  assert.equal(patched.json.data.a, '2');
  assert.equal((await raw(env.kubeConfig, 'GET', `${base}/d2`)).json.data.a, '1');

  const deleted = await raw(env.kubeConfig, 'DELETE', `${base}/d2?dryRun=All`);
  assert.equal(deleted.status, 200);
  assert.equal(deleted.json.kind, 'Status');
  assert.equal(deleted.json.status, 'Success');
  assert.equal((await raw(env.kubeConfig, 'GET', `${base}/d2`)).status, 200, 'a dry-run DELETE keeps the object');

  assert.equal((await raw(env.kubeConfig, 'POST', base, { body: cm('d3', { finalizers: ['example.com/hold'] }) })).status, 201);
  const held = await raw(env.kubeConfig, 'DELETE', `${base}/d3`, {
    body: json({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }),
  });
  assert.equal(held.status, 200);
  assert.equal(held.json.kind, 'ConfigMap', 'a dry-run DELETE of a held object answers the object');
  assert.ok(held.json.metadata.deletionTimestamp);
  const after = await raw(env.kubeConfig, 'GET', `${base}/d3`);
  assert.equal(after.json.metadata.deletionTimestamp, undefined, 'nothing was stored');
  await raw(env.kubeConfig, 'PATCH', `${base}/d3`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { finalizers: null } }),
  });

  const unsupported = await raw(env.kubeConfig, 'POST', `${base}?dryRun=true`, { body: cm('d4') });
  assertStatus(
    unsupported,
    422,
    'Invalid',
    'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"true"}: supported values: "All"',
  );
  assert.deepEqual(unsupported.json.details, {
    group: 'meta.k8s.io',
    kind: 'CreateOptions',
    causes: [
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"true"}: supported values: "All"', field: 'dryRun' },
    ],
  });
  assert.equal((await raw(env.kubeConfig, 'GET', `${base}/d4`)).status, 404, 'an unsupported dryRun stores nothing');
});

test('request protocol: media types, methods, resourceVersions, kind mismatch, fieldManager, duplicate fields', async (t) => {
  const env = await kubeEnv(t);
  const base = `/api/v1/namespaces/${env.namespace}/configmaps`;
  const plain = await raw(env.kubeConfig, 'POST', base, { contentType: 'text/plain', body: 'name=x' });
  assertStatus(
    plain,
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
  const yaml = await raw(env.kubeConfig, 'POST', base, {
    contentType: 'application/yaml',
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  a: "1"\n',
  });
  assert.equal(yaml.status, 201);

  assertStatus(
    await raw(env.kubeConfig, 'PUT', base, { body: cm('y1') }),
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );

  const badWatch = await raw(env.kubeConfig, 'GET', `${base}?watch=1&resourceVersion=abc`);
  // Through the watch cache (on in a real v1.26), a watch fails like a get: a storage error, 500.
  assertStatus(badWatch, 500, undefined, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  const badGet = await raw(env.kubeConfig, 'GET', `${base}/y1?resourceVersion=abc`);
  assertStatus(badGet, 500, undefined, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  const badPage = await raw(env.kubeConfig, 'GET', `${base}?limit=1&resourceVersion=abc`);
  assertStatus(
    badPage,
    400,
    'BadRequest',
    'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
  );
  const badMatch = await raw(env.kubeConfig, 'GET', `${base}?resourceVersionMatch=Exact`);
  assertStatus(
    badMatch,
    422,
    'Invalid',
    'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
  );

  const kind = await raw(env.kubeConfig, 'POST', base, { body: json({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k1' } }) });
  assertStatus(
    kind,
    400,
    'BadRequest',
    'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
  );

  const apply = await raw(env.kubeConfig, 'PATCH', `${base}/a1`, { contentType: 'application/apply-patch+yaml', body: cm('a1') });
  assertStatus(apply, 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const long = await raw(env.kubeConfig, 'POST', `${base}?fieldManager=${'m'.repeat(129)}`, { body: cm('a2') });
  assertStatus(long, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes');
  const force = await raw(env.kubeConfig, 'PATCH', `${base}/y1?force=true`, { contentType: 'application/merge-patch+json', body: '{}' });
  assertStatus(force, 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');

  const twice = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup1","labels":{"a":"1","a":"2"}},"data":{"k":"1"}}';
  const strict = await raw(env.kubeConfig, 'POST', `${base}?fieldValidation=Strict`, { body: twice });
  assertStatus(
    strict,
    400,
    'BadRequest',
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.labels.a"',
  );
  const warned = await raw(env.kubeConfig, 'POST', base, { body: twice });
  assert.equal(warned.status, 201);
  assert.equal(warned.json.metadata.labels.a, '2', 'the last value wins');
  assert.equal(warned.headers.warning, '299 - "duplicate field \\"metadata.labels.a\\""');
});

test('DELETE answers: a Status for most built-ins, the object for pods, DeleteOptions from the body or the query', async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal((await raw(env.kubeConfig, 'POST', base, { body: cm('x1') })).status, 201);
  const gone = await raw(env.kubeConfig, 'DELETE', `${base}/x1`);
  assert.equal(gone.status, 200);
  assert.deepEqual(Object.keys(gone.json), ['kind', 'apiVersion', 'metadata', 'status', 'details']);
  assert.equal(gone.json.details.kind, 'configmaps');

  // A name no StatefulSet owns, and no node: nothing else acts on this pod.
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'strict-lone-pod' },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
  assert.equal((await raw(env.kubeConfig, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: json(pod) })).status, 201);
  const podGone = await raw(env.kubeConfig, 'DELETE', `/api/v1/namespaces/${ns}/pods/strict-lone-pod?gracePeriodSeconds=0`);
  assert.equal(podGone.status, 200);
  assert.equal(podGone.json.kind, 'Pod', 'the pod registry returns the deleted object');

  const bogus = await raw(env.kubeConfig, 'DELETE', `${base}/x2`, {
    body: json({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Bogus' }),
  });
  assertStatus(
    bogus,
    422,
    'Invalid',
    'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
  );
  assert.equal((await raw(env.kubeConfig, 'POST', base, { body: cm('x3') })).status, 201);
  // With a body, the query's options are not read at all.
  const bodyWins = await raw(env.kubeConfig, 'DELETE', `${base}/x3?propagationPolicy=Bogus`, {
    body: json({ kind: 'DeleteOptions', apiVersion: 'v1' }),
  });
  assert.equal(bodyWins.status, 200);
  assert.equal(bodyWins.json.status, 'Success');
});

test('watch: an object leaving the label selector is DELETED as it was, under the new resourceVersion', async (t) => {
  const env = await kubeEnv(t);
  const base = `/api/v1/namespaces/${env.namespace}/configmaps`;
  const created = await raw(env.kubeConfig, 'POST', base, { body: cm('w1', { labels: { stage: 'one' } }) });
  assert.equal(created.status, 201);
  const moved = await raw(env.kubeConfig, 'PATCH', `${base}/w1`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { labels: { stage: 'two' } }, data: { a: '2' } }),
  });
  assert.equal(moved.status, 200);
  const { status, events } = await rawWatchLines(
    env.kubeConfig,
    `${base}?watch=1&labelSelector=stage%3Done&resourceVersion=${created.json.metadata.resourceVersion}&timeoutSeconds=1`,
  );
  assert.equal(status, 200);
  assert.deepEqual(
    events.map((e) => e.type),
    ['DELETED'],
  );
  const left = events[0]!.object;
  assert.equal(left.metadata.labels.stage, 'one', 'the previous state, which matched');
  assert.equal(left.data.a, '1');
  assert.equal(left.metadata.resourceVersion, moved.json.metadata.resourceVersion);
});

test('a custom resource with finalizers: a dry-run DELETE answers the object being deleted and keeps it as it was', async (t) => {
  const env = await kubeEnv(t);
  const base = `/apis/mysql.presslabs.org/v1alpha1/namespaces/${env.namespace}/mysqlclusters`;
  const body = json(cluster('cf1', {}, { finalizers: ['mysql.presslabs.org/strict-test'] }));
  assert.equal((await raw(env.kubeConfig, 'POST', base, { body })).status, 201);
  const dry = await raw(env.kubeConfig, 'DELETE', `${base}/cf1?dryRun=All`);
  assert.equal(dry.status, 200);
  assert.equal(dry.json.kind, 'MysqlCluster');
  assert.ok(dry.json.metadata.deletionTimestamp);
  const stored = await raw(env.kubeConfig, 'GET', `${base}/cf1`);
  assert.equal(stored.json.metadata.deletionTimestamp, undefined);
  assert.equal(stored.json.metadata.generation, 1);
  await raw(env.kubeConfig, 'PATCH', `${base}/cf1`, {
    contentType: 'application/merge-patch+json',
    body: json({ metadata: { finalizers: null } }),
  });
});
