// Act: the writes of one pass, each with its Event, and the holds (decisions not to act) as Events
// when their reason changes. A failure throws and ends the pass; the next one decides again.
import { CONDITION_STATUS, FINALIZER_ORCHESTRATOR, LABEL_ROLE, ORCHESTRATOR_REASONS, ROLE } from '../../api/constants.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import { isOrchestratorError, type InstanceKey } from '../../orchestrator/index.ts';
import { cacheMoved } from '../../runtime/cache-caught-up.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import type { KubeObject, ObjectRef } from '../../runtime/kube/types.ts';
import { PassServers, type PodObject } from '../../topology/index.ts';
import { KINDS } from '../shared/kinds.ts';
import type { DowntimeEnd } from './decide-downtime.ts';
import type { ErrantDecision, RebuildDecision } from './decide-errant.ts';
import type { FinalizerDecision } from './decide-finalizer.ts';
import type { HandoverDecision } from './decide-handover.ts';
import type { LabelPatch } from './decide-labels.ts';
import type { MasterVerdict } from './decide-master.ts';
import { decideStatus } from './decide-status.ts';
import { demotedByLabels, fenceDemoted } from './fence-demoted.ts';
import { alias, keyName, podNodes, roleLabel, sameInstance, type Gathered } from './gathered.ts';
import type { Cluster, PassDeps, Servers } from './pass-input.ts';
import { patchPodLabels } from './pod-labels.ts';

/** Waits that are the system working as intended: Normal Events, not Warnings. */
const EXPECTED_HOLDS: ReadonlySet<string> = new Set([
  ORCHESTRATOR_REASONS.failoverInProgress,
  ORCHESTRATOR_REASONS.forgetGracePeriod,
  ORCHESTRATOR_REASONS.recoveryTooRecent,
  ORCHESTRATOR_REASONS.clusterNotReady,
  ORCHESTRATOR_REASONS.rejoinPending,
]);

/** The writes of one pass, each with its Event; a failure throws and ends the pass. */
export class PassWrites {
  readonly req: Request;
  readonly #ctx: ControllerContext;
  get ctx(): ControllerContext {
    return this.#ctx;
  }
  readonly #cluster: Cluster;
  readonly #g: Gathered;
  readonly #deps: PassDeps;
  readonly #caches: { clusters: Informer<Cluster>; pods: Informer<PodObject> };
  /** Reasons of the hold Events of this pass. */
  readonly #announced = new Set<string>();
  /** Objects written, with the cached resourceVersion the pass decided on. */
  readonly #written = new Map<string, { cache: Informer<KubeObject>; name: string; before: string | undefined }>();
  readonly #servers: Servers;
  /** Pods demoted by this pass (role=master taken off, or made read-only): fenced by fenceDemoted(). */
  readonly #demoted = new Set<string>();

  constructor(
    req: Request,
    ctx: ControllerContext,
    g: Gathered,
    deps: PassDeps,
    caches: { clusters: Informer<Cluster>; pods: Informer<PodObject> },
    servers: Servers,
  ) {
    this.req = req;
    this.#ctx = ctx;
    this.#cluster = g.cluster as Cluster;
    this.#g = g;
    this.#deps = deps;
    this.#caches = caches;
    this.#servers = servers;
  }

  /** The fence (docs/fencing.md): the client sessions of the servers this pass demoted, killed once read-only. */
  async fenceDemoted(): Promise<void> {
    if (this.#demoted.size === 0 || !(this.#servers instanceof PassServers)) return;
    const pods = podNodes(this.#g)
      .filter((n) => this.#demoted.has(n.pod.name))
      .map((n) => n.pod);
    await fenceDemoted(this.#ctx, this.#cluster, this.#servers, pods);
  }

  /**
   * Waits until the caches show this pass's writes, so the next pass of the cluster (which may
   * start at once: our own writes enqueue it) does not decide on the versions before them and
   * write, or announce, the same again.
   */
  async cachesCaughtUp(): Promise<void> {
    await Promise.all([...this.#written.values()].map((w) => cacheMoved(w.cache, this.req.namespace, w.name, w.before, this.#ctx.signal)));
  }

  /**
   * `written`: what the API server answered. A write that changed nothing (labels another pass
   * already set) answers with the version the cache holds, which then never moves: the pass waited
   * out CACHE_CATCH_UP_MS with a hook call queued behind it (docs/switchover.md).
   */
  #wrote(cache: Informer<KubeObject>, name: string, before: string | undefined, written: KubeObject): void {
    const after = written?.metadata?.resourceVersion;
    if (after !== undefined && after === before) return;
    if (!this.#written.has(`${cache.target.kind}/${name}`)) this.#written.set(`${cache.target.kind}/${name}`, { cache, name, before });
  }

  /** A status write of the cluster by another step of the pass (semi-sync-step.ts). */
  wroteCluster(written: KubeObject | undefined): void {
    if (written) this.#clusterWritten(written);
  }

  #clusterWritten(written: KubeObject): void {
    this.#wrote(this.#caches.clusters, this.req.name, this.#cluster.metadata?.resourceVersion, written);
  }

  async label(patch: LabelPatch): Promise<void> {
    const cached = this.#caches.pods.get(this.req.namespace, patch.pod);
    for (const pod of demotedByLabels(() => cached?.metadata?.labels?.[LABEL_ROLE], [patch])) this.#demoted.add(pod);
    const before = cached?.metadata?.resourceVersion;
    const written = await patchPodLabels(this.#ctx, this.req.namespace, patch);
    this.#wrote(this.#caches.pods, patch.pod, before, written);
  }

  #clusterRef(): ObjectRef {
    return {
      apiVersion: this.#cluster.apiVersion ?? KINDS.cluster.apiVersion,
      kind: KINDS.cluster.kind,
      namespace: this.req.namespace,
      name: this.req.name,
    };
  }

  /** Guarded by resourceVersion: a merge patch replaces the whole list, and others may change it. */
  async setFinalizer(present: boolean): Promise<void> {
    const others = (this.#cluster.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER_ORCHESTRATOR);
    const finalizers = present ? [...others, FINALIZER_ORCHESTRATOR] : others;
    this.#clusterWritten(
      await this.#ctx.client.patch(
        this.#clusterRef(),
        { metadata: { resourceVersion: this.#cluster.metadata?.resourceVersion, finalizers } },
        { type: 'merge' },
      ),
    );
  }

  async discover(key: InstanceKey): Promise<void> {
    try {
      await this.#deps.orchestrator.discover(key, { signal: this.#ctx.signal });
      this.#ctx.log.info('registered in Orchestrator', { cluster: this.req.key, instance: keyName(key) });
    } catch (e) {
      // Its server does not answer Orchestrator yet: not yet, and nothing to tell anyone.
      if (isOrchestratorError(e) && e.kind === 'mysql-unreachable') return;
      throw e;
    }
  }

  async forget(key: InstanceKey): Promise<void> {
    try {
      await this.#deps.orchestrator.forget(key, { signal: this.#ctx.signal });
    } catch (e) {
      if (!(isOrchestratorError(e) && e.kind === 'unknown-instance')) throw e;
    }
    this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.instanceForgotten, `${keyName(key)} forgotten in Orchestrator`);
  }

  /**
   * A graceful takeover to a pod that stays (decide-handover.ts). Orchestrator answers once it is
   * done (or failed); the labels follow its hooks. A failure is a Warning and ends the pass.
   */
  async takeover(d: Extract<HandoverDecision, { kind: 'takeover' }>): Promise<void> {
    this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.scaleDownHandover, d.message);
    try {
      await this.#deps.orchestrator.gracefulMasterTakeoverAuto(alias(this.#g), d.designated, { signal: this.#ctx.signal });
    } catch (e) {
      const message = `Orchestrator did not hand the master ${d.from} over to ${d.to}: ${e instanceof Error ? e.message : String(e)}`;
      this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.scaleDownHandoverFailed, message);
      throw e;
    }
    this.#ctx.log.info('master handed over before a scale-down', { cluster: this.req.key, from: d.from, to: d.to });
  }

  async writeStatus(status: ReturnType<typeof decideStatus>['status']): Promise<void> {
    this.#clusterWritten(
      await applyStatus(this.#ctx.client, this.#clusterRef(), CLUSTER_STATUS_OWNERS.orchestrator, {
        nodes: status.nodes,
        conditions: status.conditions,
      }),
    );
  }

  /**
   * An Event when the patches moved role=master (to a pod, or off every pod), else when the reason
   * no master is labelled changed; while Orchestrator is unreachable the labels stay as they were.
   */
  announceMaster(patches: readonly LabelPatch[], noMaster: { reason: string; message: string } | undefined): void {
    const role = new Map(podNodes(this.#g).map((n) => [n.pod.name, roleLabel(n)]));
    const masters = (): string[] => [...role].filter(([, r]) => r === ROLE.master).map(([pod]) => pod);
    const before = masters();
    for (const p of patches) role.set(p.pod, p.labels[LABEL_ROLE]);
    const after = masters();
    const moved = after.join() !== before.join();
    const changed = this.#deps.memory.holdChanged(this.req.key, 'master', noMaster?.reason);
    if (moved && after.length > 0) {
      const was = before.length > 0 ? ` (was ${before.join(', ')})` : '';
      this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.masterLabelled, `role=master on ${after.join(', ')}${was}`);
      return;
    }
    if (noMaster === undefined || !(moved || changed)) return;
    const what = moved
      ? `role=master taken from ${before.join(', ')}`
      : after.length > 0
        ? `role=master left on ${after.join(', ')}`
        : 'no pod is labelled master';
    this.#announced.add(noMaster.reason);
    this.#ctx.events.warning(this.#cluster, noMaster.reason, `${what}: ${noMaster.message}`);
  }

  /**
   * The master kept labelled though its server did not answer: remembered, so a second miss in a
   * row takes the label off, and a Warning Event the first time (an on-call engineer sees it).
   */
  rememberUnanswered(verdict: MasterVerdict): void {
    const memory = this.#deps.memory.masterUnanswered;
    if (verdict.kind !== 'master' || verdict.unanswered === undefined) {
      memory.delete(this.req.key);
      return;
    }
    const pod = verdict.node.pod.name;
    if (memory.get(this.req.key) === pod) return;
    memory.set(this.req.key, pod);
    const message = `role=master kept on ${pod} on Orchestrator's word: its server did not answer this pass (${verdict.unanswered})`;
    this.#ctx.log.info('master unanswered, label kept', { cluster: this.req.key, pod, error: verdict.unanswered });
    this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.masterUnanswered, message);
  }

  /**
   * A Warning Event for each replica found errant, when what it holds changed since it was last
   * announced (not on every pass); a replica compared clean is forgotten.
   */
  announceErrant(d: ErrantDecision): void {
    for (const n of podNodes(this.#g)) {
      const found = d.errant.find((e) => e.pod === n.pod.name);
      const kind = `errant/${n.pod.name}`;
      if (found !== undefined) {
        if (this.#deps.memory.holdChanged(this.req.key, kind, found.gtids.join(','))) {
          this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.errantTransactions, found.message);
        }
      } else if (d.status.get(n.pod.fqdn) === CONDITION_STATUS.false) {
        this.#deps.memory.holdChanged(this.req.key, kind, undefined);
      }
    }
  }

  /**
   * spec.rebuildErrantReplicas: the data claim first (it stays Terminating while the pod uses it),
   * then the pod, guarded by the uid the pass decided on; the StatefulSet makes the claim and the
   * pod again once the old claim is gone, and the new pod's init container clones.
   */
  async rebuild(r: Extract<RebuildDecision, { kind: 'rebuild' }>): Promise<void> {
    await this.#ctx.client.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: this.req.namespace, name: r.claim });
    await this.#ctx.client.delete(
      { apiVersion: 'v1', kind: 'Pod', namespace: this.req.namespace, name: r.pod },
      r.uid === undefined ? {} : { preconditions: { uid: r.uid } },
    );
    this.#ctx.log.info('errant replica rebuilt', { cluster: this.req.key, pod: r.pod });
    this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.errantReplicaRebuilt, r.message);
  }

  async setReadOnly(key: InstanceKey, readOnly: boolean): Promise<void> {
    const o = { signal: this.#ctx.signal };
    await (readOnly ? this.#deps.orchestrator.setReadOnly(key, o) : this.#deps.orchestrator.setWriteable(key, o));
    const node = readOnly ? podNodes(this.#g).find((n) => sameInstance(n.key, key)) : undefined;
    if (node) this.#demoted.add(node.pod.name);
    this.#ctx.events.normal(
      this.#cluster,
      ORCHESTRATOR_REASONS.readOnlyChanged,
      `${keyName(key)} made ${readOnly ? 'read-only' : 'writable'} through Orchestrator`,
    );
  }

  async endDowntime(end: DowntimeEnd): Promise<void> {
    await this.#deps.orchestrator.endDowntime(end.key, { signal: this.#ctx.signal });
    this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.downtimeEnded, end.message);
  }

  async acknowledge(ids: number[], comment: string): Promise<void> {
    await this.#deps.orchestrator.ackRecoveries(alias(this.#g), comment, { signal: this.#ctx.signal });
    this.#ctx.events.normal(
      this.#cluster,
      ORCHESTRATOR_REASONS.recoveriesAcknowledged,
      `recoveries ${ids.join(', ')} acknowledged in Orchestrator`,
    );
  }

  /**
   * A decision not to act, as an Event when its reason changed since the last pass; one per reason
   * and pass (Orchestrator down holds every kind of decision for the same reason).
   */
  hold(kind: string, held: { reason: string; message: string } | undefined): void {
    if (!this.#deps.memory.holdChanged(this.req.key, kind, held?.reason) || held === undefined) return;
    if (this.#announced.has(held.reason)) return;
    this.#announced.add(held.reason);
    if (EXPECTED_HOLDS.has(held.reason)) this.#ctx.events.normal(this.#cluster, held.reason, held.message);
    else this.#ctx.events.warning(this.#cluster, held.reason, held.message);
  }

  /** A cluster being deleted: forget its instances, then let it go (decide-finalizer.ts). */
  async finish(d: FinalizerDecision): Promise<ReconcileResult | undefined> {
    switch (d.kind) {
      case 'forget':
        for (const key of d.keys) await this.forget(key);
        await this.setFinalizer(false);
        this.#deps.memory.forget(this.req.key);
        return;
      case 'wait': {
        const decided = decideStatus(this.#g);
        if (decided.write) await this.writeStatus(decided.status);
        this.hold('delete', d);
        return { requeueAfterMs: d.retryAfterMs };
      }
      case 'release':
        await this.setFinalizer(false);
        this.#ctx.events.warning(this.#cluster, d.reason, d.message);
        this.#deps.memory.forget(this.req.key);
        return;
      default:
        return;
    }
  }
}
