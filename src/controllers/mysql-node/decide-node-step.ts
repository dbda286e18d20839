// The next single step for one pod, from the gathered state. Pure; the reconcile performs the
// step, gathers again and asks again, so a pass killed between two steps resumes where it was.
import { NODE_REASONS, OPERATED_SECRET_KEY, type NodeReason } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import { extraGtids, gtidCovers, positionHolds } from '../../mysql/gtid-set.ts';
import {
  asNode,
  chooseMaster,
  masterUnreachableMessage,
  sameEndpoint,
  type ChosenMaster,
  type ClusterView,
  type NodeView,
  type PodView,
  type ReachableServer,
  type ReplicationView,
  type ServerView,
} from '../../topology/index.ts';

export interface NodePod extends PodView {
  /**
   * The operator checked this server since its mysqld last started (NodeInitialized True with a
   * lastProbeTime not older than the mysql container's start). A `configured` flag kept across
   * a restart by the init-file is trusted for readiness, but re-checked by the operator.
   */
  verifiedSinceStart: boolean;
  /**
   * The pod carries `role=master`: the orchestrator controller's latest call, which it writes
   * before the status (the labels route the writes), so for a moment it is newer than status.nodes.
   */
  labelledMaster: boolean;
}

/** The gathered state of one pass: the pod, its cluster, its server and the other servers. */
export interface NodeGathered {
  cluster: ClusterView;
  pod: NodePod;
  self: ServerView;
  /** Every other pod of the cluster; empty when the decision does not need them. */
  others: NodeView[];
  /** Steps already performed in this pass: each is retried at most once per pass. */
  attempted: readonly StepKind[];
}

export type NodeStep =
  | { kind: 'setReadOnly' }
  | { kind: 'seedGtid'; gtid: string }
  /**
   * `fromOwnPosition`: start from everything the server holds (MariaDB `current_pos`) instead of
   * its replica position (`slave_pos`). MySQL's auto-position always does.
   */
  | { kind: 'pointAt'; master: NodeView; fromOwnPosition: boolean }
  | { kind: 'startReplication' }
  | { kind: 'markConfigured'; role: 'master' | 'replica'; master: string };

export type StepKind = NodeStep['kind'];

export type NodeDecision =
  | { kind: 'done' }
  | { kind: 'step'; step: NodeStep }
  /**
   * `soon`: a transient state expected to clear within a second or two (poll, not back off).
   * `recheckMs`: an expected state of any length: look again after this long, neither backing
   * off nor holding the pass.
   */
  | { kind: 'wait'; reason: NodeReason; message: string; soon: boolean; recheckMs?: number };

const MYSQL_ACCESS_DENIED = 1045;
const STARTING_RECHECK_MS = 500;
const MASTER_WRITABLE_RECHECK_MS = 500;

function wait(reason: NodeReason, message: string, soon = false): NodeDecision {
  return { kind: 'wait', reason, message, soon };
}

function step(s: NodeStep): NodeDecision {
  return { kind: 'step', step: s };
}

/** A replica's failing threads, as a reason naming what to fix. */
function replicationFailure(g: NodeGathered, rep: ReplicationView, master: NodeView): NodeDecision {
  if (rep.lastSqlErrno !== 0) {
    return wait(
      NODE_REASONS.replicationError,
      `replication from ${master.pod} stopped applying: error ${rep.lastSqlErrno}: ${rep.lastSqlError}`,
    );
  }
  if (rep.lastIoErrno === MYSQL_ACCESS_DENIED) {
    return wait(
      NODE_REASONS.replicationAccessDenied,
      `the replication user cannot log in to the master ${master.pod} (access denied); check key ` +
        `${OPERATED_SECRET_KEY.replicationPassword} of Secret ${names.operatedSecret(g.cluster.name)}`,
    );
  }
  if (rep.lastIoErrno !== 0) {
    return wait(
      NODE_REASONS.replicationError,
      `replication cannot connect to the master ${master.pod}: error ${rep.lastIoErrno}: ${rep.lastIoError}`,
    );
  }
  return wait(NODE_REASONS.replicationNotRunning, `replication from ${master.pod} was started but does not run`);
}

/**
 * MariaDB: a server that replicates from no one yet (a demoted master, a fresh clone) or that
 * wrote transactions of its own has a replica position (gtid_slave_pos) behind what it holds; a
 * demoted master pointed with slave_pos would ask its new master for transactions it already
 * has. Its own position is safe once no errant transaction is left (checked before pointing).
 */
function fromOwnPosition(self: ReachableServer): boolean {
  if (self.family !== 'mariadb') return false;
  const rep = self.replication;
  return rep === null ? self.gtidExecuted !== '' : !gtidCovers(rep.gtidApplied, self.gtidExecuted);
}

/**
 * The backup's GTID set still has to be seeded. `set_gtid_purged` alone cannot say so: mysqld
 * runs the init-file the init container wrote at every start, so after a restart of the mysql
 * container alone a cloned replica's file writes `backup_gtid_purged` again and re-creates the
 * status table without `set_gtid_purged`. Seeding it again rewinds its position to the clone's
 * (MariaDB gtid_slave_pos; MySQL RESET MASTER) and replays every transaction since: on MariaDB
 * the replayed CREATE TABLE replaced the table with an empty one (slave_ddl_exec_mode=IDEMPOTENT)
 * and a replayed CREATE USER stopped the SQL thread (docs/e2e-self-healing.md). A server whose
 * own position already holds the set has its data.
 */
function seedPending(self: ReachableServer): self is ReachableServer & { backupGtidPurged: string } {
  return self.backupGtidPurged !== null && !self.gtidSeeded && !positionHolds(self.family, self.gtidExecuted, self.backupGtidPurged);
}

/**
 * Transactions this server holds that the master lacks: pointing it there would fork or fail, and
 * one that already replicates from it (resumed by its init-file at start, or pointed there by
 * Orchestrator) is not marked configured. The master's clone position counts as its history
 * (extraGtids).
 */
function errant(g: NodeGathered, self: ReachableServer, master: NodeView, masterServer: ReachableServer): NodeDecision | null {
  const extra = extraGtids(self.family, self.gtidHistory, masterServer.gtidHistory, masterServer.backupGtidPurged ?? '');
  if (extra.length === 0) return null;
  return wait(
    NODE_REASONS.errantTransactions,
    `${g.pod.name} holds transactions the master ${master.pod} lacks: ${extra.join(', ')}; it is not made a replica and ` +
      'stays read-only; remove them on the master too or rebuild this pod from a backup',
  );
}

/**
 * A configured server that replicates from no one while Orchestrator's view (status.nodes) names
 * another pod master: an old master. Its mysqld restarted in place before Orchestrator failed it
 * over (a kill, an in-place restart, the failover still running), so the node controller
 * configured it as the master it then was; nothing else would ever make it a replica
 * (Orchestrator leaves a failed-over master alone), so it is checked again, rejoined when it holds
 * nothing the new master lacks, and flagged ErrantTransactions otherwise.
 */
export function isDemotedMaster(pod: PodView, self: ServerView, cluster: ClusterView): boolean {
  if (!self.reachable || !self.configured || self.replication !== null) return false;
  const masters = cluster.orchestrator?.masters ?? [];
  return masters.length === 1 && !sameEndpoint({ host: masters[0]!, port: pod.endpoint.port }, { host: pod.fqdn, port: pod.endpoint.port });
}

/** The server says itself that it is a master: reachable, writable, replicating from no one. */
function provenMaster(n: NodeView): boolean {
  return n.server?.reachable === true && !n.server.readOnly && n.server.replication === null;
}

/** Whether a pass must look at this server beyond its own flag (and so read the other servers). */
export function needsCheck(pod: NodePod, self: ServerView, cluster: ClusterView): boolean {
  return (
    self.reachable && (!(self.configured && pod.verifiedSinceStart) || isDemotedMaster(pod, self, cluster) || stoppedAfterSourceLoss(self))
  );
}

/**
 * A configured, verified replica's replication thread that stopped on an error, which no one else
 * restarts: Orchestrator moves replicas but leaves a failed thread alone, and MariaDB does not
 * retry a fatal IO error. The case met (docs/orchestrator-stand-in.md): a graceful takeover moves
 * the siblings below the designated replica while the old master still takes writes, so a sibling
 * one transaction ahead asks the designated one for a GTID its binlog lacks (IO error 1236) and
 * stays stopped. Stopped without an error (STOP SLAVE by a person, a demoted master a plain
 * takeover left stopped) is a choice, and is left alone. Returns the stopped source, or null.
 */
function stoppedOnError(self: ReachableServer, others: readonly NodeView[]): ReplicationView | null {
  const rep = self.replication;
  if (rep === null) return null;
  if (!rep.sqlRunning && rep.lastSqlErrno !== 0) return rep;
  if (stoppedAfterSourceLoss(self)) return sourceAnswers(rep, others) ? rep : null;
  return rep.ioState === 'stopped' && rep.lastIoErrno !== 0 ? rep : null;
}

/**
 * The client errors of the IO thread's connection (CR_*, 2000-2999: host unreachable 2003, unknown
 * host 2005, lost connection 2013), which the server retries itself while the thread runs
 * (`Connecting`). A thread stopped with one was stopped by someone after its source went away:
 * 3.2.6's regrouping runs STOP SLAVE on every replica of a dead master before it promotes one and
 * resets it, and a START SLAVE from here in between (the cluster's FailoverInProgress condition
 * lags the recovery by a pass) made RESET SLAVE ALL fail and the recovery with it (`ci-13`), or
 * left a sibling on the dead master. So such a stop is left alone while its source does not
 * answer as a writable server; once it does (a recovery that failed, and the old master back in
 * place), nothing else would start the replica, and a semi-sync master would wait for ever.
 */
function retriedByServer(ioErrno: number): boolean {
  return ioErrno >= 2000 && ioErrno < 3000;
}

/**
 * The replica's source is a pod of the cluster whose server answered this pass, writable: a master
 * restarted in place starts read-only (its init-file) and is made writable only once Orchestrator
 * names it master with no recovery under way, so a source that is back mid-recovery does not count.
 */
function sourceAnswers(rep: ReplicationView, others: readonly NodeView[]): boolean {
  return others.some(
    (n) => n.server?.reachable === true && !n.server.readOnly && sameEndpoint({ host: rep.sourceHost, port: rep.sourcePort }, n.endpoint),
  );
}

/** Stopped with a connection error: the other servers tell whether its source answers again. */
function stoppedAfterSourceLoss(self: ServerView): boolean {
  const rep = self.reachable ? self.replication : null;
  return rep !== null && rep.ioState === 'stopped' && retriedByServer(rep.lastIoErrno);
}

/**
 * START SLAVE on the source it has, once per pass: never moved (Orchestrator owns the running
 * topology; a re-point from the operator's view of the master took a sibling back to the old
 * master during a takeover), and never while a failover or takeover is signalled (the caller
 * waits then). Still stopped after the start: reported with the error, retried with backoff.
 */
function restartOnSameSource(g: NodeGathered, rep: ReplicationView): NodeDecision {
  if (!g.attempted.includes('startReplication')) return step({ kind: 'startReplication' });
  const source = `${rep.sourceHost}:${rep.sourcePort}`;
  const error =
    rep.lastSqlErrno !== 0 ? `SQL error ${rep.lastSqlErrno}: ${rep.lastSqlError}` : `IO error ${rep.lastIoErrno}: ${rep.lastIoError}`;
  return wait(
    NODE_REASONS.replicationError,
    `replication of ${g.pod.name} from ${source} stopped on ${error}; started again on the same source, and it stopped again`,
  );
}

/** The server does not answer the operator: why, and whether that is a fault. */
function unreachable(g: NodeGathered, self: Exclude<ServerView, ReachableServer>): NodeDecision {
  const { pod, cluster } = g;
  if (self.problem === 'accessDenied') {
    return wait(
      NODE_REASONS.operatorAccessDenied,
      `the operator user cannot log in to ${pod.name} (access denied); check key ` +
        `${OPERATED_SECRET_KEY.operatorPassword} of Secret ${names.operatedSecret(cluster.name)}`,
    );
  }
  // Still starting (the first start's initialisation, crash recovery, up to the startup probe's
  // hour): expected, not a fault. Looked at again every half second, so the node is configured
  // as soon as mysqld answers, before the startup probe's next run reports it started (then
  // the readiness probe's first run finds it configured); not polled within the pass, which
  // would hold one of the workers for as long as a recovery lasts.
  if (!pod.mysqlStarted) {
    return {
      kind: 'wait',
      reason: NODE_REASONS.serverStarting,
      message: `the server of ${pod.name} is starting (its startup probe has not passed): ${self.message}`,
      soon: false,
      recheckMs: STARTING_RECHECK_MS,
    };
  }
  return wait(NODE_REASONS.serverUnreachable, `cannot reach the server of ${pod.name}: ${self.message}`);
}

/** This pod is the master: seed its GTID state, wait for it to be made writable, mark it configured. */
function masterStep(g: NodeGathered, self: ReachableServer, master: NodeView): NodeDecision {
  const { pod, cluster } = g;
  // Whether the master becomes writable is the orchestrator controller's call: leave read_only.
  // chooseMaster never picks a server that replicates, so there is no source to undo here.
  if (seedPending(self)) return step({ kind: 'seedGtid', gtid: self.backupGtidPurged });
  // `configured` stays 0 until then: it tells the orchestrator controller that this server is
  // read-only since its start (the init-file's), not frozen by a takeover (decide-read-only.ts).
  if (self.readOnly && cluster.readOnly !== true) {
    return {
      kind: 'wait',
      reason: NODE_REASONS.masterReadOnly,
      message: `${pod.name} is the master and still read-only since its start: the orchestrator controller makes it writable through Orchestrator`,
      soon: false,
      recheckMs: MASTER_WRITABLE_RECHECK_MS,
    };
  }
  return step({ kind: 'markConfigured', role: 'master', master: master.pod });
}

/** This pod is a replica of `choice`: read-only, seeded, pointed at the master, replicating, then configured. */
function replicaStep(g: NodeGathered, self: ReachableServer, choice: ChosenMaster): NodeDecision {
  const { pod, cluster } = g;
  const master = choice.node;
  if (isDemotedMaster(pod, self, cluster) && !provenMaster(master)) {
    // Orchestrator's view may be a step behind a takeover: touch an old master only once its
    // successor says itself that it is the master.
    return wait(
      NODE_REASONS.masterViewStale,
      `${pod.name} was a master; waiting for ${master.pod} to be writable and replicate from no one before it rejoins`,
    );
  }
  if (!self.readOnly && pod.labelledMaster) {
    // A failover labelled this pod master and the status still names the old one (seen in the
    // chaos suite: a partitioned master back writable, the stale status naming it, and the
    // successor made read-only): never fence the pod the routing points at; the status catches up.
    return wait(
      NODE_REASONS.masterViewStale,
      `${pod.name} carries role=master while the cluster's status names ${master.pod}: not made read-only until they agree`,
    );
  }
  if (!self.readOnly) return step({ kind: 'setReadOnly' });
  if (seedPending(self)) return step({ kind: 'seedGtid', gtid: self.backupGtidPurged });
  const masterServer = master.server;
  if (masterServer?.reachable !== true) return wait(NODE_REASONS.masterUnreachable, masterUnreachableMessage(choice));

  // Before any replication step: a server holding what the master lacks is neither pointed at it
  // nor started (1236 / 1950, or a silent fork without gtid_strict_mode) nor marked configured.
  const refused = errant(g, self, master, masterServer);
  if (refused !== null) return refused;
  const rep = self.replication;
  if (rep === null || !sameEndpoint({ host: rep.sourceHost, port: rep.sourcePort }, master.endpoint)) {
    return step({ kind: 'pointAt', master, fromOwnPosition: fromOwnPosition(self) });
  }
  // Stopped threads (skip-slave-start after a restart, a re-point, an error) get one START per
  // pass; START also clears errors left from before, so they are judged only after it.
  if (rep.ioState === 'stopped' || !rep.sqlRunning) {
    if (!g.attempted.includes('startReplication')) return step({ kind: 'startReplication' });
    return replicationFailure(g, rep, master);
  }
  // The IO thread retries on its own; an error may be fixed since (a new password in the Secret):
  // re-point once per pass, which re-reads the credentials.
  if (rep.lastIoErrno !== 0) {
    if (!g.attempted.includes('pointAt')) return step({ kind: 'pointAt', master, fromOwnPosition: fromOwnPosition(self) });
    return replicationFailure(g, rep, master);
  }
  if (rep.ioState === 'connecting') {
    return wait(NODE_REASONS.replicationConnecting, `replication is connecting to the master ${master.pod}`, true);
  }
  return step({ kind: 'markConfigured', role: 'replica', master: master.pod });
}

export function decideNodeStep(g: NodeGathered): NodeDecision {
  const { pod, self, cluster } = g;
  if (pod.deleting || !pod.mysqlRunning) {
    return wait(NODE_REASONS.podNotRunning, `pod ${pod.name}: the mysql container is not running`);
  }
  if (!self.reachable) return unreachable(g, self);
  const verified = pod.verifiedSinceStart || g.attempted.includes('markConfigured');
  const stopped = stoppedOnError(self, g.others);
  if (self.configured && verified && stopped === null && !isDemotedMaster(pod, self, cluster)) return { kind: 'done' };
  if (cluster.failoverInProgress) {
    const why = cluster.failoverMessage === '' ? '' : `: ${cluster.failoverMessage}`;
    return wait(NODE_REASONS.failoverInProgress, `not configuring ${pod.name} while a failover is in progress${why}`);
  }
  if (self.configured && verified && stopped !== null) return restartOnSameSource(g, stopped);

  const choice = chooseMaster([asNode(pod, self), ...g.others], cluster.orchestrator);
  if (choice.kind === 'unknown') return wait(choice.reason, choice.message);
  const master = choice.node;

  if (master.pod === pod.name) return masterStep(g, self, master);

  return replicaStep(g, self, choice);
}
