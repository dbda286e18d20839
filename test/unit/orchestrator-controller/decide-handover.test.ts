import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideHandover } from '../../../src/controllers/orchestrator-controller/decide-handover.ts';
import { decideMaster } from '../../../src/controllers/orchestrator-controller/decide-master.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import { analysis, fqdn, healthy, instance, masterServer, mysqlCluster, node, pod, podName, reachable, replicaServer } from './builders.ts';

/** Five pods, the master on pod `m`, every other pod replicating from it; spec.replicas `wanted`. */
function fiveWithMasterOn(m: number, wanted: number, over: (i: number) => Parameters<typeof instance>[2] = () => ({})): Gathered {
  const ordinals = [0, 1, 2, 3, 4];
  const instances = ordinals.map((i) => instance(i, i === m ? null : m, over(i)));
  return healthy({
    cluster: mysqlCluster({ replicas: wanted }),
    pods: ordinals.map((i) => pod(i)),
    servers: ordinals.map((i) => node(i, i === m ? masterServer() : replicaServer(m))),
    orchestrator: reachable({ master: instances[m]!, instances }),
  });
}

const decide = (g: Gathered) => decideHandover(g, decideMaster(g));

describe('decideHandover', () => {
  it('does nothing while the master stays, or when nothing stays (a scale to 0)', () => {
    assert.deepEqual(decide(fiveWithMasterOn(1, 2)), { kind: 'none' });
    assert.deepEqual(decide(fiveWithMasterOn(4, 5)), { kind: 'none' });
    assert.deepEqual(decide(fiveWithMasterOn(4, 0)), { kind: 'none' });
  });

  it('hands a master the scale-down removes to the least lagging replica that stays, the lowest ordinal on a tie', () => {
    const d = decide(fiveWithMasterOn(4, 2, (i) => ({ lagSeconds: i === 0 ? 3 : 0 })));
    assert.equal(d.kind, 'takeover');
    if (d.kind !== 'takeover') return;
    assert.equal(d.designated.host, fqdn(1));
    assert.deepEqual([d.from, d.to], [podName(4), podName(1)]);
    assert.match(d.message, /ordinal 4, which spec.replicas 2 removes/);
    const tie = decide(fiveWithMasterOn(4, 3));
    assert.equal(tie.kind === 'takeover' && tie.designated.host, fqdn(0));
  });

  it('never names a pod the same scale-down removes, however far ahead it is', () => {
    const d = decide(fiveWithMasterOn(4, 2, (i) => ({ lagSeconds: i < 2 ? 30 : 0 })));
    assert.equal(d.kind === 'takeover' && d.designated.host, fqdn(0));
  });

  it('holds, naming each staying pod and why it cannot take the master, when none replicates cleanly from it', () => {
    const d = decide(fiveWithMasterOn(4, 2, (i) => (i === 0 ? { sqlThreadRunning: false } : i === 1 ? { lastCheckValid: false } : {})));
    assert.equal(d.kind, 'hold');
    if (d.kind !== 'hold') return;
    assert.equal(d.reason, 'NoHandoverCandidate');
    assert.match(d.message, /mysql-0: its replication is not running; .*mysql-1: Orchestrator's last check of it failed/);
  });

  it('leaves a replica that replicates from another server, or is downtimed, out', () => {
    const d = decide(
      fiveWithMasterOn(4, 2, (i) => (i === 0 ? { master: { host: fqdn(3), port: 3306 } } : i === 1 ? { downtimed: true } : {})),
    );
    assert.equal(d.kind, 'hold');
    assert.match(d.kind === 'hold' ? d.message : '', /mysql-0: it does not replicate from the master; .*mysql-1: it is downtimed/);
  });

  it('holds while Orchestrator detects a failure or recovers, and does nothing without a master verdict', () => {
    const g = fiveWithMasterOn(4, 2);
    const failing: Gathered = {
      ...g,
      orchestrator: {
        ...(g.orchestrator as Extract<Gathered['orchestrator'], { kind: 'reachable' }>),
        analysis: [analysis(3, 'DeadMaster')],
      },
    };
    assert.equal(decideHandover(failing, decideMaster(g)).kind, 'hold');
    assert.deepEqual(decideHandover(g, { kind: 'none', reason: 'NoMaster', message: '' }), { kind: 'none' });
  });
});
