import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideLabels, labelRounds, type LabelPatch } from '../../../src/controllers/orchestrator-controller/decide-labels.ts';
import { decideStatus } from '../../../src/controllers/orchestrator-controller/decide-status.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import {
  healthy,
  instance,
  master,
  mysqlCluster,
  node,
  pod,
  podName,
  reachable,
  replicaServer,
  replicating,
  server,
  unreachable,
} from './builders.ts';

function labels(g: Gathered) {
  return decideLabels(g, decideStatus(g).status.nodes);
}

function text(patches: readonly LabelPatch[]): string[] {
  return patches.map((p) => `${p.pod} role=${p.labels.role} healthy=${p.labels.healthy}`);
}

/** Every prefix of the patches, applied to the pods' labels in order, leaves at most one master. */
function assertNeverTwoMasters(g: Gathered, patches: readonly LabelPatch[]): void {
  const roles = new Map(g.pods.map((p) => [p.metadata?.name ?? '', p.metadata?.labels?.role]));
  const masters = () => [...roles.values()].filter((r) => r === 'master').length;
  assert.ok(masters() <= 1, 'before any patch');
  for (const p of patches) {
    roles.set(p.pod, p.labels.role);
    assert.ok(masters() <= 1, `after ${p.pod}`);
  }
}

/** After a failover from pod 0 to pod 2: Orchestrator names 2, which is writable; 1 follows 2; 0 is dead. */
function afterFailover(): Gathered {
  const instances = [instance(0, null, { lastCheckValid: false }), instance(1, 2), instance(2, null)];
  return healthy({
    pods: [
      pod(0, { role: 'master', healthy: 'yes' }),
      pod(1, { role: 'replica', healthy: 'yes' }),
      pod(2, { role: 'replica', healthy: 'yes' }),
    ],
    servers: [node(0, unreachable()), node(1, server({ configured: true, replication: replicating(2) })), node(2, master())],
    orchestrator: reachable({ master: instances[2]!, instances }),
  });
}

describe('decideLabels', () => {
  it('labels replicas first and the master last', () => {
    const d = labels(healthy());
    assert.deepEqual(text(d.patches), [
      `${podName(1)} role=replica healthy=yes`,
      `${podName(2)} role=replica healthy=yes`,
      `${podName(0)} role=master healthy=yes`,
    ]);
    assert.equal(d.noMaster, undefined);
  });

  it('patches nothing when the labels are right', () => {
    const g = healthy({
      pods: [
        pod(0, { role: 'master', healthy: 'yes' }),
        pod(1, { role: 'replica', healthy: 'yes' }),
        pod(2, { role: 'replica', healthy: 'yes' }),
      ],
    });
    assert.deepEqual(labels(g).patches, []);
  });

  it('after a failover removes the old master label before setting the new one', () => {
    const g = afterFailover();
    const d = labels(g);
    assert.deepEqual(text(d.patches), [`${podName(0)} role=replica healthy=no`, `${podName(2)} role=master healthy=yes`]);
    assertNeverTwoMasters(g, d.patches);
  });

  it('labels no master when Orchestrator and the server disagree, and says why', () => {
    // Orchestrator still names 0, but its server now replicates from 2.
    const g = afterFailover();
    const instances = [instance(0, null), instance(1, 2), instance(2, null)];
    const stale = {
      ...g,
      servers: [node(0, replicaServer(2)), ...g.servers.slice(1)],
      orchestrator: reachable({ master: instances[0]!, instances }),
    };
    const d = labels(stale);
    // 2, writable but not Orchestrator's master, serves no reads either.
    assert.deepEqual(text(d.patches), [`${podName(0)} role=replica healthy=yes`, `${podName(2)} role=replica healthy=no`]);
    assert.deepEqual(d.noMaster, {
      reason: 'MasterDisagreement',
      message: `Orchestrator's master ${podName(0)}.mysql.default:3306 replicates from 127.0.0.13:3306`,
    });
    assertNeverTwoMasters(stale, d.patches);
  });

  it('labels no master on a read-only server unless the cluster is read-only', () => {
    const servers = [node(0, master({ readOnly: true })), node(1, replicaServer(0)), node(2, replicaServer(0))];
    assert.equal(labels(healthy({ servers })).noMaster?.message, `Orchestrator's master ${podName(0)}.mysql.default:3306 is read-only`);
    const ro = labels(healthy({ servers, cluster: mysqlCluster({ readOnly: true }) }));
    assert.equal(ro.noMaster, undefined);
    assert.deepEqual(text(ro.patches).at(-1), `${podName(0)} role=master healthy=yes`);
  });

  it('relabels nothing while Orchestrator is unreachable, even when the servers changed', () => {
    const g = { ...afterFailover(), orchestrator: { kind: 'unreachable' as const, message: 'connect ECONNREFUSED' } };
    const d = labels(g);
    assert.deepEqual(d.patches, []);
    assert.equal(d.noMaster?.reason, 'OrchestratorUnreachable');
  });

  it('takes lagged, stopped or writable replicas out of service', () => {
    const instances = [instance(0, null), instance(1, 0, { lagSeconds: 31 }), instance(2, 0)];
    const lagged = labels(healthy({ orchestrator: reachable({ master: instances[0]!, instances }) }));
    assert.ok(text(lagged.patches).includes(`${podName(1)} role=replica healthy=no`));
    const writable = labels(
      healthy({
        servers: [
          node(0, master()),
          node(1, replicaServer(0)),
          node(2, server({ configured: true, readOnly: false, replication: replicating(0) })),
        ],
      }),
    );
    assert.ok(text(writable.patches).includes(`${podName(2)} role=replica healthy=no`));
    const stopped = labels(
      healthy({
        servers: [
          node(0, master()),
          node(1, server({ configured: true, replication: replicating(0, { ioState: 'connecting' }) })),
          node(2, replicaServer(0)),
        ],
      }),
    );
    assert.ok(text(stopped.patches).includes(`${podName(1)} role=replica healthy=no`));
  });

  it('keeps at most one master at every step, whatever the labels were', () => {
    const starts = [
      [pod(0, { role: 'master' }), pod(1, { role: 'master' }), pod(2)],
      [pod(0), pod(1), pod(2, { role: 'master' })],
      [pod(0, { role: 'replica' }), pod(1, { role: 'master' }), pod(2, { role: 'replica' })],
    ];
    for (const pods of starts.slice(1)) {
      const g = { ...afterFailover(), pods };
      assertNeverTwoMasters(g, labels(g).patches);
    }
    // Two masters already labelled (by hand): the demotion comes first.
    const g = { ...healthy(), pods: starts[0]! };
    assert.deepEqual(text(labels(g).patches)[0], `${podName(1)} role=replica healthy=yes`);
  });
});

/** Every order of a list (the rounds are short: at most the pods of a cluster). */
function orders<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe('labelRounds', () => {
  it('patches demotions and replicas side by side, the promotion alone once they have landed', () => {
    const g = {
      ...afterFailover(),
      pods: [
        pod(0, { role: 'master', healthy: 'yes' }),
        pod(1, { role: 'replica', healthy: 'no' }),
        pod(2, { role: 'replica', healthy: 'yes' }),
      ],
    };
    const rounds = labelRounds(labels(g).patches);
    assert.deepEqual(rounds.map(text), [
      [`${podName(0)} role=replica healthy=no`, `${podName(1)} role=replica healthy=yes`],
      [`${podName(2)} role=master healthy=yes`],
    ]);
    // Side by side, the first round's patches may land in any order: none leaves two masters.
    for (const first of orders(rounds[0]!)) assertNeverTwoMasters(g, [...first, ...rounds[1]!]);
  });

  it('has no empty round', () => {
    assert.deepEqual(labelRounds([]), []);
    const promoteOnly = labelRounds(
      labels({ ...healthy(), pods: [pod(0), pod(1, { role: 'replica', healthy: 'yes' }), pod(2, { role: 'replica', healthy: 'yes' })] })
        .patches,
    );
    assert.deepEqual(promoteOnly.map(text), [[`${podName(0)} role=master healthy=yes`]]);
  });
});
