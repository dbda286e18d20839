// Two managers against one Lease: only the holder runs controllers; when the holder dies without
// releasing, the other takes over within the lease duration; a graceful stop hands over at once.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { ControllerSpec } from '../../../src/runtime/controller.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { Lease } from '../../../src/runtime/leader-election.ts';
import { LeaderElector } from '../../../src/runtime/leader-election.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { memoryLogger, runManager, testConfig } from './helpers.ts';
import { eventually } from '../../support/wait.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const LEASE_NAME = 'mysql-operator-leader-election';
// Short enough for tests, long enough that a loaded CI machine does not lose leadership by accident.
const LEASE_MS = 5000;
const RENEW_MS = 4000;
const RETRY_MS = 250;
const TIMINGS = ['--lease-duration', `${LEASE_MS}ms`, '--renew-deadline', `${RENEW_MS}ms`, '--retry-period', `${RETRY_MS}ms`];

interface Candidate {
  identity: string;
  manager: Manager;
  reconciled: string[];
  /** Reconciles that ran while this candidate did not lead (must stay empty). */
  reconciledWhileNotLeader: string[];
}

async function candidates(t: TestContext, env: KubeEnv, n: number): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = 0; i < n; i++) {
    const identity = `op-${i}`;
    const reconciled: string[] = [];
    const reconciledWhileNotLeader: string[] = [];
    let manager: Manager | undefined;
    const spec: ControllerSpec = {
      name: 'probe',
      for: CM,
      async reconcile(req) {
        reconciled.push(req.key);
        if (!manager?.isLeader) reconciledWhileNotLeader.push(req.key);
      },
    };
    const client = new KubeClient(env.kubeConfig);
    const { log } = memoryLogger();
    manager = new Manager({
      config: testConfig(['--namespace', env.namespace, '--leader-election-namespace', env.namespace, '--identity', identity, ...TIMINGS]),
      client,
      log,
    });
    manager.add(spec);
    await manager.start();
    const m = manager;
    t.after(async () => {
      await m.stop();
      client.close();
    });
    out.push({ identity, manager: m, reconciled, reconciledWhileNotLeader });
  }
  return out;
}

async function readLease(env: KubeEnv): Promise<Lease> {
  const client = new KubeClient(env.kubeConfig);
  try {
    return await client.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: env.namespace, name: LEASE_NAME });
  } finally {
    client.close();
  }
}

function leaders(cs: Candidate[]): Candidate[] {
  return cs.filter((c) => c.manager.isLeader);
}

function running(cs: Candidate[]): Candidate[] {
  return cs.filter((c) => c.manager.runningControllers.length > 0);
}

describe('leader election', () => {
  it('with two managers on one Lease, only the holder runs controllers', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const cs = await candidates(t, env, 2);
    await eventually('a leader is elected', () => leaders(cs).length === 1);
    await eventually('both know the leadership state', () => cs.every((c) => c.manager.ready));
    // Sample across several retry periods: never two leaders, never controllers on a non-leader.
    // (Exactly one is liveness; a starved machine may hand over in between, which is allowed.)
    for (let i = 0; i < 20; i++) {
      assert.ok(leaders(cs).length <= 1, 'at most one leader');
      for (const c of running(cs)) assert.ok(c.manager.isLeader, `${c.identity} runs controllers only while leading`);
      await new Promise((r) => setTimeout(r, RETRY_MS / 2));
    }
    const client = new KubeClient(env.kubeConfig);
    t.after(() => client.close());
    await client.create({ ...CM, metadata: { name: 'work', namespace: env.namespace } });
    await eventually('a leader reconciles', () => cs.some((c) => c.reconciled.includes(`${env.namespace}/work`)));
    for (const c of cs) assert.deepEqual(c.reconciledWhileNotLeader, [], `${c.identity} reconciled only while leading`);
    const holder = (await readLease(env)).spec?.holderIdentity;
    assert.deepEqual(leaders(cs).map((c) => c.identity), [holder]);
  });

  it('when the leader dies without releasing, the standby takes over within the lease duration', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const cs = await candidates(t, env, 2);
    await eventually('a leader is elected', () => leaders(cs).length === 1);
    const [dead] = leaders(cs);
    const standby = cs.find((c) => c !== dead);
    assert.ok(dead && standby);
    await dead.manager.stop({ release: false }); // a crash: the Lease still names it
    const afterDeath = await readLease(env);
    assert.equal(afterDeath.spec?.holderIdentity, dead.identity, 'the Lease was not released');
    const lastRenew = Date.parse(afterDeath.spec?.renewTime ?? '');

    await eventually('the standby leads', () => standby.manager.isLeader, LEASE_MS * 4);
    assert.deepEqual(running(cs).map((c) => c.identity), [standby.identity]);
    const lease = await readLease(env);
    assert.equal(lease.spec?.holderIdentity, standby.identity);
    assert.equal(lease.spec?.leaseTransitions, 1);
    // Taken once the dead holder's record had been unchanged for a lease duration (seen by the
    // standby at its next retry, with the retry jitter): not earlier, not much later.
    const handover = Date.parse(lease.spec?.acquireTime ?? '') - lastRenew;
    assert.ok(handover >= LEASE_MS - RETRY_MS * 2, `not before the lease expired (${handover} ms)`);
    assert.ok(handover <= LEASE_MS + 1500, `within the lease duration plus retry periods and latency (${handover} ms)`);

    const client = new KubeClient(env.kubeConfig);
    t.after(() => client.close());
    await client.create({ ...CM, metadata: { name: 'after', namespace: env.namespace } });
    await eventually('the new leader reconciles', () => standby.reconciled.includes(`${env.namespace}/after`));
    assert.ok(!dead.reconciled.includes(`${env.namespace}/after`));
  });

  it('a graceful stop releases the Lease and the standby takes over without waiting for expiry', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const cs = await candidates(t, env, 2);
    await eventually('a leader is elected', () => leaders(cs).length === 1);
    const [old] = leaders(cs);
    const standby = cs.find((c) => c !== old);
    assert.ok(old && standby);
    const stoppedAt = Date.now();
    await old.manager.stop();
    await eventually('the standby leads', () => standby.manager.isLeader, LEASE_MS * 4);
    const lease = await readLease(env);
    assert.equal(lease.spec?.holderIdentity, standby.identity);
    const handover = Date.parse(lease.spec?.acquireTime ?? '') - stoppedAt;
    assert.ok(handover < LEASE_MS, `handed over before the lease would have expired (${handover} ms)`);
  });

  it('a leader that cannot renew steps down and stops its controllers', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    if (!env.server) return t.skip('needs fault injection (not on a real cluster)');
    const cs = await candidates(t, env, 1);
    const [only] = cs;
    assert.ok(only);
    await eventually('it leads', () => only.manager.isLeader);
    env.server.faults.failNext({ resource: 'leases' }, { status: 500, count: 1_000_000 });
    await eventually('it steps down', () => !only.manager.isLeader && only.manager.runningControllers.length === 0, LEASE_MS * 4);
    env.server.faults.clear();
    await eventually('it leads again once the API answers', () => only.manager.isLeader, LEASE_MS * 4);
  });

  it('a leader that loses the Lease while a reconcile ignores its signal stops campaigning and asks to exit', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    if (!env.server) return t.skip('needs fault injection (not on a real cluster)');
    let release = (): void => {};
    const hung = new Promise<void>((r) => (release = r));
    let started = false;
    const spec: ControllerSpec = {
      name: 'stubborn',
      for: CM,
      async reconcile() {
        started = true;
        await hung; // ignores ctx.signal, as a stuck non-Kubernetes call would
      },
    };
    t.after(() => release());
    const config = testConfig(['--namespace', env.namespace, '--leader-election-namespace', env.namespace, '--identity', 'stubborn', ...TIMINGS]);
    const { manager, client, lines } = await runManager(t, env.kubeConfig, spec, config);
    let fatal: Error | undefined;
    void manager.fatal.then((err) => (fatal = err));
    await eventually('it leads', () => manager.isLeader);
    await client.create({ ...CM, metadata: { name: 'stuck', namespace: env.namespace } });
    await eventually('the reconcile hangs', () => started);
    env.server.faults.failNext({ resource: 'leases' }, { status: 500, count: 1_000_000 });
    await eventually('it gives up', () => fatal !== undefined, LEASE_MS * 4);
    assert.equal(manager.isLeader, false);
    assert.deepEqual(manager.runningControllers, []);
    assert.ok(lines.some((l) => l.includes('lost leadership with reconciles still running')));
    env.server.faults.clear();
    const mark = env.server.requestLog.mark();
    await new Promise((r) => setTimeout(r, RETRY_MS * 6)); // room for campaigns that must not happen
    assert.equal(env.server.requestLog.filter({ resource: 'leases' }, mark).length, 0, 'no campaign after giving up');
    assert.equal(manager.isLeader, false);
  });

  it('a leader whose renewals hang steps down before its Lease could expire', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    if (!env.server) return t.skip('needs fault injection (not on a real cluster)');
    const [only] = await candidates(t, env, 1);
    assert.ok(only);
    await eventually('it leads', () => only.manager.isLeader);
    await eventually('it renewed at least once', async () => (await readLease(env)).spec?.leaseTransitions === 0 && only.manager.isLeader);
    env.server.faults.delayNext({ resource: 'leases' }, { ms: 60_000, count: 1_000_000 });
    await eventually('it steps down', () => !only.manager.isLeader, LEASE_MS * 4);
    const steppedDown = Date.now();
    assert.deepEqual(only.manager.runningControllers, [], 'its controllers stop with the step-down');
    // Stopped (without release) before the renewals are let through again, so it cannot take the
    // Lease back and move renewTime while the test reads it.
    await only.manager.stop({ release: false });
    env.server.faults.clear();
    const lastRenew = Date.parse((await readLease(env)).spec?.renewTime ?? '');
    assert.ok(steppedDown - lastRenew < LEASE_MS, `stepped down ${steppedDown - lastRenew} ms after its last renewal`);
  });

  it('two electors racing for a fresh Lease never both win', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const clients = [new KubeClient(env.kubeConfig), new KubeClient(env.kubeConfig)];
    t.after(() => clients.forEach((c) => c.close()));
    for (let round = 0; round < 5; round++) {
      const electors = clients.map(
        (client, i) =>
          new LeaderElector({
            client,
            namespace: env.namespace,
            name: `race-${round}`,
            identity: `e-${i}`,
            leaseDurationMs: LEASE_MS,
            renewDeadlineMs: RENEW_MS,
            retryPeriodMs: RETRY_MS,
            onStartedLeading: () => {},
            onStoppedLeading: () => {},
          }),
      );
      const wins = await Promise.all(electors.map((e) => e.tryAcquireOrRenew()));
      assert.equal(wins.filter(Boolean).length, 1, `round ${round}: exactly one winner`);
    }
  });
});
