import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideLabels } from '../../../src/controllers/orchestrator-controller/decide-labels.ts';
import { decideMaster, MASTER_SEEN_WITHIN_MS } from '../../../src/controllers/orchestrator-controller/decide-master.ts';
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
  NOW,
  node,
  pod,
  podName,
  reachable,
  replicaServer,
  server,
  unreachable,
} from './builders.ts';

const TIMEOUT = 'mysql my-db-mysql-0.mysql.default:3306 (user sys_operator): connect ETIMEDOUT';

/** Labelled as a healthy cluster is, pod 0 the master, whose server did not answer this pass. */
function masterUnanswered(o: { master?: Partial<Instance>; others?: [ServerView, ServerView]; over?: Partial<Gathered> } = {}): Gathered {
  const instances = [instance(0, null, o.master), instance(1, 0), instance(2, 0)];
  const [one, two] = o.others ?? [replicaServer(0), replicaServer(0)];
  return healthy({
    pods: [
      pod(0, { role: 'master', healthy: 'yes' }),
      pod(1, { role: 'replica', healthy: 'yes' }),
      pod(2, { role: 'replica', healthy: 'yes' }),
    ],
    servers: [node(0, unreachable(TIMEOUT)), node(1, one), node(2, two)],
    orchestrator: reachable({ master: instances[0]!, instances }),
    ...o.over,
  });
}

function patches(g: Gathered): string[] {
  return decideLabels(g, decideStatus(g).status.nodes).patches.map((p) => `${p.pod} role=${p.labels.role} healthy=${p.labels.healthy}`);
}

function disagreement(g: Gathered): string {
  const v = decideMaster(g);
  assert.equal(v.kind, 'none');
  assert.equal(v.kind === 'none' && v.reason, 'MasterDisagreement');
  return v.kind === 'none' ? v.message : '';
}

describe('decideMaster when the master does not answer a pass', () => {
  it('keeps role=master on one timed-out pass while Orchestrator checked it recently and sees it healthy', () => {
    const g = masterUnanswered();
    const v = decideMaster(g);
    assert.equal(v.kind, 'master');
    assert.equal(v.kind === 'master' && v.node.pod.name, podName(0));
    assert.equal(v.kind === 'master' && v.unanswered, TIMEOUT);
    assert.deepEqual(patches(g), [], 'no label moves: the master Service keeps its endpoint');
    assert.equal(decideLabels(g, decideStatus(g).status.nodes).noMaster, undefined);
  });

  it('takes it off on the second miss in a row', () => {
    const g = masterUnanswered({ over: { masterUnansweredBefore: podName(0) } });
    assert.equal(
      disagreement(g),
      `Orchestrator's master ${fqdn(0)}:3306 does not answer: ${TIMEOUT}, and did not answer the pass before either`,
    );
    assert.deepEqual(patches(g), [`${podName(0)} role=replica healthy=no`]);
    // A miss remembered for another pod (a master since moved) does not count against this one.
    assert.equal(decideMaster(masterUnanswered({ over: { masterUnansweredBefore: podName(2) } })).kind, 'master');
  });

  it('takes it off when Orchestrator sees the master dead or failing', () => {
    const cases: [Gathered, RegExp][] = [
      [
        masterUnanswered({ master: { lastCheckValid: false, problems: ['last_check_invalid'] } }),
        /and Orchestrator's last check of it failed too$/,
      ],
      [masterUnanswered({ master: { recentlyChecked: false } }), /and Orchestrator's last check of it failed too$/],
      [
        masterUnanswered({ master: { lastSeen: new Date(NOW.getTime() - MASTER_SEEN_WITHIN_MS - 1000) } }),
        /and Orchestrator last saw it at 2026-11-21T19:29:49.000Z$/,
      ],
      [masterUnanswered({ master: { problems: ['not_replicating'] } }), /and Orchestrator sees not_replicating$/],
      [masterUnanswered({ master: { readOnly: true } }), /and Orchestrator says it is read-only$/],
    ];
    for (const [g, why] of cases) {
      assert.match(disagreement(g), why);
      assert.deepEqual(patches(g), [`${podName(0)} role=replica healthy=no`]);
    }
    for (const code of ['UnreachableMaster', 'DeadMaster']) {
      const instances = [instance(0, null), instance(1, 0), instance(2, 0)];
      const g = masterUnanswered({
        over: { orchestrator: reachable({ master: instances[0]!, instances, analysis: [analysis(0, code)] }) },
      });
      assert.match(disagreement(g), new RegExp(`and Orchestrator's analysis says ${code}$`));
    }
  });

  it('labels no master when another server is writable, and says which', () => {
    const writable = masterUnanswered({ others: [replicaServer(0), master()] });
    assert.equal(
      disagreement(writable),
      `Orchestrator's master ${fqdn(0)}:3306 does not answer: ${TIMEOUT}, and ${podName(2)} is writable`,
    );
    // The writable one serves no reads either (decide-labels.ts).
    assert.deepEqual(patches(writable), [`${podName(0)} role=replica healthy=no`, `${podName(2)} role=replica healthy=no`]);
    // A replica that did not answer either counts by Orchestrator's recent check of it.
    const instances = [instance(0, null), instance(1, 0), instance(2, 0, { readOnly: false })];
    const byOrchestrator = masterUnanswered({
      others: [replicaServer(0), unreachable()],
      over: { orchestrator: reachable({ master: instances[0]!, instances }) },
    });
    assert.match(disagreement(byOrchestrator), new RegExp(`and ${podName(2)} is writable$`));
  });

  it('gives no grace to a server that answered with an error', () => {
    const denied = healthy({
      servers: [
        node(0, { reachable: false, problem: 'accessDenied', message: 'Access denied for user sys_operator' }),
        node(1, replicaServer(0)),
        node(2, replicaServer(0)),
      ],
    });
    assert.equal(disagreement(denied), `Orchestrator's master ${fqdn(0)}:3306 does not answer: Access denied for user sys_operator`);
    assert.equal(decideMaster(healthy({ servers: [node(0, master()), node(1, server()), node(2, replicaServer(0))] })).kind, 'master');
  });
});
