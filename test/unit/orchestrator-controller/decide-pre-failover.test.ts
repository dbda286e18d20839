import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  appliedPositions,
  decidePreFailover,
  letGo,
  PRE_FAILOVER_HOLD_MS,
  preFailoverEvent,
  progressed,
} from '../../../src/controllers/orchestrator-controller/decide-pre-failover.ts';
import { hookCommand, hookTimeoutSeconds } from '../../../src/controllers/orchestrator-controller/hook-request.ts';
import { FailoverSignals, type HookSignal } from '../../../src/controllers/orchestrator-controller/hook-signals.ts';
import { node, podName, replicating, server, unreachable } from '../topology/builders.ts';

// Pod 0 the dead master (unreachable); pods 1 and 2 its replicas.
const dead = node(0, unreachable());
const applying = (ordinal: number) =>
  node(ordinal, server({ replication: replicating(0, { ioState: 'connecting', relayLogApplied: false }) }));
const caughtUp = (ordinal: number) => node(ordinal, server({ replication: replicating(0, { ioState: 'connecting' }) }));

describe('decidePreFailover', () => {
  it('holds while a replica whose SQL thread runs has relay log left, naming each such pod', () => {
    assert.deepEqual(decidePreFailover([dead, applying(1), caughtUp(2)]), { kind: 'hold', pending: [podName(1)] });
    assert.deepEqual(decidePreFailover([dead, applying(1), applying(2)]), { kind: 'hold', pending: [podName(1), podName(2)] });
  });

  it('goes once every replica applied what it fetched', () => {
    assert.deepEqual(decidePreFailover([dead, caughtUp(1), caughtUp(2)]), { kind: 'go' });
  });

  it('does not wait for what cannot apply: a stopped SQL thread, an unreadable server, a pod not running, a server with no source', () => {
    const stopped = node(1, server({ replication: replicating(0, { sqlRunning: false, lastSqlErrno: 1062, relayLogApplied: false }) }));
    assert.deepEqual(decidePreFailover([dead, stopped, node(2, unreachable()), node(3, null), node(4, server())]), { kind: 'go' });
  });
});

describe('how long a call is held', () => {
  const limits = { stallMs: 10_000, holdMs: 60_000 };
  it('goes on holding while the replicas make progress, up to the longest hold', () => {
    assert.equal(letGo({ startedMs: 0, lastProgressMs: 25_000, nowMs: 30_000 }, limits), null);
    assert.equal(letGo({ startedMs: 0, lastProgressMs: 59_000, nowMs: 60_000 }, limits), 'deadline');
  });

  it('lets go once nothing was applied for stallMs', () => {
    assert.equal(letGo({ startedMs: 0, lastProgressMs: 5_000, nowMs: 15_000 }, limits), 'stalled');
    assert.equal(letGo({ startedMs: 0, lastProgressMs: 5_000, nowMs: 14_999 }, limits), null);
  });

  it("progress is a waited-for pod's applied position changing between two polls", () => {
    const at = (gtid: string) => [dead, node(1, server({ replication: replicating(0, { relayLogApplied: false, gtidApplied: gtid }) }))];
    const first = appliedPositions(at('0-100-10'), [podName(1)]);
    assert.deepEqual([...first], [[podName(1), '0-100-10']]);
    assert.equal(progressed(new Map(), first), false, 'the first poll has nothing to compare with');
    assert.equal(progressed(first, appliedPositions(at('0-100-10'), [podName(1)])), false);
    assert.equal(progressed(first, appliedPositions(at('0-100-12'), [podName(1)])), true);
  });
});

describe('preFailoverEvent', () => {
  it('no Event when nothing had to be waited for', () => {
    assert.equal(preFailoverEvent({ kind: 'applied', waitedMs: 12, waited: [] }), null);
  });

  it('a Normal Event names the pods waited for and how long', () => {
    const e = preFailoverEvent({ kind: 'applied', waitedMs: 1234, waited: [podName(1), podName(2)] });
    assert.equal(e?.type, 'Normal');
    assert.equal(e?.reason, 'RelayLogsApplied');
    assert.match(e?.message ?? '', /held 1\.2 s until my-db-mysql-1, my-db-mysql-2 applied/);
  });

  it('a Warning at the deadline and when the servers cannot be read', () => {
    const late = preFailoverEvent({ kind: 'deadline', waitedMs: 60_000, pending: [podName(2)], why: 'deadline' });
    assert.equal(late?.type, 'Warning');
    assert.match(late?.message ?? '', /let go after 60\.0 s \(the longest hold\) with my-db-mysql-2 still applying/);
    const stalled = preFailoverEvent({ kind: 'deadline', waitedMs: 10_500, pending: [podName(1)], why: 'stalled' });
    assert.match(stalled?.message ?? '', /after 10\.5 s \(they applied nothing for a while\)/);
    const unread = preFailoverEvent({ kind: 'unread', message: 'Secret my-db-mysql-operated does not exist yet' });
    assert.equal(unread?.type, 'Warning');
    assert.match(unread?.message ?? '', /not held: .*does not exist yet/);
  });
});

describe('the hook command of a held call', () => {
  it("PreFailover's curl waits past the hold; the other calls keep their short limit", () => {
    assert.ok(hookTimeoutSeconds('PreFailover') * 1000 > PRE_FAILOVER_HOLD_MS);
    assert.equal(hookTimeoutSeconds('PostMasterFailover'), 2);
    const cmd = hookCommand({ operatorUrl: 'http://op:8080', process: 'PreFailover', secretFile: '/s' });
    assert.match(cmd, new RegExp(`--max-time ${hookTimeoutSeconds('PreFailover')} `));
  });
});

describe('FailoverSignals.renew', () => {
  it("restarts a held call's clock, unless a newer call came since", () => {
    const signals = new FailoverSignals();
    const pre: HookSignal = { process: 'PreFailover', clusterKey: 'default/my-db', at: new Date(0) };
    signals.record(pre);
    assert.equal(signals.renew(pre), true);
    const renewed = signals.latest('default/my-db');
    assert.equal(renewed?.process, 'PreFailover');
    assert.ok((renewed?.at.getTime() ?? 0) > 0);
    const post: HookSignal = { process: 'PostMasterFailover', clusterKey: 'default/my-db', at: new Date() };
    signals.record(post);
    assert.equal(signals.renew(renewed!), false);
    assert.equal(signals.latest('default/my-db'), post);
  });
});
