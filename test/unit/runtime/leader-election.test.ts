// LeaderElector on an in-memory Lease: the rules of tryAcquireOrRenew on an injected clock (a
// held Lease is taken only after its record stayed unchanged for the lease duration on the
// candidate's own clock, a released one at once), and a leader's renewals. (Against the API
// server: test/integration/runtime/leader-election.test.ts; durations: bench/leader-election.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import { ConflictError } from '../../../src/runtime/kube/errors.ts';
import { LeaderElector, type Lease, type LeaderElectionOptions } from '../../../src/runtime/leader-election.ts';
import type { Logger } from '../../../src/runtime/logger.ts';
import { eventually } from '../../support/wait.ts';

/** One Lease in memory, with resourceVersion checks on update: the calls LeaderElector makes. */
function leaseStore(initial: Lease['spec']) {
  let lease: Lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'ns', resourceVersion: '1' },
    spec: initial,
  };
  let rv = 1;
  const client = {
    getIfExists: async () => structuredClone(lease),
    create: async () => {
      throw new Error('the Lease exists');
    },
    update: async (next: Lease) => {
      if (next.metadata?.resourceVersion !== lease.metadata?.resourceVersion) throw new ConflictError('PUT', '/lease', 409, undefined);
      lease = { ...structuredClone(next), metadata: { ...next.metadata, resourceVersion: String(++rv) } };
      return structuredClone(lease);
    },
  };
  return {
    client: client as unknown as KubeClient,
    get: () => lease,
    /** The holder renews: its record changes. */
    updates: () => rv,
    renew: (at: string) => {
      lease = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++rv) }, spec: { ...lease.spec, renewTime: at } };
    },
  };
}

function candidate(client: KubeClient, clock: { ms: number }, hooks: Partial<LeaderElectionOptions> = {}): LeaderElector {
  return new LeaderElector({
    client,
    namespace: 'ns',
    name: 'l',
    identity: 'me',
    leaseDurationMs: 10_000,
    renewDeadlineMs: 8_000,
    retryPeriodMs: 2_000,
    onStartedLeading: () => {},
    onStoppedLeading: () => {},
    now: () => clock.ms,
    ...hooks,
  });
}

const HELD = {
  holderIdentity: 'other',
  leaseDurationSeconds: 10,
  acquireTime: '2026-01-01T00:00:00.000000Z',
  renewTime: '2026-01-01T00:00:00.000000Z',
  leaseTransitions: 3,
};

describe('LeaderElector', () => {
  it('takes a held Lease only once its record has been unchanged for the lease duration, counted from when it last changed', async () => {
    const store = leaseStore(HELD);
    const clock = { ms: 1_000 };
    const me = candidate(store.client, clock);
    assert.equal(await me.tryAcquireOrRenew(), false, 'first sight of the record');
    clock.ms += 9_999;
    assert.equal(await me.tryAcquireOrRenew(), false, 'not yet a lease duration');
    store.renew('2026-01-01T00:00:09.000000Z');
    clock.ms += 2;
    assert.equal(await me.tryAcquireOrRenew(), false, 'the holder renewed: the count starts again');
    clock.ms += 10_000;
    assert.equal(await me.tryAcquireOrRenew(), false, 'exactly a lease duration is not past it');
    assert.equal(store.get().spec?.holderIdentity, 'other');
    clock.ms += 1;
    assert.equal(await me.tryAcquireOrRenew(), true, 'expired on our clock');
    assert.equal(store.get().spec?.holderIdentity, 'me');
    assert.equal(store.get().spec?.leaseTransitions, 4);
    assert.notEqual(store.get().spec?.acquireTime, HELD.acquireTime);
  });

  it('takes a released Lease (no holder) at once, and renews its own without a new transition', async () => {
    const store = leaseStore({ ...HELD, holderIdentity: null, leaseDurationSeconds: 1 });
    const clock = { ms: 1_000 };
    const me = candidate(store.client, clock);
    assert.equal(await me.tryAcquireOrRenew(), true);
    const acquired = store.get().spec;
    assert.equal(acquired?.holderIdentity, 'me');
    assert.equal(acquired?.leaseDurationSeconds, 10);
    clock.ms += 2_000;
    assert.equal(await me.tryAcquireOrRenew(), true);
    assert.equal(store.get().spec?.leaseTransitions, acquired?.leaseTransitions);
    assert.equal(store.get().spec?.acquireTime, acquired?.acquireTime);
  });

  it('a leader renews at every retry and keeps leading while the API answers (real timers, fractional deadlines)', async () => {
    const store = leaseStore({ ...HELD, holderIdentity: null });
    const warnings: string[] = [];
    const log = {
      warn: (m: string, f?: unknown) => warnings.push(`${m} ${JSON.stringify(f)}`),
      info: () => {},
      error: () => {},
      debug: () => {},
    } as unknown as Logger;
    let stopped = 0;
    const abort = new AbortController();
    // The real monotonic clock: the time left before the renew deadline is fractional.
    const me = new LeaderElector({
      client: store.client,
      namespace: 'ns',
      name: 'l',
      identity: 'me',
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 5,
      log,
      onStartedLeading: () => {},
      onStoppedLeading: () => void stopped++,
    });
    const loop = me.run(abort.signal);
    const start = store.updates();
    await eventually('ten renewals', () => store.updates() >= start + 10);
    abort.abort();
    await loop;
    assert.deepEqual(warnings, []);
    assert.equal(stopped, 1, 'stepped down once, at the abort');
  });
});
