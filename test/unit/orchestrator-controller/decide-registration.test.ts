import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideRegistration, type Registration } from '../../../src/controllers/orchestrator-controller/decide-registration.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import { NOW, analysis, fqdn, healthy, instance, pod, podName, reachable } from './builders.ts';

const GRACE = 5 * 60_000;
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

function brief(r: Registration) {
  return {
    discover: r.discover.map((k) => k.host),
    forget: r.forget.map((k) => k.host),
    held: r.held.map((h) => `${h.key.host} ${h.reason}`),
  };
}

/** Orchestrator knows `instances`; pod 0 is its master. */
function knowing(
  instances: ReturnType<typeof instance>[],
  over: Partial<Gathered> = {},
  analyses: ReturnType<typeof analysis>[] = [],
): Gathered {
  return healthy({ orchestrator: reachable({ master: instances[0]!, instances, analysis: analyses }), ...over });
}

describe('decideRegistration', () => {
  it('discovers running pods Orchestrator does not know, with their FQDN and port 3306', () => {
    const g = knowing([instance(0, null)], { pods: [pod(0), pod(1), pod(2, { running: false })] });
    const r = decideRegistration(g, GRACE);
    assert.deepEqual(brief(r), { discover: [fqdn(1)], forget: [], held: [] });
    assert.equal(r.discover[0]?.port, 3306);
  });

  it('forgets an instance without a pod once Orchestrator has not seen it for the grace period', () => {
    const instances = [
      instance(0, null),
      instance(1, 0),
      instance(2, 0),
      instance(3, 0, { lastSeen: minutesAgo(6) }),
      instance(4, 0, { lastSeen: minutesAgo(1) }),
    ];
    assert.deepEqual(brief(decideRegistration(knowing(instances), GRACE)), {
      discover: [],
      forget: [fqdn(3)],
      held: [`${fqdn(4)} ForgetGracePeriod`],
    });
  });

  it('never forgets during a failover', () => {
    const instances = [
      instance(0, null, { lastCheckValid: false }),
      instance(1, 0),
      instance(2, 0),
      instance(3, 0, { lastSeen: minutesAgo(60) }),
    ];
    const r = decideRegistration(knowing(instances, {}, [analysis(0, 'DeadMaster')]), GRACE);
    assert.deepEqual(brief(r), { discover: [], forget: [], held: [`${fqdn(3)} FailoverInProgress`] });
  });

  it('keeps the instance of a pod being deleted and does not discover it', () => {
    const g = knowing([instance(0, null), instance(1, 0, { lastSeen: minutesAgo(60) })], {
      pods: [pod(0), pod(1, { deleting: true }), pod(2, { deleting: true })],
    });
    assert.deepEqual(brief(decideRegistration(g, GRACE)), { discover: [], forget: [], held: [] });
  });

  it('keeps an instance without a pod while pods of the cluster still replicate from it: a master for Orchestrator to recover', () => {
    // Pod 2 was the master and went before it was handed over; pods 0 and 1 still point at it.
    const instances = [instance(2, null, { lastSeen: minutesAgo(60), lastCheckValid: false }), instance(0, 2), instance(1, 0)];
    const g = knowing(instances, { pods: [pod(0), pod(1)] });
    assert.deepEqual(brief(decideRegistration(g, GRACE)), { discover: [], forget: [], held: [`${fqdn(2)} InstanceHasReplicas`] });
    const message = decideRegistration(g, GRACE).held[0]?.message ?? '';
    assert.ok(message.includes(`but ${podName(0)} still replicates from it`), message);
    // Once they replicate from a pod that stays, it goes.
    const moved = knowing([instance(0, null), instance(1, 0), instance(2, null, { lastSeen: minutesAgo(60) })], { pods: [pod(0), pod(1)] });
    assert.deepEqual(brief(decideRegistration(moved, GRACE)).forget, [fqdn(2)]);
  });

  it('does nothing while Orchestrator is unreachable', () => {
    const g = healthy({ orchestrator: { kind: 'unreachable', message: 'connect ECONNREFUSED' } });
    assert.deepEqual(brief(decideRegistration(g, GRACE)), { discover: [], forget: [], held: [] });
  });
});
