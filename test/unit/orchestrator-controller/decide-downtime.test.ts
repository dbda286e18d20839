import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideDowntime } from '../../../src/controllers/orchestrator-controller/decide-downtime.ts';
import { decideStatus } from '../../../src/controllers/orchestrator-controller/decide-status.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import type { Instance } from '../../../src/orchestrator/index.ts';
import type { ServerView } from '../../../src/topology/index.ts';
import {
  analysis,
  fqdn,
  healthy,
  instance,
  master,
  node,
  reachable,
  recovery,
  replicaServer,
  replicating,
  server,
  unreachable,
} from './builders.ts';

// As Orchestrator 3.2.6 reported the old master after a failover (hooks/failover-auto_instance_old-master.json).
const LOST = { downtimed: true, downtimeReason: 'lost-in-recovery', downtimeOwner: 'mysql-operator-orc-0' } as const;

function decide(g: Gathered) {
  return decideDowntime(g, decideStatus(g).status.nodes);
}

function ended(g: Gathered): string[] {
  return decide(g).end.map((e) => e.key.host);
}

/**
 * After a failover from pod 0 to pod 1: pod 1 the master, pod 2 its replica, pod 0 (the old
 * master, downtimed lost-in-recovery) as given by `old` and its server by `oldServer`.
 */
function afterFailover(old: Partial<Instance> & { of?: number | null }, oldServer: ServerView = replicaServer(1)): Gathered {
  const { of = 1, ...over } = old;
  const instances = [instance(0, of, { ...LOST, ...over }), instance(1, null), instance(2, 1)];
  return healthy({
    servers: [node(0, oldServer), node(1, master()), node(2, replicaServer(1))],
    orchestrator: reachable({ master: instances[1]!, instances, recoveries: [recovery(1, 0, 1)] }),
  });
}

describe('decideDowntime', () => {
  it('ends the lost-in-recovery downtime of an old master once it is a healthy replica of the new master', () => {
    const d = decide(afterFailover({}));
    assert.deepEqual(
      d.end.map((e) => e.key.host),
      [fqdn(0)],
    );
    assert.match(d.end[0]!.message, new RegExp(`replicates from ${fqdn(1).replaceAll('.', '\\.')}:3306, caught up and read-only`));
    assert.equal(d.held, undefined);
  });

  it('does nothing on a healthy cluster with no downtime', () => {
    assert.deepEqual(decide(healthy()), { end: [] });
  });

  it('never ends a backup downtime or one a person began', () => {
    const backup = afterFailover({ downtimeReason: 'backup default/my-db-auto-1', downtimeOwner: 'mysql-operator' });
    assert.deepEqual(decide(backup), { end: [] });
    const maintenance = afterFailover({ downtimeReason: 'maintenance-test', downtimeOwner: 'lab-operator' });
    assert.deepEqual(decide(maintenance), { end: [] });
  });

  it('keeps it, saying why, while the old master is down, writable, lagging, or replicating from another server', () => {
    const cases: [string, Gathered][] = [
      ['down', afterFailover({ of: null, lastCheckValid: false, recentlyChecked: false }, unreachable())],
      ['alone in its own cluster, writable', afterFailover({ of: null, readOnly: false }, master())],
      ['lagging', afterFailover({ lagSeconds: 3600 })],
      ['replication stopped', afterFailover({}, server({ configured: true, replication: replicating(1, { ioState: 'stopped' }) }))],
      ['from the old topology', afterFailover({ of: 2 })],
    ];
    for (const [what, g] of cases) {
      const d = decide(g);
      assert.deepEqual(d.end, [], what);
      assert.equal(d.held?.reason, 'RejoinPending', what);
      assert.match(d.held?.message ?? '', new RegExp(`${fqdn(0).replaceAll('.', '\\.')}:3306 \\(`), what);
    }
  });

  it('ends it for an old master promoted again while still downtimed, whose failure would go unrecovered', () => {
    const instances = [instance(0, null, LOST), instance(1, 0), instance(2, 0)];
    assert.deepEqual(ended(healthy({ orchestrator: reachable({ master: instances[0]!, instances }) })), [fqdn(0)]);
  });

  it('holds while Orchestrator fails over, and says nothing while it is unreachable or names no master', () => {
    const g = afterFailover({});
    const failing = { ...g, orchestrator: { ...g.orchestrator, analysis: [analysis(1, 'DeadMaster')] } as Gathered['orchestrator'] };
    assert.deepEqual(decide(failing).end, []);
    assert.equal(decide(failing).held?.reason, 'FailoverInProgress');
    assert.deepEqual(decide({ ...g, orchestrator: { kind: 'unreachable', message: 'timeout of 5000ms exceeded' } }), { end: [] });
    assert.deepEqual(
      decide({ ...g, orchestrator: { ...g.orchestrator, master: null } as Gathered['orchestrator'] }),
      { end: [] },
      'no master: the labels say so',
    );
  });
});
