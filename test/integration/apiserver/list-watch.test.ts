// Lists and watches: selectors, paging with the real continue-token format, watch event streams
// compared with the recorded ones (types, generations, bookmarks, 410, finalizer flow), and the
// informer of client-node. Runs against the test API server or TEST_KUBECONFIG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, CustomObjectsApi, EventsV1Api, makeInformer, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { kubeEnv } from '../../support/kube-env.ts';
import { asMicroTime, cluster, fixtureText, MERGE_PATCH, MYSQL_GROUP, raw, rawWatchLines } from './helpers.ts';
import { eventually } from '../../support/wait.ts';
import type { Json, JsonObject } from '../../support/json.ts';

type Ev = { type: string; object: JsonObject };

function recorded(file: string): Ev[] {
  return fixtureText(file)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Ev);
}

test('label selectors (equality and set-based) and field selectors filter lists', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  const mk = (name: string, labels: Record<string, string>) =>
    core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels } } });
  await mk('a', { app: 'mysql', tier: 'db' });
  await mk('b', { app: 'mysql', tier: 'cache' });
  await mk('c', { app: 'web' });
  const names = async (labelSelector?: string, fieldSelector?: string) =>
    (
      await core.listNamespacedConfigMap({
        namespace: ns,
        ...(labelSelector ? { labelSelector } : {}),
        ...(fieldSelector ? { fieldSelector } : {}),
      })
    ).items
      .map((i) => i.metadata!.name!)
      .filter((n) => n !== 'kube-root-ca.crt');
  assert.deepEqual(await names('app=mysql'), ['a', 'b']);
  assert.deepEqual(await names('app==mysql,tier!=db'), ['b']);
  assert.deepEqual(await names('tier in (db,cache)'), ['a', 'b']);
  assert.deepEqual(await names('app,tier notin (db)'), ['b', 'c']);
  assert.deepEqual(await names('!tier'), ['c']);
  assert.deepEqual(await names(undefined, 'metadata.name=b'), ['b']);
  assert.deepEqual(await names(undefined, `metadata.namespace=${ns},metadata.name!=b`), ['a', 'c']);
  await core.createNamespacedEvent({
    namespace: ns,
    body: {
      metadata: { name: 'e1' },
      involvedObject: { kind: 'ConfigMap', name: 'a', namespace: ns },
      reason: 'Test',
      message: 'm',
      type: 'Normal',
    },
  });
  const evs = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=a' });
  assert.deepEqual(
    evs.items.map((e) => e.metadata?.name),
    ['e1'],
  );
});

test('limit and continue page through a list with the real token format and remainingItemCount', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  for (const n of ['c1', 'c2', 'c3']) await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster(n) });
  const first = (await co.listNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, limit: 2 })) as JsonObject;
  assert.deepEqual(
    first.items.map((i: Json) => i.metadata.name),
    ['c1', 'c2'],
  );
  assert.equal(first.metadata.remainingItemCount, 1);
  const token = JSON.parse(Buffer.from(first.metadata.continue, 'base64url').toString()) as Record<string, unknown>;
  assert.deepEqual(token, { v: 'meta.k8s.io/v1', rv: Number(first.metadata.resourceVersion), start: 'c2\u0000' });
  const second = (await co.listNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    limit: 2,
    _continue: first.metadata.continue,
  })) as JsonObject;
  assert.deepEqual(
    second.items.map((i: Json) => i.metadata.name),
    ['c3'],
  );
  assert.equal(second.metadata.continue, '');
  assert.deepEqual(Object.keys(second), ['apiVersion', 'items', 'kind', 'metadata'], 'CR list keys sorted like the real one');
  assert.equal(second.items[0].kind, 'MysqlCluster', 'CR list items carry kind');
});

test('a watch from a list resourceVersion sees ADDED, MODIFIED (spec), MODIFIED (status), DELETED like the recorded stream', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  const list = (await co.listNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns })) as JsonObject;
  const path = `/apis/mysql.presslabs.org/v1alpha1/namespaces/${ns}/mysqlclusters?watch=1&resourceVersion=${list.metadata.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=3`;
  const stream = rawWatchLines(env.kubeConfig, path);
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('w1', {}, { labels: { app: 'mysql' } }) });
  await co.patchNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'w1', body: { spec: { replicas: 3 } } }, MERGE_PATCH);
  await co.patchNamespacedCustomObjectStatus(
    { ...MYSQL_GROUP, namespace: ns, name: 'w1', body: { status: { readyNodes: 3 } } },
    MERGE_PATCH,
  );
  await co.deleteNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'w1' });
  const { status, events } = await stream;
  assert.equal(status, 200);
  const want = recorded('watch-cr-stream.ndjson');
  const shape = (e: Ev) => [e.type, e.object.metadata.generation, e.object.status === undefined];
  const got = events.filter((e) => e.type !== 'BOOKMARK');
  assert.deepEqual(got.map(shape), want.filter((e) => e.type !== 'BOOKMARK').map(shape));
  const rvs = got.map((e) => Number(e.object.metadata.resourceVersion));
  assert.deepEqual(
    rvs,
    [...rvs].sort((a, b) => a - b),
    'resourceVersions increase, DELETED has a new one',
  );
  assert.equal(new Set(rvs).size, rvs.length);
  const bookmarks = events.filter((e) => e.type === 'BOOKMARK');
  assert.ok(bookmarks.length >= 1, 'a bookmark before the timeout');
  const wantBookmark = want.find((e) => e.type === 'BOOKMARK')!;
  assert.deepEqual(Object.keys(bookmarks[0]!.object), Object.keys(wantBookmark.object));
  assert.deepEqual(Object.keys(bookmarks[0]!.object.metadata), ['resourceVersion']);
});

test('a watch from a resourceVersion older than the window gets one ERROR event with Status 410 Expired', async (t) => {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const { status, events } = await rawWatchLines(
    env.kubeConfig,
    `/apis/mysql.presslabs.org/v1alpha1/namespaces/${ns}/mysqlclusters?watch=1&resourceVersion=1&allowWatchBookmarks=true`,
  );
  assert.equal(status, 200);
  assert.equal(events.length, 1);
  const want = recorded('watch-cr-too-old-410.ndjson')[0]!;
  assert.equal(events[0]!.type, 'ERROR');
  assert.deepEqual(Object.keys(events[0]!.object), Object.keys(want.object));
  assert.equal(events[0]!.object.code, 410);
  assert.equal(events[0]!.object.reason, 'Expired');
  assert.match(String(events[0]!.object.message), /^too old resource version: 1 \(\d+\)$/);
});

test('removing the last finalizer of a deleted object: watchers see ADDED, MODIFIED, DELETED still listing the finalizer', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  const list = (await co.listNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns })) as JsonObject;
  const stream = rawWatchLines(
    env.kubeConfig,
    `/apis/mysql.presslabs.org/v1alpha1/namespaces/${ns}/mysqlclusters?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=2`,
  );
  await co.createNamespacedCustomObject({
    ...MYSQL_GROUP,
    namespace: ns,
    body: cluster('f1', {}, { finalizers: ['mysql.presslabs.org/cleanup'] }),
  });
  const deleting = (await co.deleteNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'f1' })) as JsonObject;
  assert.equal(deleting.kind, 'MysqlCluster', 'deferred deletion answers with the object');
  assert.ok(deleting.metadata.deletionTimestamp);
  assert.equal(deleting.metadata.deletionGracePeriodSeconds, 0);
  assert.equal(deleting.metadata.generation, 2);
  const last = (await co.patchNamespacedCustomObject(
    { ...MYSQL_GROUP, namespace: ns, name: 'f1', body: { metadata: { finalizers: null } } },
    MERGE_PATCH,
  )) as JsonObject;
  assert.equal(last.metadata.finalizers, undefined);
  const { events } = await stream;
  const want = recorded('watch-cr-finalizer-flow.ndjson');
  const shape = (e: Ev) => [e.type, e.object.metadata.finalizers ?? [], Boolean(e.object.metadata.deletionTimestamp)];
  assert.deepEqual(events.map(shape), want.map(shape));
  const gone = await raw(env.kubeConfig, 'GET', `/apis/mysql.presslabs.org/v1alpha1/namespaces/${ns}/mysqlclusters/f1`);
  assert.equal(gone.status, 404);
});

test('timeoutSeconds ends a watch; the client-node Watch reports the end', async (t) => {
  const env = await kubeEnv(t);
  const watch = new Watch(env.kubeConfig);
  const ended = await new Promise<unknown>((resolve) => {
    void watch.watch(
      `/api/v1/namespaces/${env.namespace}/configmaps`,
      { timeoutSeconds: 1 },
      () => {},
      (err) => resolve(err ?? null),
    );
  });
  assert.equal(ended, null);
});

test('an informer lists, then follows changes; its cache equals the server objects', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'pre' } } });
  const inf = makeInformer<V1ConfigMap>(env.kubeConfig, `/api/v1/namespaces/${ns}/configmaps`, () =>
    core.listNamespacedConfigMap({ namespace: ns }),
  );
  await inf.start();
  t.after(() => inf.stop());
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'post' }, data: { a: '1' } } });
  await core.patchNamespacedConfigMap({ namespace: ns, name: 'post', body: { data: { a: '2' } } }, MERGE_PATCH);
  await core.deleteNamespacedConfigMap({ namespace: ns, name: 'pre' });
  await eventually('the informer to hold only post:2', () => {
    const names = inf
      .list()
      .map((c) => `${c.metadata?.name}:${c.data?.a ?? ''}`)
      .filter((n) => !n.startsWith('kube-root-ca'));
    return names.length === 1 && names[0] === 'post:2';
  });
});

test('events.k8s.io/v1 and core/v1 Events are two views of the same objects', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const events = env.kubeConfig.makeApiClient(EventsV1Api);
  const ns = env.namespace;
  const regarding = { kind: 'MysqlCluster', apiVersion: 'mysql.presslabs.org/v1alpha1', name: 'c1', namespace: ns };
  await events.createNamespacedEvent({
    namespace: ns,
    body: {
      // client-node writes a Date with milliseconds; a real server refuses that for a MicroTime.
      metadata: { name: 'e1' },
      eventTime: asMicroTime(new Date()),
      reportingController: 'mysql-operator',
      reportingInstance: 'op-1',
      action: 'Reconcile',
      reason: 'ClusterReady',
      regarding,
      note: 'cluster is ready',
      type: 'Normal',
    },
  });
  const asCore = await core.readNamespacedEvent({ namespace: ns, name: 'e1' });
  assert.equal(asCore.message, 'cluster is ready');
  assert.equal(asCore.involvedObject.name, 'c1');
  assert.equal(asCore.reportingComponent, 'mysql-operator');
  const byField = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=c1' });
  assert.deepEqual(
    byField.items.map((e) => e.metadata?.name),
    ['e1'],
  );
  const viewed = await events.listNamespacedEvent({ namespace: ns, fieldSelector: 'regarding.name=c1' });
  assert.deepEqual(
    viewed.items.map((e) => [e.metadata?.name, e.note, e.reportingController]),
    [['e1', 'cluster is ready', 'mysql-operator']],
  );
});

test('a large object reaches a client-node watch intact although its event spans several chunks', async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const big = 'x'.repeat(20_000);
  const seen = new Promise<string>((resolve, reject) => {
    const watch = new Watch(env.kubeConfig);
    void watch
      .watch(
        `/api/v1/namespaces/${env.namespace}/configmaps`,
        { timeoutSeconds: 10 },
        (type, obj: V1ConfigMap) => {
          if (type === 'ADDED' && obj.metadata?.name === 'big') resolve(obj.data?.blob ?? '');
        },
        (err) => (err ? reject(err) : undefined),
      )
      .then((req) => t.after(() => req.abort()));
  });
  // Whether the watch starts before or after the create, 'big' arrives as ADDED.
  await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'big' }, data: { blob: big } } });
  assert.equal((await seen).length, big.length);
});

test('the pages of a paged list are one snapshot: changes after the first page do not show', async (t) => {
  const env = await kubeEnv(t);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const ns = env.namespace;
  for (const n of ['c1', 'c2', 'c3']) await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster(n) });
  const first = (await co.listNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, limit: 1 })) as JsonObject;
  await co.deleteNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'c2' });
  await co.createNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, body: cluster('c4') });
  await co.patchNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, name: 'c3', body: { spec: { replicas: 5 } } }, MERGE_PATCH);
  const rest = (await co.listNamespacedCustomObject({ ...MYSQL_GROUP, namespace: ns, _continue: first.metadata.continue })) as JsonObject;
  assert.deepEqual(
    rest.items.map((i: Json) => `${i.metadata.name}:${i.spec.replicas}`),
    ['c2:1', 'c3:1'],
  );
  assert.equal(rest.metadata.resourceVersion, first.metadata.resourceVersion);
});
