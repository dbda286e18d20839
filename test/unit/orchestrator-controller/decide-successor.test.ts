import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideLabels } from '../../../src/controllers/orchestrator-controller/decide-labels.ts';
import { decideReadOnly } from '../../../src/controllers/orchestrator-controller/decide-read-only.ts';
import { decideStatus } from '../../../src/controllers/orchestrator-controller/decide-status.ts';
import {
  decideSuccessor,
  hookCandidate,
  masterVerdict,
  orchestratorCandidate,
  probeOnly,
  successorPending,
  type SuccessorNode,
} from '../../../src/controllers/orchestrator-controller/decide-successor.ts';
import type { Gathered } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import type { HookProcess, HookSignal } from '../../../src/controllers/orchestrator-controller/hook-signals.ts';
import { SUCCESSOR_WAIT_MS } from '../../../src/controllers/orchestrator-controller/decide-hook.ts';
import { podView, resolveByFqdn, type RoleView } from '../../../src/topology/index.ts';
import {
  NOW,
  fqdn,
  healthy,
  instance,
  master,
  node,
  pod,
  podName,
  reachable,
  replicaServer,
  replicating,
  server,
  unreachable,
  type PodOptions,
} from './builders.ts';

function signal(process: HookProcess, successor: number | undefined): HookSignal {
  return {
    process,
    clusterKey: 'default/my-db',
    failed: `${fqdn(0)}:3306`,
    ...(successor === undefined ? {} : { successor: `${fqdn(successor)}:3306` }),
    at: NOW,
  };
}

/** What the fast pass gathers about pod `ordinal`. */
function at(ordinal: number, s: RoleView | null, o: PodOptions = {}): SuccessorNode {
  return { pod: podView(pod(ordinal, o), resolveByFqdn), role: o.role, server: s };
}

/** Mid-failover from pod 0 to pod 1: 1 writable and replicating from no one, 2 read-only under 1, 0 labelled master. */
function promoted(old: RoleView | null, o: PodOptions = {}): SuccessorNode[] {
  return [at(0, old, { role: 'master', ...o }), at(1, master(), { role: 'replica' }), at(2, replicaServer(1), { role: 'replica' })];
}

const postSignal = signal('PostMasterFailover', 1);
const post = hookCandidate(postSignal);

function text(d: ReturnType<typeof decideSuccessor>): string[] {
  return d.kind === 'label' ? d.patches.map((p) => `${p.pod} role=${p.labels.role} healthy=${p.labels.healthy}`) : [];
}

describe('decideSuccessor', () => {
  it('labels the successor once the old master is read-only, taking the old master label off first', () => {
    const d = decideSuccessor(post, promoted(server({ readOnly: true })));
    assert.deepEqual(text(d), [`${podName(0)} role=replica healthy=no`, `${podName(1)} role=master healthy=yes`]);
  });

  it('labels the successor of a SIGKILLed master (its server refuses connections) and of a graceful takeover', () => {
    assert.equal(decideSuccessor(post, promoted(unreachable())).kind, 'label');
    assert.equal(decideSuccessor(hookCandidate(signal('PostGracefulTakeover', 1)), promoted(server({ readOnly: true }))).kind, 'label');
  });

  it('labels the successor when the old master pod no longer runs mysqld', () => {
    assert.equal(decideSuccessor(post, promoted(null, { running: false })).kind, 'label');
  });

  it('labels no master while another server is writable', () => {
    const d = decideSuccessor(post, promoted(master()));
    assert.deepEqual(d, {
      kind: 'wait',
      message: `${fqdn(1)}:3306, named by the PostMasterFailover hook, is not the only server that may take writes: ${podName(0)}`,
    });
    const replicaWritable = [
      at(0, unreachable(), { role: 'master' }),
      at(1, master()),
      at(2, server({ readOnly: false, replication: replicating(1) })),
    ];
    assert.equal(decideSuccessor(post, replicaWritable).kind, 'wait');
  });

  it('labels no master while the old master cannot be ruled out: its mysqld runs but was not observed, or it refuses our login', () => {
    assert.equal(decideSuccessor(post, promoted(null)).kind, 'wait', 'mysqld runs, no answer gathered');
    assert.equal(decideSuccessor(post, promoted({ reachable: false, problem: 'accessDenied', message: 'Access denied' })).kind, 'wait');
  });

  it('labels no master when the successor is read-only, still replicates, does not answer or is not a pod of the cluster', () => {
    const with1 = (s: RoleView | null, o: PodOptions = {}) => [
      at(0, unreachable(), { role: 'master' }),
      at(1, s, o),
      at(2, replicaServer(1)),
    ];
    assert.match((decideSuccessor(post, with1(server({ readOnly: true }))) as { message: string }).message, /is read-only$/);
    assert.match(
      (decideSuccessor(post, with1(master({ replication: replicating(0) }))) as { message: string }).message,
      /replicates from 127\.0\.0\.11:3306$/,
    );
    assert.match((decideSuccessor(post, with1(unreachable())) as { message: string }).message, /does not answer: connect ECONNREFUSED$/);
    assert.match((decideSuccessor(post, with1(master(), { deleting: true })) as { message: string }).message, /is being deleted$/);
    assert.match(
      (decideSuccessor(hookCandidate(signal('PostMasterFailover', 7)), with1(master())) as { message: string }).message,
      /is not a pod of the cluster$/,
    );
  });

  it("after a PreFailover call, labels the master Orchestrator's /api/master names once the servers prove it", () => {
    const d = decideSuccessor(orchestratorCandidate({ host: fqdn(1), port: 3306 }), promoted(unreachable()));
    assert.deepEqual(text(d), [`${podName(0)} role=replica healthy=no`, `${podName(1)} role=master healthy=yes`]);
    // Before the promotion Orchestrator still names the old master, which does not answer.
    const before = decideSuccessor(orchestratorCandidate({ host: fqdn(0), port: 3306 }), [
      at(0, unreachable(), { role: 'master' }),
      at(1, replicaServer(0)),
      at(2, replicaServer(0)),
    ]);
    assert.deepEqual(before, { kind: 'none' }, 'already labelled');
    const takeover = decideSuccessor(orchestratorCandidate({ host: fqdn(1), port: 3306 }), [
      at(0, server({ readOnly: true }), { role: 'master' }),
      at(1, replicaServer(0)),
      at(2, replicaServer(0)),
    ]);
    assert.deepEqual(takeover, { kind: 'wait', message: `${fqdn(1)}:3306, named by Orchestrator's /api/master, is read-only` });
  });

  it('does nothing without a Post* call naming a successor, or once the successor carries role=master', () => {
    const nodes = promoted(unreachable());
    assert.deepEqual(decideSuccessor(undefined, nodes), { kind: 'none' });
    for (const p of ['PreFailover', 'PostUnsuccessfulFailover', 'PostMasterFailover'] as const)
      assert.equal(hookCandidate(signal(p, undefined)), undefined, p);
    assert.equal(hookCandidate(signal('PostUnsuccessfulFailover', 1)), undefined);
    const labelled = [at(0, unreachable(), { role: 'replica' }), at(1, master(), { role: 'master' }), at(2, replicaServer(1))];
    assert.deepEqual(decideSuccessor(post, labelled), { kind: 'none' });
    assert.equal(successorPending(post, labelled), false);
    assert.equal(successorPending(post, nodes), true);
  });
});

/** Orchestrator's /api/master still names pod 0 (its answer lags the hook); the servers show 1 promoted, 0 read-only. */
function orchestratorBehind(over: Partial<Gathered> = {}): Gathered {
  const instances = [instance(0, null), instance(1, 0), instance(2, 0)];
  return healthy({
    pods: [
      pod(0, { role: 'master', healthy: 'yes' }),
      pod(1, { role: 'replica', healthy: 'yes' }),
      pod(2, { role: 'replica', healthy: 'yes' }),
    ],
    servers: [node(0, server({ readOnly: true })), node(1, master()), node(2, replicaServer(1))],
    orchestrator: reachable({ master: instances[0]!, instances }),
    hook: postSignal,
    ...over,
  });
}

describe('the full pass with a fresh Post* call', () => {
  it("keeps the successor the servers prove labelled master while Orchestrator's answer lags", () => {
    const g = orchestratorBehind();
    const v = masterVerdict(g);
    assert.equal(v.kind === 'master' ? v.node.pod.name : v.kind, podName(1));
    const labels = decideLabels(g, decideStatus(g).status.nodes);
    assert.equal(labels.noMaster, undefined);
    assert.deepEqual(labels.patches.at(-1), { pod: podName(1), labels: { role: 'master', healthy: 'yes' } });
    assert.equal(labels.patches.filter((p) => p.labels.role === 'master').length, 1);
  });

  it('holds read-only changes meanwhile: Orchestrator would make its stale master writable', () => {
    const d = decideReadOnly(orchestratorBehind());
    assert.equal(d.kind, 'hold');
    assert.match(d.kind === 'hold' ? d.message : '', /does not name the PostMasterFailover hook's successor .*my-db-mysql-1.* master yet/);
  });

  it('follows Orchestrator alone once the call is gone, and never relabels while Orchestrator is unreachable', () => {
    const stale = orchestratorBehind({ hook: undefined });
    assert.equal(masterVerdict(stale).kind, 'none');
    assert.equal(decideLabels(stale, decideStatus(stale).status.nodes).noMaster?.reason, 'MasterDisagreement');
    const down = orchestratorBehind({ orchestrator: { kind: 'unreachable', message: 'connect ECONNREFUSED' } });
    assert.deepEqual(decideLabels(down, decideStatus(down).status.nodes).patches, []);
  });

  it("does not label the successor while another server is writable: Orchestrator's verdict stands", () => {
    const servers = [node(0, master()), node(1, master()), node(2, replicaServer(1))];
    const named0 = masterVerdict(orchestratorBehind({ servers }));
    assert.equal(named0.kind === 'master' ? named0.node.pod.name : named0.kind, podName(0));
    const instances = [instance(0, null), instance(1, 0), instance(2, 0)];
    const none = orchestratorBehind({ servers, orchestrator: reachable({ master: null, instances }) });
    assert.equal(masterVerdict(none).kind, 'none');
    assert.equal(
      decideLabels(none, decideStatus(none).status.nodes).patches.some((p) => p.labels.role === 'master'),
      false,
    );
  });
});

describe('probeOnly', () => {
  const pre = signal('PreFailover', undefined);
  const failing = orchestratorCandidate({ host: fqdn(0), port: 3306 });

  it('skips the full gather after a PreFailover call while Orchestrator still names the failing master, once a full pass saw the call', () => {
    assert.equal(probeOnly(pre, failing, true, NOW), true);
    assert.equal(probeOnly(pre, failing, false, NOW), false, 'the first pass records FailoverInProgress');
  });

  it('runs full passes once Orchestrator names another master, when it did not answer, after a Post* call, and SUCCESSOR_WAIT_MS after the call', () => {
    assert.equal(probeOnly(pre, orchestratorCandidate({ host: fqdn(1), port: 3306 }), true, NOW), false);
    assert.equal(probeOnly(pre, undefined, true, NOW), false);
    assert.equal(probeOnly(postSignal, failing, true, NOW), false);
    assert.equal(probeOnly(pre, failing, true, new Date(NOW.getTime() + SUCCESSOR_WAIT_MS + 1)), false);
    assert.equal(probeOnly(undefined, failing, true, NOW), false);
  });
});
