// Two managers against one Lease: only the holder runs controllers; when the holder dies without
// releasing, the other takes over; a graceful stop hands over without waiting for expiry. How long
// each takes is measured by bench/leader-election.ts; the expiry rule on an injected clock is in
// test/unit/runtime/leader-election.test.ts.
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
  lines: string[];
}

async function candidates(t: TestContext, env: KubeEnv, n: number, timings = TIMINGS): Promise<Candidate[]> {
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
    const { log, lines } = memoryLogger();
    manager = new Manager({
      config: testConfig(['--namespace', env.namespace, '--leader-election-namespace', env.namespace, '--identity', identity, ...timings]),
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
    out.push({ identity, manager: m, reconciled, reconciledWhileNotLeader, lines });
  }
  return out;
}

async function readLease(env: KubeEnv, client?: KubeClient): Promise<Lease> {
  const c = client ?? new KubeClient(env.kubeConfig);
  try {
    return await c.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: env.namespace, name: LEASE_NAME });
  } finally {
    if (!client) c.close();
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
    // Sampled until the Lease has been renewed four times: never two leaders, never controllers
    // on a non-leader. (Exactly one is liveness; a starved machine may hand over in between, which
    // is allowed.)
    const client = new KubeClient(env.kubeConfig);
    t.after(() => client.close());
    const renewals = new Set<string>();
    const violations: string[] = [];
    await eventually('four renewals of the Lease', async () => {
      if (leaders(cs).length > 1) violations.push('two leaders');
      for (const c of running(cs)) if (!c.manager.isLeader) violations.push(`${c.identity} runs controllers without leading`);
      renewals.add((await readLease(env, client)).spec?.renewTime ?? '');
      return renewals.size >= 4;
    });
    assert.deepEqual(violations, []);
    for (const c of cs) assert.equal(c.lines.filter((l) => l.includes('lost leadership')).length, 0, `${c.identity} never lost leadership`);
    await client.create({ ...CM, metadata: { name: 'work', namespace: env.namespace } });
    await eventually('a leader reconciles', () => cs.some((c) => c.reconciled.includes(`${env.namespace}/work`)));
    for (const c of cs) assert.deepEqual(c.reconciledWhileNotLeader, [], `${c.identity} reconciled only while leading`);
    const holder = (await readLease(env)).spec?.holderIdentity;
    assert.deepEqual(
      leaders(cs).map((c) => c.identity),
      [holder],
    );
  });

  it('when the leader dies without releasing, the standby takes over once the Lease expires', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const cs = await candidates(t, env, 2);
    await eventually('a leader is elected', () => leaders(cs).length === 1);
    const [dead] = leaders(cs);
    const standby = cs.find((c) => c !== dead);
    assert.ok(dead && standby);
    await dead.manager.stop({ release: false }); // a crash: the Lease still names it
    const afterDeath = await readLease(env);
    assert.equal(afterDeath.spec?.holderIdentity, dead.identity, 'the Lease was not released');

    // Not before the dead holder's record has stayed unchanged for a lease duration: the unit test
    // checks that rule on an injected clock, bench/leader-election.ts measures the takeover.
    await eventually('the standby leads', () => standby.manager.isLeader, LEASE_MS * 4);
    assert.deepEqual(
      running(cs).map((c) => c.identity),
      [standby.identity],
    );
    const lease = await readLease(env);
    assert.equal(lease.spec?.holderIdentity, standby.identity);
    assert.equal(lease.spec?.leaseTransitions, 1);

    const client = new KubeClient(env.kubeConfig);
    t.after(() => client.close());
    await client.create({ ...CM, metadata: { name: 'after', namespace: env.namespace } });
    await eventually('the new leader reconciles', () => standby.reconciled.includes(`${env.namespace}/after`));
    assert.ok(!dead.reconciled.includes(`${env.namespace}/after`));
  });

  it('a graceful stop releases the Lease and the standby takes over without waiting for expiry', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    // A Lease that lasts an hour: a takeover during the test cannot come from its expiry.
    const cs = await candidates(t, env, 2, [
      '--lease-duration',
      '1h',
      '--renew-deadline',
      `${RENEW_MS}ms`,
      '--retry-period',
      `${RETRY_MS}ms`,
    ]);
    await eventually('a leader is elected', () => leaders(cs).length === 1);
    const [old] = leaders(cs);
    const standby = cs.find((c) => c !== old);
    assert.ok(old && standby);
    await old.manager.stop();
    await eventually('the standby leads', () => standby.manager.isLeader);
    const lease = await readLease(env);
    assert.equal(lease.spec?.holderIdentity, standby.identity);
    assert.equal(lease.spec?.leaseTransitions, 1);
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
    const config = testConfig([
      '--namespace',
      env.namespace,
      '--leader-election-namespace',
      env.namespace,
      '--identity',
      'stubborn',
      ...TIMINGS,
    ]);
    const { manager, client, lines } = await runManager(t, env.kubeConfig, spec, config);
    let fatal: Error | undefined;
    void manager.fatal.then((err) => (fatal = err));
    await eventually('it leads', () => manager.isLeader);
    await client.create({ ...CM, metadata: { name: 'stuck', namespace: env.namespace } });
    await eventually('the reconcile hangs', () => started);
    env.server.faults.failNext({ resource: 'leases' }, { status: 500, count: 1_000_000 });
    await eventually('it gives up', () => fatal !== undefined, LEASE_MS * 4);
    const mark = env.server.requestLog.mark();
    assert.equal(manager.isLeader, false);
    assert.deepEqual(manager.runningControllers, []);
    assert.ok(lines.some((l) => l.includes('lost leadership with reconciles still running')));
    // Its election loop has returned: nothing is left that could campaign again.
    await eventually('its campaign to end', () => !manager.campaigning);
    assert.equal(env.server.requestLog.filter({ resource: 'leases' }, mark).length, 0, 'no campaign after giving up');
    env.server.faults.clear();
    assert.equal(manager.isLeader, false);
  });

  it('a leader whose renewals hang steps down and stops its controllers', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    if (!env.server) return t.skip('needs fault injection (not on a real cluster)');
    const [only] = await candidates(t, env, 1);
    assert.ok(only);
    await eventually('it leads', () => only.manager.isLeader);
    await eventually('it renewed at least once', async () => (await readLease(env)).spec?.leaseTransitions === 0 && only.manager.isLeader);
    env.server.faults.delayNext({ resource: 'leases' }, { ms: 60_000, count: 1_000_000 });
    // Within the renew deadline, so before a standby could take the Lease: measured by
    // bench/leader-election.ts (stepdown_ratio).
    await eventually('it steps down', () => !only.manager.isLeader, LEASE_MS * 4);
    assert.deepEqual(only.manager.runningControllers, [], 'its controllers stop with the step-down');
    // Stopped without a release, which would wait for the held Lease requests.
    await only.manager.stop({ release: false });
    env.server.faults.clear();
  });

  it('two electors racing for a fresh Lease never both win', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const clients = [new KubeClient(env.kubeConfig), new KubeClient(env.kubeConfig)];
    t.after(() => {
      for (const c of clients) c.close();
    });
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
