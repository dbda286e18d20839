// What an informer's cache holds (src/runtime/projection.ts): trimmed, projected copies, which
// the client refuses to PUT.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { Informer } from '../../../src/runtime/informer.ts';
import type { KubeClient, WatchEvent } from '../../../src/runtime/kube/client.ts';
import { KubeClient as RealClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { cachedCopy, isCachedCopy, LAST_APPLIED_ANNOTATION, StringTable, type Projection } from '../../../src/runtime/projection.ts';
import { eventually } from '../../support/wait.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

function configMap(name: string, rv: string, data: Record<string, string>): KubeObject {
  return {
    ...CM,
    metadata: {
      name,
      namespace: 'ns',
      resourceVersion: rv,
      labels: { app: 'x' },
      annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify({ data }), 'other.io/note': 'kept' },
      managedFields: [{ manager: 'kubectl', operation: 'Update' }],
    } as KubeObject['metadata'],
    data,
  } as KubeObject;
}

/** Keeps the data of ConfigMaps named `keep-*` only. */
const onlyKept: Projection = {
  name: 'test-keep',
  keep: (o) => (o.metadata?.name?.startsWith('keep-') ? o : { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata }),
};

/** A client that lists `items` and then streams `events` on the first watch. */
function fakeClient(items: KubeObject[], events: Array<WatchEvent<KubeObject>>): KubeClient {
  let watched = false;
  return {
    listAll: async () => ({ metadata: { resourceVersion: '10' }, items }),
    watch: async (_ref: unknown, opts: { signal?: AbortSignal; onOpen?: () => void }, onEvent: (ev: WatchEvent<KubeObject>) => void) => {
      opts.onOpen?.();
      if (!watched) {
        watched = true;
        for (const ev of events) onEvent(ev);
      }
      await new Promise<void>((resolve) => {
        if (opts.signal?.aborted) resolve();
        opts.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    },
  } as unknown as KubeClient;
}

describe('cached copies', () => {
  it('lose managedFields and the kubectl apply annotation, and keep the other annotations', () => {
    const c = cachedCopy(configMap('a', '1', { k: 'v' }), undefined, new StringTable());
    assert.equal((c.metadata as Record<string, unknown>).managedFields, undefined);
    assert.deepEqual(c.metadata?.annotations, { 'other.io/note': 'kept' });
    assert.deepEqual((c as { data?: unknown }).data, { k: 'v' });
    const bare = cachedCopy(
      { ...CM, metadata: { name: 'b', annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } } },
      undefined,
      new StringTable(),
    );
    assert.equal(bare.metadata?.annotations, undefined, 'an annotation map left empty goes');
  });

  it('an informer caches the projection of its target, from its list and from watch events', async () => {
    const informer = new Informer({
      client: fakeClient(
        [configMap('keep-1', '1', { k: 'v' }), configMap('drop-1', '2', { big: 'x'.repeat(1000) })],
        [
          { type: 'ADDED', object: configMap('drop-2', '11', { big: 'y' }) },
          { type: 'MODIFIED', object: configMap('keep-1', '12', { k: 'w' }) },
        ],
      ),
      target: { ...CM, namespace: 'ns', projection: onlyKept },
      relistPeriodMs: 0,
    });
    const seen: KubeObject[] = [];
    informer.addHandlers({ onAdd: (o) => seen.push(o), onUpdate: (_o, n) => seen.push(n) });
    informer.start();
    try {
      await informer.waitForSync();
      await eventually('watch events applied', () => informer.get('ns', 'keep-1')?.metadata?.resourceVersion === '12');
      assert.deepEqual((informer.get('ns', 'keep-1') as { data?: unknown }).data, { k: 'w' });
      for (const name of ['drop-1', 'drop-2']) {
        const o = informer.get('ns', name) as { data?: unknown } & KubeObject;
        assert.equal(o.data, undefined, `${name}: data not cached`);
        assert.deepEqual(o.metadata?.labels, { app: 'x' });
        assert.equal(o.metadata?.annotations?.[LAST_APPLIED_ANNOTATION], undefined);
      }
      assert.ok(
        seen.every((o) => isCachedCopy(o)),
        'handlers get the cached copies',
      );
      assert.equal((seen.find((o) => o.metadata?.name === 'drop-2') as { data?: unknown }).data, undefined);
    } finally {
      await informer.stop();
    }
  });

  it('the client refuses to PUT a cached copy, or an object built from one by spreading it', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:9' }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const client = new RealClient(kc);
    const c = cachedCopy(configMap('a', '1', { k: 'v' }), undefined, new StringTable());
    await assert.rejects(client.update(c), /refusing to PUT an object built from a cached copy/);
    await assert.rejects(client.update({ ...c, data: { k: 'w' } } as KubeObject), /refusing to PUT/);
    await assert.rejects(client.update({ ...CM, metadata: { ...c.metadata }, data: {} } as KubeObject), /refusing to PUT/);
    assert.equal(isCachedCopy(JSON.parse(JSON.stringify(c)) as object), false, 'a serialised copy is not marked');
    client.close();
  });
});
