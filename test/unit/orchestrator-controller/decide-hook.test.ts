import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideFailover } from '../../../src/controllers/orchestrator-controller/decide-failover.ts';
import {
  decideHook,
  FAST_POLL_MS,
  freshHook,
  PRE_FAILOVER_FRESH_MS,
  PRE_TAKEOVER_FRESH_MS,
  SUCCESSOR_WAIT_MS,
  superseded,
} from '../../../src/controllers/orchestrator-controller/decide-hook.ts';
import type { HookProcess, HookSignal } from '../../../src/controllers/orchestrator-controller/hook-signals.ts';
import { NOW, fqdn, healthy } from './builders.ts';

const msAgo = (ms: number) => new Date(NOW.getTime() - ms);

function signal(process: HookProcess, over: Partial<HookSignal> = {}): HookSignal {
  return { process, clusterKey: 'default/my-db', failed: `${fqdn(0)}:3306`, at: msAgo(100), ...over };
}

describe('freshHook', () => {
  it('keeps a PreFailover call for PRE_FAILOVER_FRESH_MS and a Post* call for SUCCESSOR_WAIT_MS', () => {
    assert.ok(freshHook(signal('PreFailover', { at: msAgo(PRE_FAILOVER_FRESH_MS) }), NOW));
    assert.equal(freshHook(signal('PreFailover', { at: msAgo(PRE_FAILOVER_FRESH_MS + 1) }), NOW), undefined);
    assert.ok(freshHook(signal('PostMasterFailover', { at: msAgo(SUCCESSOR_WAIT_MS) }), NOW));
    assert.equal(freshHook(signal('PostMasterFailover', { at: msAgo(SUCCESSOR_WAIT_MS + 1) }), NOW), undefined);
    assert.equal(freshHook(undefined, NOW), undefined);
  });

  // 3.2.6 freezes the master after PreGracefulTakeover and shows the recovery only once the designated
  // replica caught up, up to 20 s later (ReasonableMaintenanceReplicationLagSeconds).
  it('keeps a PreGracefulTakeover call for PRE_TAKEOVER_FRESH_MS, longer than 3.2.6 waits for the designated replica', () => {
    assert.ok(PRE_TAKEOVER_FRESH_MS > 20_000);
    assert.ok(freshHook(signal('PreGracefulTakeover', { at: msAgo(PRE_TAKEOVER_FRESH_MS) }), NOW));
    assert.equal(freshHook(signal('PreGracefulTakeover', { at: msAgo(PRE_TAKEOVER_FRESH_MS + 1) }), NOW), undefined);
  });
});

describe('a PreGracefulTakeover call', () => {
  const call = signal('PreGracefulTakeover', { successor: `${fqdn(1)}:3306` });
  it('is a failover in progress (nothing made writable, registered or acknowledged meanwhile) and kept, not settled, though it names a successor', () => {
    const f = decideFailover(healthy({ hook: call }));
    assert.equal(f?.inProgress, true);
    assert.deepEqual(decideHook(call, fqdn(0), NOW), { kind: 'keep' });
  });
});

describe('decideHook', () => {
  const successor = `${fqdn(1)}:3306`;

  it('polls fast while the successor of a Post* call is not labelled master', () => {
    assert.deepEqual(decideHook(signal('PostMasterFailover', { successor }), fqdn(0), NOW), { kind: 'poll', afterMs: FAST_POLL_MS });
    assert.deepEqual(decideHook(signal('PostGracefulTakeover', { successor }), undefined, NOW), { kind: 'poll', afterMs: FAST_POLL_MS });
  });

  it('settles once the successor carries role=master, with the seconds since the call', () => {
    assert.deepEqual(decideHook(signal('PostMasterFailover', { successor, at: msAgo(180) }), fqdn(1), NOW), {
      kind: 'settle',
      landedSeconds: 0.18,
    });
  });

  it('settles an unsuccessful failover and a call without a successor at once; keeps a PreFailover', () => {
    assert.deepEqual(decideHook(signal('PostUnsuccessfulFailover'), fqdn(0), NOW), { kind: 'settle' });
    assert.deepEqual(decideHook(signal('PostMasterFailover'), fqdn(0), NOW), { kind: 'settle' });
    assert.deepEqual(decideHook(undefined, fqdn(0), NOW), { kind: 'none' });
  });

  it('polls fast after a PreFailover call until SUCCESSOR_WAIT_MS have passed, then keeps it until it is stale', () => {
    assert.deepEqual(decideHook(signal('PreFailover'), fqdn(0), NOW), { kind: 'poll', afterMs: FAST_POLL_MS });
    assert.deepEqual(decideHook(signal('PreFailover', { at: msAgo(SUCCESSOR_WAIT_MS + 1) }), fqdn(0), NOW), { kind: 'keep' });
    assert.deepEqual(decideHook(undefined, fqdn(0), NOW), { kind: 'none' });
  });
});

describe('decideFailover with a hook call', () => {
  it("is in progress while a fresh PreFailover call announces a failover Orchestrator's API does not show yet", () => {
    const f = decideFailover(healthy({ hook: signal('PreFailover') }));
    assert.equal(f?.inProgress, true);
    assert.match(f?.inProgress ? f.message : '', /PreFailover hook announced a failover of my-db-mysql-0\.mysql\.default:3306/);
  });

  it('is not in progress after a Post* call when Orchestrator shows no failover', () => {
    assert.deepEqual(decideFailover(healthy({ hook: signal('PostMasterFailover', { successor: `${fqdn(1)}:3306` }) })), {
      inProgress: false,
    });
  });
});

describe('superseded', () => {
  it('stops a pass once a hook call came after it gathered, not for the call it gathered nor one it settled', () => {
    const pre = signal('PreFailover');
    const post = signal('PostMasterFailover', { successor: `${fqdn(2)}:3306` });
    assert.equal(superseded(pre, pre), false, 'the call the pass gathered');
    assert.equal(superseded(pre, undefined), false, 'settled since');
    assert.equal(superseded(undefined, undefined), false, 'no call at all');
    assert.equal(superseded(pre, post), true, 'a Post* call after a PreFailover pass gathered');
    assert.equal(superseded(undefined, post), true, 'the first call, during a timer pass');
  });
});
