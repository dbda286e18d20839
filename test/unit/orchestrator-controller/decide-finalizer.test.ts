import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FINALIZER_ORCHESTRATOR } from '../../../src/api/constants.ts';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { decideFinalizer } from '../../../src/controllers/orchestrator-controller/decide-finalizer.ts';
import { decideRegistration } from '../../../src/controllers/orchestrator-controller/decide-registration.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import { NOW, healthy, instance, mysqlCluster, reachable } from './builders.ts';

const TIMEOUT = 5 * 60_000;

function withCluster(g: Gathered, o: { finalizer?: boolean; deletedMsAgo?: number }): Gathered {
  const c: MysqlCluster = mysqlCluster();
  c.metadata = {
    ...c.metadata,
    ...(o.finalizer ? { finalizers: ['other.example/keep', FINALIZER_ORCHESTRATOR] } : {}),
    ...(o.deletedMsAgo !== undefined ? { deletionTimestamp: new Date(NOW.getTime() - o.deletedMsAgo) } : {}),
  };
  return { ...g, cluster: c };
}

const decide = (g: Gathered) => decideFinalizer(g, decideRegistration(g, 60_000), TIMEOUT);
const down: Gathered['orchestrator'] = { kind: 'unreachable', message: 'orchestrator GET /master/x: ECONNREFUSED' };

describe('decideFinalizer', () => {
  it('adds the finalizer before the first registration, and only then', () => {
    assert.deepEqual(decide(withCluster(healthy({ orchestrator: reachable() }), {})), { kind: 'add' });
    assert.deepEqual(decide(withCluster(healthy(), {})), { kind: 'add' });
    assert.deepEqual(decide(withCluster(healthy(), { finalizer: true })), { kind: 'none' });
  });

  it('never adds it while Orchestrator is unreachable: a cluster never registered never waits on it', () => {
    assert.deepEqual(decide(withCluster(healthy({ orchestrator: down }), {})), { kind: 'none' });
  });

  it('on deletion forgets every instance Orchestrator knows for the cluster', () => {
    const instances = [instance(0, null), instance(1, 0), instance(2, 0), instance(3, 0)];
    const d = decide(
      withCluster(healthy({ orchestrator: reachable({ master: instances[0]!, instances }) }), { finalizer: true, deletedMsAgo: 0 }),
    );
    assert.deepEqual(d.kind === 'forget' && d.keys.map((k) => k.host.split('.')[0]), [
      'my-db-mysql-0',
      'my-db-mysql-1',
      'my-db-mysql-2',
      'my-db-mysql-3',
    ]);
  });

  it('while Orchestrator is unreachable, waits for it until the timeout, then lets the cluster go without forgetting', () => {
    const waiting = decide(withCluster(healthy({ orchestrator: down }), { finalizer: true, deletedMsAgo: 60_000 }));
    assert.equal(waiting.kind, 'wait');
    assert.equal(waiting.kind === 'wait' && waiting.reason, 'OrchestratorUnreachable');
    assert.match(waiting.kind === 'wait' ? waiting.message : '', /removed anyway 240s from now/);
    const released = decide(withCluster(healthy({ orchestrator: down }), { finalizer: true, deletedMsAgo: TIMEOUT }));
    assert.equal(released.kind === 'release' && released.reason, 'ForgetAbandoned');
    assert.match(released.kind === 'release' ? released.message : '', /my-db-mysql-0\.mysql\.default:3306/);
  });

  it('does nothing for a deleted cluster without its finalizer', () => {
    assert.deepEqual(decide(withCluster(healthy({ orchestrator: down }), { deletedMsAgo: 0 })), { kind: 'none' });
  });
});
