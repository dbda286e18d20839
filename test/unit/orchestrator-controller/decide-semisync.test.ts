import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANNOTATION_DEFAULTS, CLUSTER_REASONS } from '../../../src/api/index.ts';
import { decideMaster } from '../../../src/controllers/orchestrator-controller/decide-master.ts';
import {
  decideSemiSync,
  semiSyncCondition,
  type SemiSyncDecision,
} from '../../../src/controllers/orchestrator-controller/decide-semisync.ts';
import { podNodes, type Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import { replicationSettings } from '../../../src/controllers/shared/replication-mode.ts';
import type { SemiSyncState } from '../../../src/mysql/index.ts';
import { healthy, instance, master, mysqlCluster, node, reachable, replicaServer, unreachable } from './builders.ts';

function lossless(g: Gathered): Gathered {
  return { ...g, cluster: { ...g.cluster, metadata: { ...g.cluster.metadata, annotations: { [ANNOTATION_DEFAULTS]: 'lossless' } } } };
}

function decide(g: Gathered): SemiSyncDecision {
  return decideSemiSync(replicationSettings(g.cluster), decideMaster(g), podNodes(g));
}

function roles(d: SemiSyncDecision): string[] {
  assert.equal(d.kind, 'set');
  return d.kind === 'set'
    ? d.targets.map((t) => `${t.node.pod.ordinal} ${t.role} master=${t.wanted.master} replica=${t.wanted.replica}`)
    : [];
}

describe('decideSemiSync', () => {
  it('leaves an adopted cluster (no annotation, no spec.replication) alone', () => {
    assert.deepEqual(decide(healthy()), { kind: 'unmanaged' });
  });

  it('a lossless cluster: the master side on the master, the replica side on each replica', () => {
    assert.deepEqual(roles(decide(lossless(healthy()))), [
      '0 master master=true replica=false',
      '1 replica master=false replica=true',
      '2 replica master=false replica=true',
    ]);
  });

  it('follows the role after a failover: pod 1 is the master now, the old master a replica', () => {
    const instances = [instance(0, 1), instance(1, null), instance(2, 1)];
    const g = lossless(
      healthy({
        servers: [node(0, replicaServer(1)), node(1, master()), node(2, replicaServer(1))],
        orchestrator: reachable({ master: instances[1]!, instances }),
      }),
    );
    assert.deepEqual(roles(decide(g)), [
      '0 replica master=false replica=true',
      '1 master master=true replica=false',
      '2 replica master=false replica=true',
    ]);
  });

  it('a master whose replicas do not replicate yet (a new cluster) is not turned on, nor off: keep', () => {
    const g = lossless(healthy({ servers: [node(0, master()), node(1, unreachable()), node(2, unreachable())] }));
    const d = decide(g);
    assert.equal(d.kind === 'set' ? d.targets[0]?.wanted.master : undefined, 'keep');
  });

  it('async chosen in the spec turns both sides off everywhere; an unreachable server is skipped', () => {
    const g = healthy({ cluster: mysqlCluster({ replication: { mode: 'async' } }) });
    g.servers = [g.servers[0]!, node(1, unreachable()), g.servers[2]!];
    assert.deepEqual(roles(decide(g)), ['0 master master=false replica=false', '2 replica master=false replica=false']);
  });
});

describe('semiSyncCondition', () => {
  const settings = replicationSettings(mysqlCluster({ replication: { mode: 'semiSync' } }));
  const state = (o: Partial<SemiSyncState>): SemiSyncState => ({
    pluginsInstalled: { master: true, replica: true },
    masterEnabled: true,
    replicaEnabled: false,
    waitPoint: 'AFTER_SYNC',
    timeoutMs: 1n,
    acks: undefined,
    masterActive: true,
    waitSessions: 0,
    clients: 1,
    replicaActive: false,
    ...o,
  });

  it('True with SemiSyncNoAck while sessions wait or too few replicas are connected', () => {
    const waiting = semiSyncCondition(settings, 'db-0', state({ waitSessions: 2 }));
    assert.deepEqual(
      [waiting.status, waiting.reason, waiting.waiting, waiting.waitSessions],
      ['True', CLUSTER_REASONS.semiSyncNoAck, true, 2],
    );
    assert.match(waiting.message, /price of losing nothing/);
    assert.equal(semiSyncCondition(settings, 'db-0', state({ clients: 0 })).reason, CLUSTER_REASONS.semiSyncNoAck);
    assert.equal(
      semiSyncCondition(settings, 'db-0', state({ waitSessions: 2 })).message,
      semiSyncCondition(settings, 'db-0', state({ waitSessions: 5 })).message,
      'a stable message: no status write per pass',
    );
  });

  it('False when replicas acknowledge, when async, and SemiSyncFellBack only when a fallback is allowed', () => {
    assert.equal(semiSyncCondition(settings, 'db-0', state({})).reason, CLUSTER_REASONS.semiSyncAcknowledged);
    assert.equal(
      semiSyncCondition(settings, 'db-0', state({ masterEnabled: false, masterActive: false, clients: 0 })).reason,
      CLUSTER_REASONS.semiSyncPending,
      'not on yet: nothing waits',
    );
    assert.equal(
      semiSyncCondition(replicationSettings(mysqlCluster({ replication: { mode: 'async' } })), 'db-0', undefined).reason,
      CLUSTER_REASONS.semiSyncOff,
    );
    const fallback = replicationSettings(mysqlCluster({ replication: { mode: 'semiSync', semiSyncFallbackSeconds: 10 } }));
    assert.equal(semiSyncCondition(fallback, 'db-0', state({ masterActive: false })).reason, CLUSTER_REASONS.semiSyncFellBack);
  });
});
