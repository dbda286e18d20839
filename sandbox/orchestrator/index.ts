// An Orchestrator stand-in for tests and the sandbox, never shipped: it answers the routes of
// fixtures/orchestrator/ in the recorded shapes, polls the MariaDB servers it discovered, and on a
// dead master performs a real failover with the recorded hook calls. See docs/orchestrator-stand-in.md.
import { randomBytes, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectNode, MysqlError, ORCHESTRATOR_MAX_UINT64, type MysqlNode, type SemiSyncState } from '../../src/mysql/index.ts';
import { gtidCovers } from '../../src/mysql/gtid-set.ts';
import {
  analyze,
  chooseSuccessor,
  dueForCheck,
  clusterAliasOf,
  clusterNameOf,
  LOST_IN_RECOVERY,
  lastCheckStillValid,
  replicasOf,
  rootOf,
  sameKey,
  sqlThreadBehind,
  type Analysis,
  type Downtime,
  type InstanceState,
} from './analysis.ts';
import { autoRecovers, type HookList, type StandInConfig } from './config.ts';
import { keyText, runHooks, type HookContext, type Key } from './hooks.ts';
import {
  acknowledge,
  blockedRecoveryJson,
  blockingRecoveries,
  inActivePeriod,
  registerBlocked,
  unexpiredBlocked,
  type BlockedRecovery,
} from './recovery-period.ts';
import {
  analysisJson,
  clusterInfoJson,
  healthJson,
  instanceJson,
  keyJson,
  plainTime,
  recoveryJson,
  type RecoveryRecord,
} from './shapes.ts';
import { semiSyncBeforeReplication, semiSyncBeforeWritable } from './semi-sync.ts';
import { callerOf, READONLY_REFUSED_MESSAGE, UNAUTHORIZED, WRITE_ROUTES } from './auth.ts';

export interface StandInOptions {
  config: StandInConfig;
  host?: string;
  port?: number;
  /** `{orchestratorHost}`: os.hostname() by default, as the real one. */
  orchestratorHost?: string;
  /**
   * Name → address, as the /etc/hosts of the machine the real one runs on: instances discovered
   * by name are known and reported by that name (as pod FQDNs are in a cluster), while connections
   * and CHANGE MASTER go to the address, and a replica's Master_Host address maps back to the name.
   */
  hosts?: Readonly<Record<string, string>>;
}

export interface StandIn {
  readonly url: string;
  /** Poll rounds finished (an observable barrier for tests). */
  readonly pollRounds: number;
  stop(): Promise<void>;
}

class ApiError extends Error {
  /** Orchestrator prefixes some messages with its log timestamp. */
  readonly logged: boolean;
  constructor(message: string, logged = false) {
    super(message);
    this.logged = logged;
  }
}

const LOST_IN_RECOVERY_MS = 365 * 24 * 3600 * 1000;
const CATCH_UP_TIMEOUT_MS = 10000;
/** 3.2.6's HealthPollSeconds and RecoveryPollSeconds, both 1 and not configurable. */
const TICK_MS = 1000;

export async function startOrchestratorStandIn(opts: StandInOptions): Promise<StandIn> {
  const cfg = opts.config;
  const orcHost = opts.orchestratorHost ?? hostname();
  const token = randomBytes(32).toString('hex');
  const startedAt = new Date();
  const instances: InstanceState[] = [];
  const nodes = new Map<string, MysqlNode>();
  const recoveries: RecoveryRecord[] = [];
  const detections = new Map<string, number>();
  let blocked: BlockedRecovery[] = [];
  // The cluster_alias table: alias → cluster name, rewritten from the instances on a tick of its own
  // (UpdateClusterAliases, every InstancePollSeconds): an alias answers from then on, not at discover.
  const aliasTable = new Map<string, string>();
  // Downtimes of instances not known (yet): 3.2.6 keeps downtimes apart from instances and accepts
  // any key; one applies when its instance is discovered.
  const pendingDowntimes = new Map<string, Downtime>();
  // Alias → the cluster a promotion gave it. 3.2.6 moves the alias to the promoted replica at
  // promotion (RecoverDeadMaster's SetClusterAlias), before the Post* hooks: a demoted master
  // that is not yet repointed no longer answers for it.
  const aliasMovedTo = new Map<string, string>();
  let detectionCount = 0;
  let rounds = 0;
  // When each instance was last checked, as 3.2.6's database_instance.last_checked (dueForCheck).
  const lastChecked = new Map<string, number>();
  let stopped = false;
  // Recoveries, takeovers and polling take turns: one changes the topology at a time.
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = turn.then(fn, fn);
    turn = run.catch(() => undefined);
    return run;
  };

  const hosts = opts.hosts ?? {};
  const nameByAddress = new Map(Object.entries(hosts).map(([name, address]) => [address, name]));
  const address = (k: Key): Key => ({ host: hosts[k.host] ?? k.host, port: k.port });
  const nameOf = (host: string): string => nameByAddress.get(host) ?? host;
  const find = (k: Key): InstanceState | undefined => instances.find((i) => sameKey(i.key, k));
  const uid = (): string =>
    `${BigInt(Date.now()) * 1000000n + BigInt(process.hrtime()[1] % 1000000)}:${createHash('sha256').update(randomBytes(16)).digest('hex')}`;

  async function nodeFor(k: Key): Promise<MysqlNode> {
    const existing = nodes.get(keyText(k));
    if (existing) return existing;
    const n = await connectNode({
      ...address(k),
      user: cfg.topologyUser,
      password: cfg.topologyPassword,
      connectTimeoutMs: cfg.connectTimeoutSeconds * 1000,
      queryTimeoutMs: 5000,
    });
    nodes.set(keyText(k), n);
    return n;
  }

  function dropNode(k: Key): void {
    const n = nodes.get(keyText(k));
    nodes.delete(keyText(k));
    void n?.close();
  }

  /** Reads one server; returns its state or throws the connection error. */
  async function read(k: Key, prev: InstanceState | undefined): Promise<InstanceState> {
    let n: MysqlNode;
    try {
      n = await nodeFor(k);
      const info = await n.serverInfo();
      const readOnly = await n.isReadOnly();
      const repl = await n.replicationStatus();
      const binlog = await n.binlogPosition();
      const alias = cfg.detectClusterAliasQuery ? ((await n.firstRowOf(cfg.detectClusterAliasQuery))[0] ?? '') : '';
      const instanceAlias = cfg.detectInstanceAliasQuery ? ((await n.firstRowOf(cfg.detectInstanceAliasQuery))[0] ?? '') : '';
      unstorable(k, await n.semiSyncState());
      const now = new Date();
      return {
        key: k,
        lastCheckValid: true,
        failedChecks: 0,
        lastSeen: now,
        firstSeen: prev?.firstSeen ?? now,
        serverId: info.serverId,
        version: info.version,
        versionComment: info.versionComment,
        readOnly,
        instanceAlias,
        suggestedClusterAlias: alias,
        master: repl && repl.masterHost !== '' ? { host: nameOf(repl.masterHost), port: repl.masterPort } : null,
        ioRunning: repl?.ioRunning ?? false,
        sqlRunning: repl?.sqlRunning ?? false,
        usingGtid: repl?.usingGtid ?? false,
        gtidPosition: repl ? repl.gtidExecuted : info.gtidExecuted,
        gtidReceived: repl?.gtidReceived ?? '',
        lastIoError: repl?.lastIoError ?? '',
        lastSqlError: repl?.lastSqlError ?? '',
        secondsBehind: repl?.secondsBehind ?? null,
        binlog,
        downtime: prev?.downtime ?? null,
      };
    } catch (e) {
      dropNode(k);
      throw e;
    }
  }

  /**
   * 3.2.6 reads rpl_semi_sync_master_timeout into an unsigned 64-bit field that its backend driver
   * refuses to store when the high bit is set: the write fails, the instance keeps its old row and
   * its last check counts as failed (a new one is never admitted), on every poll, as recorded
   * (test/fixtures/orchestrator/README.md, "uint64 semi-sync timeout").
   */
  function unstorable(k: Key, semiSync: SemiSyncState): void {
    if (semiSync.timeoutMs === undefined || semiSync.timeoutMs <= ORCHESTRATOR_MAX_UINT64) return;
    const message = 'sql: converting argument $60 type: uint64 values with high bit set are not supported';
    process.stderr.write(`${new Date().toISOString()} ERROR ${message} (${keyText(k)})\n`);
    throw new Error(message);
  }

  /**
   * Reads one instance and stores what it found; a known instance that fails its check is stored
   * as failed (3.2.6's UpdateInstanceLastChecked: last_checked moves, last_seen does not), whoever
   * asked: its own poll or an API discover. Returns the failure, or undefined.
   */
  async function poll(k: Key): Promise<unknown> {
    const prev = find(k);
    lastChecked.set(keyText(k), Date.now());
    try {
      const next = await read(k, prev);
      if (prev) Object.assign(prev, next);
      else admit(next);
      return undefined;
    } catch (e) {
      if (prev) {
        // Within the second of the last good check 3.2.6 still reads it valid: not a failure yet.
        prev.lastCheckValid = lastCheckStillValid(prev.lastSeen, new Date());
        if (!prev.lastCheckValid) prev.failedChecks += 1;
      }
      return e ?? new Error('check failed');
    }
  }

  function hookContext(
    a: { failed: InstanceState; replicas: Key[]; clusterName: string; clusterAlias: string },
    over: Partial<HookContext>,
  ): HookContext {
    return {
      failureType: 'DeadMaster',
      failureDescription: '',
      command: '',
      failed: a.failed.key,
      clusterName: a.clusterName,
      clusterAlias: a.clusterAlias,
      clusterDomain: a.clusterName,
      replicas: a.replicas,
      isDowntimed: false,
      autoMasterRecovery: autoRecovers(cfg, a.clusterName, a.clusterAlias),
      orchestratorHost: orcHost,
      recoveryUID: '',
      isSuccessful: false,
      successor: null,
      ...over,
    };
  }

  const lostInRecovery = (): Downtime => ({ owner: orcHost, reason: LOST_IN_RECOVERY, endsAt: new Date(Date.now() + LOST_IN_RECOVERY_MS) });
  const hooks = (list: HookList, c: HookContext): Promise<void> => runHooks(cfg.hooks[list], c);

  async function replicationCredentials(n: MysqlNode): Promise<{ user: string; password: string }> {
    const [user, password] = await n.firstRowOf(cfg.replicationCredentialsQuery);
    if (!user) throw new Error('ReplicationCredentialsQuery returned no user');
    return { user, password: password ?? '' };
  }

  /** Points `replica` at `master` and starts it. */
  async function repoint(replica: InstanceState, master: Key, pos: 'slave_pos' | 'current_pos', start: boolean): Promise<void> {
    const n = await nodeFor(replica.key);
    await n.pointAt(address(master), await replicationCredentials(n), { start: { kind: 'gtid', mariadbPos: pos } });
    if (start) {
      await semiSyncBeforeReplication(n, cfg.detectSemiSyncEnforcedQuery);
      await n.startReplication();
    }
    replica.master = master;
  }

  interface Failure {
    failed: InstanceState;
    replicas: InstanceState[];
    clusterName: string;
    clusterAlias: string;
    description: string;
    command: string;
    clusterDomain: string;
    designated: InstanceState | null;
  }

  /** A new /api/audit-recovery entry for a recovery of `f` that starts now. */
  function recoveryRecord(f: Failure): RecoveryRecord {
    const rec: RecoveryRecord = {
      id: recoveries.length + 1,
      uid: uid(),
      analysis: 'DeadMaster',
      failed: f.failed.key,
      clusterName: f.clusterName,
      clusterAlias: f.clusterAlias,
      replicas: f.replicas.map((r) => r.key),
      successor: null,
      successorAlias: '',
      activeClearedAt: null,
      successful: false,
      errors: [],
      startedAt: new Date(),
      endedAt: null,
      acknowledged: null,
      detectionId: detectionCount,
    };
    recoveries.push(rec);
    return rec;
  }

  /**
   * PreFailover, regrouping, promotion, Post* hooks: the part automatic recoveries and graceful
   * takeovers share. Returns the record. A recovery refused after the regrouping leaves the
   * replicas as the regrouping left them (stopped, the siblings below the candidate), as 3.2.6 does.
   */
  async function recover(f: Failure): Promise<RecoveryRecord> {
    const rec = recoveryRecord(f);
    const base = { failed: f.failed, replicas: rec.replicas, clusterName: f.clusterName, clusterAlias: f.clusterAlias };
    const ctx = (over: Partial<HookContext>): HookContext =>
      hookContext(base, {
        failureDescription: f.description,
        command: f.command,
        recoveryUID: rec.uid,
        clusterDomain: f.clusterDomain,
        ...over,
      });
    const end = (): RecoveryRecord => {
      // The active period goes on (recovery-period.ts); only the end is set.
      rec.endedAt = new Date();
      return rec;
    };
    try {
      await hooks('PreFailoverProcesses', ctx({}));
    } catch (e) {
      // Aborted before anything changed: no Post* hook, tried again after RecoveryPeriodBlockSeconds.
      rec.errors.push(`Failed running PreFailoverProcesses: ${(e as Error).message}`);
      return end();
    }
    // A takeover's designated replica has its siblings below it already; an automatic recovery
    // regroups as 3.2.6 does (regroupForPromotion): the siblings move while the candidate is promoted.
    const { candidate, siblingsMoved } = f.designated
      ? { candidate: f.designated, siblingsMoved: Promise.resolve() }
      : await regroupForPromotion(f.replicas, rec);
    const refused = candidate ? await promotionRefused(candidate, f.designated !== null) : 'no candidate replica';
    if (refused !== null || !candidate) {
      // As recorded: the refused recovery still downtimes the dead master, so it is not retried,
      // and the siblings already moved below the refused candidate stay there (recovery-mariadb b5).
      f.failed.downtime = lostInRecovery();
      rec.errors.push(refused ?? 'no candidate replica');
      await hooks('PostUnsuccessfulFailoverProcesses', ctx({})).catch((e: Error) => rec.errors.push(e.message));
      await siblingsMoved;
      return end();
    }
    try {
      const n = await nodeFor(candidate.key);
      await n.resetReplication();
      await semiSyncBeforeWritable(n, cfg.detectSemiSyncEnforcedQuery);
      await n.setReadOnly(false);
      candidate.master = null;
      candidate.readOnly = false;
      if (f.designated) for (const r of f.replicas) if (r !== candidate) await repoint(r, candidate.key, 'slave_pos', true);
      const binlog = await n.binlogPosition();
      f.failed.downtime = lostInRecovery();
      rec.successor = candidate.key;
      rec.successorAlias = candidate.instanceAlias;
      rec.successful = true;
      aliasMovedTo.set(f.clusterAlias, keyText(candidate.key));
      aliasTable.set(f.clusterAlias, keyText(candidate.key));
      const done = ctx({
        isSuccessful: true,
        successor: {
          key: candidate.key,
          alias: candidate.instanceAlias,
          binlogCoordinates: binlog ? `${binlog.file}:${binlog.position}` : null,
        },
      });
      await hooks('PostMasterFailoverProcesses', done).catch((e: Error) => rec.errors.push(e.message));
      await hooks('PostFailoverProcesses', done).catch((e: Error) => rec.errors.push(e.message));
    } catch (e) {
      rec.errors.push((e as Error).message);
      await hooks('PostUnsuccessfulFailoverProcesses', ctx({})).catch((err: Error) => rec.errors.push(err.message));
    }
    // 3.2.6 waits for its postponed sibling moves after the Post* hooks.
    await siblingsMoved;
    return end();
  }

  /**
   * How 3.2.6 regroups a dead master's replicas on MariaDB before it promotes one
   * (test/fixtures/orchestrator/recovery-mariadb, `RegroupReplicasGTID`): with two or more it reads
   * each, runs a plain STOP SLAVE on all of them at once (a STOP SLAVE waits for the event group the
   * SQL thread is in, and leaves the rest of the relay log unapplied) and reads each again; then the
   * replica that executed the most is the candidate. The siblings are moved below it (stop, CHANGE
   * MASTER, start) side by side with its promotion, as 3.2.6 runs the move as a postponed function
   * for an "ideal" candidate (no data centers, neutral promotion rules); the recovery awaits
   * `siblingsMoved` after its Post* hooks. Nothing starts the candidate's SQL thread again. With one
   * replica nothing is stopped. A replica that cannot be read again is left where it is.
   */
  async function regroupForPromotion(
    replicas: InstanceState[],
    rec: RecoveryRecord,
  ): Promise<{ candidate: InstanceState | null; siblingsMoved: Promise<void> }> {
    let regrouped = replicas;
    if (replicas.length >= 2) {
      const again = await Promise.all(
        replicas.map(async (r) => {
          await poll(r.key);
          // As 3.2.6, a failed STOP is not an error of the recovery: the next read tells.
          await nodeFor(r.key)
            .then((n) => n.stopReplication())
            .catch((e: Error) => rec.errors.push(`stop slave on ${keyText(r.key)}: ${e.message}`));
          return (await poll(r.key)) === undefined ? r : null;
        }),
      );
      regrouped = again.filter((r): r is InstanceState => r !== null);
    }
    const candidate = chooseSuccessor(regrouped);
    if (!candidate) return { candidate, siblingsMoved: Promise.resolve() };
    const moves = regrouped
      .filter((r) => r !== candidate)
      .map((r) =>
        repoint(r, candidate.key, 'slave_pos', true).catch((e: Error) => {
          rec.errors.push(`moving ${keyText(r.key)} below ${keyText(candidate.key)}: ${e.message}`);
        }),
      );
    return { candidate, siblingsMoved: Promise.all(moves).then(() => undefined) };
  }

  /**
   * Whether the candidate may be promoted, as 3.2.6's RecoverDeadMaster checks its SQL thread
   * (relay log fetched but not applied): FailMasterPromotionIfSQLThreadNotUpToDate refuses it;
   * DelayMasterPromotionIfSQLThreadNotUpToDate waits until it applied what it fetched, polling
   * every 500 ms, and gives up once it made no progress for ReasonableReplicationLagSeconds
   * (WaitForSQLThreadUpToDate); neither: promoted as it is. After a regrouping of two or more
   * replicas the SQL thread is stopped, so the wait gives up unless something starts it: as 3.2.6
   * (recovery-mariadb b2, b5). A graceful takeover's designated replica has caught up already.
   * Null when it may; the error otherwise.
   */
  async function promotionRefused(candidate: InstanceState, designated: boolean): Promise<string | null> {
    if (designated || !sqlThreadBehind(candidate)) return null;
    if (cfg.failPromotionIfSqlBehind) return `promotion of ${keyText(candidate.key)} refused: its SQL thread is not up to date`;
    if (!cfg.delayPromotionIfSqlBehind) return null;
    const n = await nodeFor(candidate.key);
    const staleMs = cfg.reasonableReplicationLagSeconds * 1000;
    let last = candidate.gtidPosition;
    let progressAt = Date.now();
    for (;;) {
      const st = await n.replicationStatus().catch(() => null);
      if (st) {
        candidate.gtidPosition = st.gtidExecuted;
        candidate.gtidReceived = st.gtidReceived;
        if (!sqlThreadBehind(candidate)) return null;
        if (st.gtidExecuted !== last) [last, progressAt] = [st.gtidExecuted, Date.now()];
      }
      if (Date.now() - progressAt > staleMs) {
        return `DelayMasterPromotionIfSQLThreadNotUpToDate error: WaitForSQLThreadUpToDate stale coordinates timeout on ${keyText(candidate.key)} after duration ${cfg.reasonableReplicationLagSeconds}s`;
      }
      await sleep(500);
    }
  }

  /** OnFailureDetection runs once per instance and actionable flag until the block period ends. */
  async function detect(
    a: Analysis,
    clusterName: string,
    clusterAlias: string,
    command: string,
    clusterDomain = clusterName,
  ): Promise<void> {
    const id = `${keyText(a.master.key)}|${a.actionable}`;
    const blockMs = cfg.failureDetectionPeriodBlockMinutes * 60000;
    if (command === '' && (detections.get(id) ?? -Infinity) + blockMs > Date.now()) return;
    detections.set(id, Date.now());
    detectionCount += 1;
    await hooks(
      'OnFailureDetectionProcesses',
      hookContext(
        { failed: a.master, replicas: a.replicas.map((r) => r.key), clusterName, clusterAlias },
        { failureType: a.code, failureDescription: a.description, command, recoveryUID: uid(), clusterDomain },
      ),
    ).catch((e: Error) => process.stderr.write(`orchestrator stand-in: OnFailureDetectionProcesses failed: ${e.message}\n`));
  }

  /** Returns the masters found UnreachableMaster this tick, for the emergent reads. */
  async function checkAndRecover(): Promise<InstanceState[]> {
    const unreachable: InstanceState[] = [];
    for (const a of analyze(instances, new Date())) {
      const clusterName = clusterNameOf(instances, a.master);
      const clusterAlias = clusterAliasOf(instances, clusterName);
      await detect(a, clusterName, clusterAlias, '');
      if (a.code === 'UnreachableMaster') unreachable.push(a.master);
      if (!a.actionable || !autoRecovers(cfg, clusterName, clusterAlias)) continue;
      if (blockedByActivePeriod(a, clusterName)) continue;
      await recover({
        failed: a.master,
        replicas: a.replicas,
        clusterName,
        clusterAlias,
        description: a.description,
        command: '',
        clusterDomain: clusterName,
        designated: null,
      });
    }
    return unreachable;
  }

  /** An automatic recovery waits while an earlier one is in its active period; the wait is listed in /api/blocked-recoveries. */
  function blockedByActivePeriod(a: Analysis, clusterName: string): boolean {
    const now = new Date();
    const blocking = blockingRecoveries(recoveries, a.master.key, clusterName, now, cfg.recoveryPeriodBlockSeconds);
    if (blocking.length === 0) return false;
    blocked = registerBlocked(blocked, { failed: a.master.key, clusterName, analysis: a.code, lastBlocked: now }, blocking);
    return true;
  }

  /** UpdateClusterAliases: every cluster's alias (its name when it has none) points at it. */
  function refreshAliasTable(): void {
    for (const name of new Set(instances.map((i) => clusterNameOf(instances, i)))) aliasTable.set(clusterAliasOf(instances, name), name);
  }

  /** A new instance takes the downtime begun on its key before it was known. */
  function admit(i: InstanceState): void {
    const pending = pendingDowntimes.get(keyText(i.key));
    pendingDowntimes.delete(keyText(i.key));
    if (pending && i.downtime === null) i.downtime = pending;
    instances.push(i);
  }

  const due = (i: InstanceState, now: number): boolean => dueForCheck(lastChecked.get(keyText(i.key)), now, cfg.instancePollSeconds);

  /**
   * One tick of 3.2.6's ContinuousDiscovery, whose health and recovery ticks both fire every second
   * (HealthPollSeconds and RecoveryPollSeconds are constants): the due instances are read, then the
   * analysis runs on what is stored and recovers what it can. An UnreachableMaster makes it read the
   * master and its replicas again at once (runEmergentOperations), so a master whose replicas lost
   * it too is DeadMaster at the next tick: about 1 s after UnreachableMaster, as in every recorded
   * kill (hooks/README.md: OnFailureDetection(UnreachableMaster) +0.72/0.79 s, DeadMaster
   * +1.73/1.77 s), and 1-3 s after a kill depending on where the master's 2 s poll cycle was.
   */
  async function tick(): Promise<void> {
    const now = Date.now();
    await Promise.all(instances.filter((i) => due(i, now)).map((i) => poll(i.key)));
    const unreachable = await checkAndRecover();
    const emergent = unreachable.flatMap((m) => [m, ...replicasOf(instances, m.key)]);
    await Promise.all(emergent.map((i) => poll(i.key)));
  }

  async function pollLoop(): Promise<void> {
    const start = Date.now();
    while (!stopped) {
      await exclusive(tick).catch((e: Error) => process.stderr.write(`orchestrator stand-in: tick failed: ${e.message}\n`));
      rounds += 1;
      // On the second's grid, as Go's time.Tick: a slow tick skips to the next one, never drifts.
      const next = start + (Math.floor((Date.now() - start) / TICK_MS) + 1) * TICK_MS;
      if (!stopped) await sleep(next - Date.now(), undefined, { signal: halt.signal }).catch(() => undefined);
    }
  }

  /** UpdateClusterAliases runs on its own InstancePollSeconds tick, apart from the instances' polls. */
  const halt = new AbortController();
  async function aliasLoop(): Promise<void> {
    while (!stopped) {
      await sleep(cfg.instancePollSeconds * 1000, undefined, { signal: halt.signal }).catch(() => undefined);
      if (!stopped) refreshAliasTable();
    }
  }

  async function waitCaughtUp(n: MysqlNode, target: string): Promise<void> {
    const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
    for (;;) {
      const st = await n.replicationStatus();
      if (st && gtidCovers(st.gtidExecuted, target)) return;
      if (Date.now() > deadline)
        throw new ApiError(`designated instance did not catch up with ${target} within ${CATCH_UP_TIMEOUT_MS / 1000}s`);
      await sleep(50);
    }
  }

  /**
   * The replica a takeover promotes when none is named, as 3.2.6's
   * getGracefulMasterTakeoverDesignatedInstance: the only direct replica; with more, an error unless
   * `auto`, else the best candidate, whose replication it then starts (a demoted master left stopped
   * by a plain takeover can be that candidate; without the start it never catches up).
   */
  async function deduceDesignated(master: InstanceState, replicas: InstanceState[], auto: boolean): Promise<InstanceState | null> {
    if (replicas.length === 1) return replicas[0]!;
    if (!auto)
      throw new ApiError(
        `GracefulMasterTakeover: target instance not indicated, auto=false, and master ${keyText(master.key)} has ${replicas.length} replicas. orchestrator cannot choose where to failover to. Aborting`,
      );
    const candidate = chooseSuccessor(replicas);
    if (!candidate) return null;
    try {
      await (await nodeFor(candidate.key)).startReplication();
    } catch {
      throw new ApiError('GracefulMasterTakeover:cannot start replication on designated replica <nil>. Aborting');
    }
    return candidate;
  }

  /** graceful-master-takeover(-auto): demote, let the successor catch up, promote, repoint the old master. */
  async function gracefulTakeover(hint: string, designatedKey: Key | null, auto: boolean): Promise<RecoveryRecord> {
    const clusterName = resolveCluster(hint);
    const master = instances.find((i) => i.master === null && clusterNameOf(instances, i) === clusterName);
    if (!master?.lastCheckValid) throw new ApiError(`Cannot deduce cluster master for ${clusterName}`);
    const replicas = replicasOf(instances, master.key);
    const designated = designatedKey ? replicas.find((r) => sameKey(r.key, designatedKey)) : await deduceDesignated(master, replicas, auto);
    if (!designated)
      throw new ApiError(
        designatedKey
          ? `GracefulMasterTakeover: indicated designated instance ${keyText(designatedKey)} must be directly replicating from the master ${keyText(master.key)}`
          : `GracefulMasterTakeover: no target instance indicated, failed to auto-detect candidate replica for master ${keyText(master.key)}. Aborting`,
      );
    acknowledgeCompletedOf(master.key);
    const clusterAlias = clusterAliasOf(instances, clusterName);
    const base = { failed: master, replicas: [designated.key], clusterName, clusterAlias };
    // The siblings move below the designated replica first, so it is the master's only replica.
    for (const r of replicas) if (r !== designated) await repoint(r, designated.key, 'slave_pos', true);
    const command = 'graceful-master-takeover';
    try {
      await hooks(
        'PreGracefulTakeoverProcesses',
        hookContext(base, {
          command,
          clusterDomain: '',
          isSuccessful: true,
          successor: { key: designated.key, alias: '', binlogCoordinates: null },
        }),
      );
    } catch (e) {
      throw new ApiError(`Failed running PreGracefulTakeoverProcesses: ${(e as Error).message}`);
    }
    const m = await nodeFor(master.key);
    await m.setReadOnly(true);
    master.readOnly = true;
    await waitCaughtUp(await nodeFor(designated.key), await m.gtidExecuted());
    await detect(
      { code: 'DeadMaster', description: '', actionable: true, master, replicas: [designated] },
      clusterName,
      clusterAlias,
      command,
      '',
    );
    const rec = await recover({
      failed: master,
      replicas: [designated],
      clusterName,
      clusterAlias,
      description: '',
      command,
      clusterDomain: '',
      designated,
    });
    if (!rec.successful) throw new ApiError(`GracefulMasterTakeover: ${rec.errors.join('; ')}`);
    // As recorded: current_pos for the demoted master; only the -auto variant starts it.
    await repoint(master, designated.key, 'current_pos', auto);
    const after = hookContext(base, {
      command,
      clusterDomain: '',
      recoveryUID: rec.uid,
      isSuccessful: true,
      successor: { key: designated.key, alias: designated.instanceAlias, binlogCoordinates: null },
    });
    const binlog = await (await nodeFor(designated.key)).binlogPosition();
    if (after.successor && binlog) after.successor.binlogCoordinates = `${binlog.file}:${binlog.position}`;
    await hooks('PostGracefulTakeoverProcesses', after).catch((e: Error) => rec.errors.push(e.message));
    return rec;
  }

  /** A forced recovery (a takeover) acknowledges the completed recoveries of the same failed instance. */
  function acknowledgeCompletedOf(failed: Key): void {
    const now = new Date();
    const comment = `implicit acknowledge due to user invocation of recovery on same instance: ${keyText(failed)}`;
    for (const r of recoveries) if (sameKey(r.failed, failed) && r.endedAt !== null) acknowledge(r, now, 'orchestrator', comment);
  }

  /**
   * The cluster of a hint (FigureClusterName): a cluster name or an instance key at once, an alias
   * once the alias table has it.
   */
  function resolveCluster(hint: string): string {
    const names = [...new Set(instances.map((i) => clusterNameOf(instances, i)))];
    if (names.includes(hint)) return hint;
    const registered = aliasTable.has(hint);
    const byAlias = [aliasMovedTo.get(hint), ...names].find(
      (n) => registered && n !== undefined && names.includes(n) && clusterAliasOf(instances, n) === hint,
    );
    if (byAlias) return byAlias;
    const byInstance = instances.find((i) => keyText(i.key) === hint);
    if (byInstance) return clusterNameOf(instances, byInstance);
    throw new ApiError(`Unable to determine cluster name. clusterHint=${hint}`, true);
  }

  /**
   * The cluster of an alias on the alias routes (ReadClusterNameByAlias): an alias, or a cluster
   * name, that the alias table has; else "No cluster found for alias", not logged.
   */
  function resolveAlias(alias: string): string {
    const known = aliasTable.has(alias) || [...aliasTable.values()].includes(alias);
    if (!known) throw new ApiError(`No cluster found for alias ${alias}`);
    try {
      return resolveCluster(alias);
    } catch {
      return aliasTable.get(alias) ?? alias;
    }
  }

  function parseKey(host: string | undefined, port: string | undefined): Key {
    if (!host || !port || !/^\d+$/.test(port)) throw new ApiError(`Invalid port: ${port ?? ''}`);
    return { host, port: Number(port) };
  }

  function known(k: Key): InstanceState {
    const i = find(k);
    if (!i) throw new ApiError(`Cannot read instance: ${keyText(k)}`);
    return i;
  }

  function dialError(k: Key, e: unknown): ApiError {
    if (e instanceof MysqlError && e.code === 'ECONNREFUSED') return new ApiError(`dial tcp ${keyText(k)}: connect: connection refused`);
    return new ApiError(e instanceof Error ? e.message : String(e));
  }

  const members = (clusterName: string): InstanceState[] => instances.filter((i) => clusterNameOf(instances, i) === clusterName);
  const ok = (message: string, details: unknown): unknown => ({ Code: 'OK', Message: message, Details: details });
  const inst = (i: InstanceState): unknown => instanceJson(instances, i, new Date());
  const autoFor = (name: string): boolean => autoRecovers(cfg, name, clusterAliasOf(instances, name));
  const recJson = (r: RecoveryRecord): unknown =>
    recoveryJson(r, orcHost, autoFor(r.clusterName), inActivePeriod(r, new Date(), cfg.recoveryPeriodBlockSeconds));

  async function route(parts: string[], q: URLSearchParams): Promise<unknown> {
    const [a, b, c, d] = parts;
    switch (a) {
      case 'health':
      case 'status':
        return healthJson(orcHost, token, startedAt, new Date());
      // The chart's probes. Orchestrator answers lb-check with a constant and raft-health with
      // "healthy" on a member of a healthy raft: the stand-in is a raft of one.
      case 'lb-check':
        return 'OK';
      case 'raft-health':
        return 'healthy';
      case 'discover': {
        const k = parseKey(b, c);
        return exclusive(async () => {
          const failure = await poll(k);
          if (failure !== undefined) throw dialError(k, failure);
          return ok(`Instance discovered: ${keyText(k)}`, inst(find(k)!));
        });
      }
      case 'forget': {
        const k = parseKey(b, c);
        const i = find(k);
        if (!i) throw new ApiError(`ForgetInstance(): instance ${keyText(k)} not found`, true);
        instances.splice(instances.indexOf(i), 1);
        lastChecked.delete(keyText(k));
        dropNode(k);
        return ok(`Instance forgotten: ${keyText(k)}`, keyJson(k));
      }
      case 'instance':
        return inst(known(parseKey(b, c)));
      case 'all-instances':
        return instances.map(inst);
      case 'clusters':
        return [...new Set(instances.map((i) => clusterNameOf(instances, i)))];
      case 'clusters-info':
        return [...new Set(instances.map((i) => clusterNameOf(instances, i)))].map((n) => clusterInfoJson(instances, n, autoFor(n)));
      case 'cluster':
        return members(b === 'alias' ? resolveAlias(c ?? '') : resolveCluster(b ?? '')).map(inst);
      case 'cluster-info': {
        const n = b === 'alias' ? resolveAlias(c ?? '') : resolveCluster(b ?? '');
        return clusterInfoJson(instances, n, autoFor(n));
      }
      case 'master': {
        const n = resolveCluster(b ?? '');
        const m = members(n).find((i) => i.master === null) ?? rootOf(instances, members(n)[0] ?? known({ host: n, port: 0 }));
        return inst(m);
      }
      case 'audit-recovery': {
        let list = [...recoveries].reverse();
        if (b === 'cluster') list = list.filter((r) => r.clusterName === c);
        if (b === 'alias') list = list.filter((r) => r.clusterAlias === c);
        if (q.get('unacknowledged') === 'true') list = list.filter((r) => r.acknowledged === null);
        return list.map(recJson);
      }
      case 'ack-recovery': {
        // ack-recovery/cluster/alias/:alias resolves as the alias routes; ack-recovery/cluster/:hint as a hint.
        const n = b === 'cluster' && c === 'alias' ? resolveAlias(d ?? '') : resolveCluster(b === 'cluster' ? (c ?? '') : (b ?? ''));
        const comment = q.get('comment') ?? '';
        if (comment === '') throw new ApiError('No acknowledge comment given');
        const alias = clusterAliasOf(instances, n);
        const now = new Date();
        for (const r of recoveries)
          if (r.clusterName === n || (alias !== '' && r.clusterAlias === alias)) acknowledge(r, now, orcHost, comment);
        return ok('Acknowledged cluster recoveries', n);
      }
      case 'blocked-recoveries':
        blocked = unexpiredBlocked(blocked, recoveries);
        return [...blocked].sort((x, y) => y.lastBlocked.getTime() - x.lastBlocked.getTime()).map(blockedRecoveryJson);
      case 'replication-analysis':
        return ok(
          'Analysis',
          analyze(instances, new Date()).map((x) => analysisJson(instances, x, autoFor(clusterNameOf(instances, x.master)))),
        );
      case 'begin-downtime': {
        const k = parseKey(b, c);
        const duration = parts[5] ?? '';
        const m = /^(\d+)([smhd])$/.exec(duration);
        if (!m) throw new ApiError(`Cannot parse simple time: ${duration}`);
        const unit = { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'];
        const downtime = { owner: d ?? '', reason: parts[4] ?? '', endsAt: new Date(Date.now() + Number(m[1]) * unit * 1000) };
        const i = find(k);
        if (i) i.downtime = downtime;
        else pendingDowntimes.set(keyText(k), downtime);
        return ok(`Downtime begun: ${keyText(k)}`, keyJson(k));
      }
      case 'end-downtime': {
        const k = parseKey(b, c);
        const i = find(k);
        if (i) i.downtime = null;
        pendingDowntimes.delete(keyText(k));
        return ok(`Downtime ended: ${keyText(k)}`, keyJson(k));
      }
      case 'set-read-only':
      case 'set-writeable': {
        const k = parseKey(b, c);
        const readOnly = a === 'set-read-only';
        try {
          const n = await nodeFor(k);
          if (!readOnly) await semiSyncBeforeWritable(n, cfg.detectSemiSyncEnforcedQuery);
          await n.setReadOnly(readOnly);
        } catch (e) {
          throw dialError(k, e);
        }
        await poll(k);
        return ok(readOnly ? 'Server set as read-only' : 'Server set as writeable', inst(known(k)));
      }
      case 'graceful-master-takeover':
      case 'graceful-master-takeover-auto': {
        const designated = c !== undefined ? parseKey(c, d) : null;
        const rec = await exclusive(() => gracefulTakeover(b ?? '', designated, a === 'graceful-master-takeover-auto'));
        return ok('graceful-master-takeover: successor promoted', recJson(rec));
      }
      default:
        return undefined;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const parts = url.pathname
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
    const notFound = (): void => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found');
    };
    // Authentication comes before routing: an unrouted path or a POST gets the 401 too (recorded).
    const caller = callerOf(cfg.authentication, req.headers.authorization);
    if (caller === 'refused') {
      res.writeHead(UNAUTHORIZED.status, UNAUTHORIZED.headers).end(UNAUTHORIZED.body);
      return;
    }
    if (req.method !== 'GET' || parts[0] !== 'api') return notFound();
    try {
      if (caller === 'readonly' && WRITE_ROUTES.has(parts[1] ?? '')) throw new ApiError(READONLY_REFUSED_MESSAGE);
      const body = await route(parts.slice(1), url.searchParams);
      if (body === undefined) return notFound();
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
    } catch (e) {
      const message = e instanceof ApiError && e.logged ? `${plainTime(new Date())} ERROR ${e.message}` : (e as Error).message;
      res
        .writeHead(500, { 'content-type': 'application/json; charset=UTF-8' })
        .end(JSON.stringify({ Code: 'ERROR', Message: message, Details: null }));
    }
  }

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('orchestrator stand-in: no TCP address');
  const loop = Promise.all([pollLoop(), aliasLoop()]);
  return {
    url: `http://${addr.address}:${addr.port}`,
    get pollRounds() {
      return rounds;
    },
    stop: async () => {
      stopped = true;
      halt.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await loop;
      for (const n of nodes.values()) await n.close();
      nodes.clear();
    },
  };
}
