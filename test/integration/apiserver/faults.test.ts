// Fault injection of the test API server, and client-node's informer surviving each fault with a
// cache equal to the server's objects. Skipped on a real cluster (no faults there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { expectApiError, raw, rawWatchLines } from './helpers.ts';
import { eventually } from '../../support/wait.ts';

const SKIP = process.env.TEST_KUBECONFIG ? 'fault injection needs the test API server' : false;

async function informed(t: Parameters<typeof kubeEnv>[0], env: KubeEnv) {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const ns = env.namespace;
  const inf = makeInformer<V1ConfigMap>(env.kubeConfig, `/api/v1/namespaces/${ns}/configmaps`, () =>
    core.listNamespacedConfigMap({ namespace: ns }),
  );
  let stopped = false;
  inf.on('error', () => {
    // client-node stops on error; restart it like a controller would.
    setTimeout(() => {
      if (!stopped) void inf.start().catch(() => {});
    }, 50);
  });
  await inf.start();
  t.after(async () => {
    stopped = true;
    await inf.stop();
  });
  const inSync = () =>
    eventually(
      'the informer cache to match the server',
      async () => {
        const server = (await core.listNamespacedConfigMap({ namespace: ns })).items
          .map((c) => `${c.metadata!.name}@${c.metadata!.resourceVersion}`)
          .sort();
        const cache = inf
          .list()
          .map((c) => `${c.metadata!.name}@${c.metadata!.resourceVersion}`)
          .sort();
        return JSON.stringify(server) === JSON.stringify(cache);
      },
      20_000,
    );
  return { core, ns, inf, inSync };
}

test('failNext answers the next matching requests with the given status, then serves normally', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  env.server!.faults.failNext({ verb: 'create', resource: 'configmaps' }, { status: 503, count: 2 });
  for (let i = 0; i < 2; i++) {
    const err = await expectApiError(core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a' } } }));
    assert.equal(err.code, 503);
    assert.equal(err.status.reason, 'ServiceUnavailable');
  }
  await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a' } } });
  const log = env.server!.requestLog.filter({ verb: 'create', resource: 'configmaps', namespace: env.namespace });
  assert.deepEqual(
    log.map((e) => e.status),
    [503, 503, 201],
  );
});

test('delayNext holds a request; pause holds everything until resume', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const faults = env.server!.faults;
  faults.delayNext({ verb: 'get', resource: 'configmaps' }, { ms: 1500 });
  await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a' } } });
  const order: string[] = [];
  const delayed = core.readNamespacedConfigMap({ namespace: env.namespace, name: 'a' }).then(() => order.push('delayed get'));
  await core.listNamespacedConfigMap({ namespace: env.namespace }).then(() => order.push('list'));
  await delayed;
  assert.deepEqual(order, ['list', 'delayed get']);
  faults.pause();
  let answered = false;
  const paused = core.listNamespacedConfigMap({ namespace: env.namespace }).then(() => {
    answered = true;
  });
  await eventually('the list to reach the paused server', () => faults.heldRequests === 1);
  assert.equal(answered, false, 'no answer while paused');
  faults.resume();
  await paused;
  assert.equal(answered, true);
});

test('an informer recovers from dropped watches with a cache equal to the server', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const { core, ns, inSync } = await informed(t, env);
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
  await inSync();
  assert.ok(env.server!.faults.dropWatches() >= 1);
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
  await core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' });
  await inSync();
});

test('an informer relists after 410 when the watch window expired while its watch was down', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const { core, ns, inSync } = await informed(t, env);
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
  await inSync();
  const faults = env.server!.faults;
  faults.pause();
  faults.dropWatches();
  faults.resume();
  faults.failNext({ verb: 'watch', resource: 'configmaps' }, { status: 500 });
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
  faults.expireWatchWindow();
  await inSync();
  const watch = await rawWatchLines(env.kubeConfig, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1`);
  assert.equal(watch.events[0]?.type, 'ERROR');
});

test('silenced watches stay open but deliver nothing until unsilenced and re-established', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const { core, ns, inf, inSync } = await informed(t, env);
  await inSync();
  const lost = env.server!.faults.lostEvents;
  env.server!.faults.silenceWatches();
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'quiet' } } });
  await eventually('the informer watch to lose the event', () => env.server!.faults.lostEvents === lost + 1);
  assert.equal(
    inf.list().some((c) => c.metadata?.name === 'quiet'),
    false,
    'the event was swallowed',
  );
  env.server!.faults.unsilenceWatches();
  env.server!.faults.dropWatches({ graceful: true });
  await inSync();
});

test('delayWatchEvents delivers the events of one resource late and in order; other resources are not held', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const { core, ns, inf, inSync } = await informed(t, env);
  const added: string[] = [];
  inf.on('add', (c) => added.push(c.metadata!.name!));
  env.server!.faults.delayWatchEvents('configmaps', 2000);
  t.after(() => env.server!.faults.delayWatchEvents('configmaps', 0));
  for (const name of ['a', 'b', 'c']) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
  assert.deepEqual(added, [], 'held back');
  // A watch of another resource is served as usual meanwhile.
  await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' } } });
  const secrets = await rawWatchLines(env.kubeConfig, `/api/v1/namespaces/${ns}/secrets?watch=1&timeoutSeconds=1`);
  assert.deepEqual(
    secrets.events.map((e) => e.type),
    ['ADDED'],
  );
  await inSync();
  assert.deepEqual(added, ['a', 'b', 'c']);
});

test('the request log records every request with verb, resource, namespace, name and status', { skip: SKIP }, async (t) => {
  const env = await kubeEnv(t);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const log = env.server!.requestLog;
  const mark = log.mark();
  await core.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'a' } } });
  await core.readNamespacedConfigMap({ namespace: env.namespace, name: 'a' });
  await raw(env.kubeConfig, 'GET', '/api');
  const entries = log.since(mark).map((e) => [e.method, e.verb, e.resource, e.namespace, e.name, e.status]);
  assert.deepEqual(entries, [
    ['POST', 'create', 'configmaps', env.namespace, undefined, 201],
    ['GET', 'get', 'configmaps', env.namespace, 'a', 200],
    ['GET', 'get', undefined, undefined, undefined, 200],
  ]);
  assert.equal(log.writes(mark).length, 1);
});
