// The Manager against the project's test API server (or TEST_KUBECONFIG's cluster): controllers
// see primary, owned and mapped objects; health, readiness and metrics are served; Events are
// aggregated and redacted; shutdown finishes in-flight work and releases the Lease.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { keyFromLabel, type ControllerSpec, type Request } from '../../../src/runtime/controller.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import type { Lease } from '../../../src/runtime/leader-election.ts';
import type { Manager } from '../../../src/runtime/manager.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { runManager, testConfig } from './helpers.ts';
import { eventually } from '../../support/wait.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const SVC = { apiVersion: 'v1', kind: 'Service' };

function startManager(t: TestContext, env: KubeEnv, spec: ControllerSpec, identity = 'op-1') {
  const config = testConfig(['--namespace', env.namespace, '--identity', identity, '--workers', '2']);
  return runManager(t, env.kubeConfig, spec, config, { informer: { relistPeriodMs: 0 } });
}

async function http(manager: Manager, path: string): Promise<{ status: number; body: string }> {
  const addr = manager.httpAddress;
  assert.ok(addr);
  const res = await fetch(`http://127.0.0.1:${addr.port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe('manager', () => {
  it('reconciles primary objects and the owners of owned objects and of mapped objects', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const seen: string[] = [];
    const { manager, client } = await startManager(t, env, {
      name: 'test',
      for: { ...CM, labelSelector: { app: 'mgr' } },
      owns: [SECRET],
      watches: [{ target: SVC, map: keyFromLabel('parent') }],
      async reconcile(req: Request) {
        seen.push(req.key);
      },
    });
    await eventually('ready', () => manager.ready);
    const parent = await client.create<KubeObject>({
      ...CM,
      metadata: { name: 'parent', namespace: env.namespace, labels: { app: 'mgr' } },
    });
    const key = `${env.namespace}/parent`;
    await eventually('the primary is reconciled', () => seen.includes(key));

    let count = seen.length;
    await client.create({
      ...SECRET,
      metadata: {
        name: 'child',
        namespace: env.namespace,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: parent.metadata?.uid ?? '', controller: true }],
      },
      stringData: { x: 'y' },
    } as KubeObject);
    await eventually('an owned object enqueues its owner', () => seen.length > count && seen.at(-1) === key);

    count = seen.length;
    await client.create({
      ...SVC,
      metadata: { name: 'svc', namespace: env.namespace, labels: { parent: 'parent' } },
      spec: { ports: [{ port: 80 }] },
    } as KubeObject);
    await eventually('a mapped object enqueues the mapped key', () => seen.length > count && seen.at(-1) === key);
    assert.ok(
      seen.every((k) => k === key),
      `only the primary key is reconciled: ${seen.join(',')}`,
    );
  });

  it('serves /healthz, /readyz once synced and leading state is known, and /metrics', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    let fail = true;
    const { manager, client } = await startManager(t, env, {
      name: 'metered',
      for: CM,
      backoff: { baseMs: 10 },
      async reconcile() {
        if (fail) {
          fail = false;
          throw new Error('transient');
        }
      },
    });
    assert.equal((await http(manager, '/healthz')).status, 200);
    await eventually('ready', async () => (await http(manager, '/readyz')).status === 200);
    await client.create({ ...CM, metadata: { name: 'm', namespace: env.namespace } });
    await eventually('retried after the failure', async () =>
      /controller_reconcile_total\{controller="metered",result="success"\} [1-9]/.test((await http(manager, '/metrics')).body),
    );
    const metrics = (await http(manager, '/metrics')).body;
    for (const name of [
      'workqueue_depth{controller="metered"}',
      'workqueue_adds_total{controller="metered"}',
      'workqueue_retries_total{controller="metered"} 1',
      'controller_reconcile_errors_total{controller="metered"} 1',
      'controller_reconcile_duration_seconds_bucket',
      'informer_relists_total{kind="ConfigMap",reason="initial"} 1',
      'leader_election_is_leader{lease="mysql-operator-leader-election"} 1',
      `informer_cached_objects{kind="ConfigMap",namespace="${env.namespace}",selector=""}`,
      'workqueue_in_flight{controller="metered"} 0',
    ]) {
      assert.ok(metrics.includes(name), `metrics include ${name}`);
    }
    assert.equal((await http(manager, '/nope')).status, 404);
  });

  it('aggregates repeated Events into one with a count and never puts a password in them', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    let runs = 0;
    const { client, manager } = await startManager(t, env, {
      name: 'eventful',
      for: CM,
      async reconcile(req, ctx) {
        const obj = (await ctx.informer(CM)).get(req.namespace, req.name);
        if (!obj || runs++ > 0) return;
        for (let i = 0; i < 3; i++) {
          ctx.events.warning(obj, 'ConnectFailed', "cannot reach mysql://root:hunter2@db:3306/ (MASTER_PASSWORD='hunter2')");
        }
      },
    });
    await client.create({ ...CM, metadata: { name: 'e', namespace: env.namespace } });
    const events = async () =>
      (
        await client.list<KubeObject & { reason?: string; count?: number; message?: string }>(
          { apiVersion: 'v1', kind: 'Event' },
          { namespace: env.namespace },
        )
      ).items;
    await eventually('the event count reaches 3', async () => (await events()).some((e) => e.count === 3));
    const mine = (await events()).filter((e) => e.reason === 'ConnectFailed');
    assert.equal(mine.length, 1);
    assert.ok(!JSON.stringify(mine).includes('hunter2'));
    assert.match(mine[0]?.message ?? '', /mysql:\/\/root:\*\*\*@db/);
    assert.ok(manager.isLeader);
  });

  it('serves a controller route while it leads and answers 503 while it does not', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const seen: string[] = [];
    const spec = (): ControllerSpec => ({
      name: 'hooked',
      for: CM,
      async reconcile(req) {
        seen.push(req.key);
      },
      routes: [
        {
          method: 'POST',
          path: '/hooks/poke',
          async handle(req, ctx) {
            const name = req.query.get('name');
            if (!name) return { status: 400, body: 'name required' };
            ctx.enqueue(`${env.namespace}/${name}`);
            return { status: 202, body: { enqueued: name, bytes: req.body.length } };
          },
        },
      ],
    });
    const { manager } = await startManager(t, env, spec());
    await eventually('leading', () => manager.isLeader && manager.runningControllers.length === 1);
    const addr = manager.httpAddress;
    assert.ok(addr);
    const res = await fetch(`http://127.0.0.1:${addr.port}/hooks/poke?name=x`, { method: 'POST', body: 'hello' });
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), { enqueued: 'x', bytes: 5 });
    await eventually('the poked key is reconciled', () => seen.includes(`${env.namespace}/x`));
    assert.equal((await fetch(`http://127.0.0.1:${addr.port}/hooks/poke`, { method: 'POST' })).status, 400);
    assert.equal((await fetch(`http://127.0.0.1:${addr.port}/hooks/poke?name=x`)).status, 404, 'only the declared method');

    // A second manager on the same Lease is a standby: its route answers 503.
    const standby = await startManager(t, env, spec(), 'op-2');
    await eventually('the standby knows it does not lead', () => standby.manager.ready);
    const port = standby.manager.httpAddress?.port;
    assert.equal((await fetch(`http://127.0.0.1:${port}/hooks/poke?name=y`, { method: 'POST' })).status, 503);
  });

  it('on stop, finishes the in-flight reconcile and releases the Lease', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = false;
    let finished = false;
    const { manager, client } = await startManager(t, env, {
      name: 'slow',
      for: CM,
      async reconcile() {
        started = true;
        await gate;
        finished = true;
      },
    });
    await client.create({ ...CM, metadata: { name: 's', namespace: env.namespace } });
    await eventually('a reconcile is in flight', () => started);
    let stopped = false;
    const stopping = manager.stop().then(() => {
      stopped = true;
    });
    // Controllers leave the running list when the drain begins: stop is now waiting on the gate.
    await eventually('stop to be draining', () => manager.runningControllers.length === 0);
    assert.equal(stopped, false, 'stop waits while the reconcile runs');
    release();
    await stopping;
    assert.equal(finished, true, 'stop waited for the in-flight reconcile');
    const lease = await client.get<Lease>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: env.namespace,
      name: 'mysql-operator-leader-election',
    });
    assert.ok(!lease.spec?.holderIdentity, `holderIdentity cleared, got ${lease.spec?.holderIdentity}`);
  });
});
