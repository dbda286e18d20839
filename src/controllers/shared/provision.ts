// The reconcile the user and database controllers share (docs/users-and-databases.md): find the
// cluster the object names (refusing another namespace unless allowed), hold the finalizer, reach
// the cluster's writable master as root, let the kind apply its spec there, and report the Ready
// condition; on deletion, drop or retain by the object's policy. Every decision not to act is a
// Ready=False condition with a reason and an Event. The kinds bring the parts that differ:
// validating the spec, applying it, dropping it. What an object may touch at all (reserved names,
// one object per account or schema, what its deletion keeps) is decided in decide-ownership.ts.
import {
  ANNOTATION_RESOURCE_DELETION_POLICY,
  API_GROUP,
  CONDITION_STATUS,
  PLURAL_MYSQL_CLUSTERS,
  LABEL_CLUSTER,
  PROVISION_CONDITION,
  PROVISION_REASONS,
  RESOURCE_DELETION_POLICY,
  ROOT_USER,
  type ProvisionReason,
} from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { names } from '../../api/names.ts';
import { DEFAULT_MYSQL_VERSION } from '../../api/versions.ts';
import { connectNode, flavourFromVersionSpec, isMysqlError, type AdminChange, type Flavour, type MysqlNode } from '../../mysql/index.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import type { StatusOwner } from '../../runtime/kube/apply-status.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import { decodeSecretData } from '../../runtime/kube/secret-data.ts';
import { objectKey, type KindRef, type KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage, type Logger } from '../../runtime/logger.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { redactString } from '../../runtime/redact.ts';
import {
  clusterView,
  connectToMaster,
  systemUserNames,
  type PassServersOptions,
  type PodObject,
  type ResolvePod,
} from '../../topology/index.ts';
import { transitionTime } from './condition-time.ts';
import { claimHolder, claimRefusal, type Claimant } from './decide-ownership.ts';
import { KINDS } from './kinds.ts';
import { rootPasswordKey } from './root-password-key.ts';
import { POD_TARGET } from './targets.ts';

export interface ProvisionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ProvisionedObject extends KubeObject {
  spec: { clusterRef: { name: string; namespace?: string } };
  status?: { conditions?: ProvisionCondition[] };
}

export interface ProvisionOptions {
  /** Whether a clusterRef may name a cluster in another namespace (flag). */
  allowCrossNamespace: boolean;
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  servers?: PassServersOptions;
}

/** A decision not to act, reported as Ready=False. */
export interface Refusal {
  refused: ProvisionReason;
  message: string;
}

export function refusal(refused: ProvisionReason, message: string): Refusal {
  return { refused, message };
}

export function isRefusal(v: unknown): v is Refusal {
  return typeof v === 'object' && v !== null && 'refused' in v;
}

/** What a pass will change on the master, decided from what it read there. */
export interface Plan {
  changes: AdminChange[];
  /** What it does, in words, adoptions included (empty: nothing to say). */
  done: string[];
  /** The status fields besides the condition after the changes: `complete` all ran, else some may have. */
  status(complete: boolean): Record<string, unknown>;
}

/** What a deletion drops (what the object made) and keeps (what it adopted), in words. */
export interface DropPlan {
  changes: AdminChange[];
  kept: string[];
}

/** What a kind brings. `D` is its spec made ready for SQL. */
export interface ProvisionKind<T extends ProvisionedObject, D> {
  target: KindRef;
  finalizer: string;
  owner: StatusOwner;
  /** The flag that allows a clusterRef to another namespace, named in the refusal. */
  crossNamespaceFlag: string;
  /** Why the spec names an account or schema no object may manage (naming the field), or null. `systemUsers`: the cluster's. */
  reserved(obj: T, systemUsers: readonly string[]): Refusal | null;
  /** What the object claims on its cluster (decide-ownership.ts): of two objects claiming one thing, the later is refused. */
  claims(obj: T): string[];
  /** The desired state, or why the spec cannot be applied (naming the field). May read the API (the password Secret). */
  desired(obj: T, flavour: Flavour, ctx: ControllerContext): Promise<D | Refusal>;
  /** Reads what the master holds and decides what makes it hold `desired`. */
  plan(node: MysqlNode, desired: D, obj: T): Promise<Plan>;
  /** The status fields besides the condition as they stand, when nothing is applied. */
  statusFields(obj: T): Record<string, unknown>;
  /** On deletion under the `delete` policy: the drops of what the object made; what it adopted is kept unless asked. */
  dropPlan(obj: T): DropPlan;
}

/** Thrown after a wait is reported, so the queue retries with backoff. */
export class ProvisionWaitError extends Error {
  readonly reason: ProvisionReason;
  constructor(reason: ProvisionReason, message: string) {
    super(`${reason}: ${message}`);
    this.name = 'ProvisionWaitError';
    this.reason = reason;
  }
}

/** Whether `obj`'s clusterRef names `cluster`: a cluster's change enqueues the objects naming it. */
export function namesCluster(obj: ProvisionedObject, cluster: KubeObject): boolean {
  const ref = clusterRefOf(obj);
  return ref.namespace === cluster.metadata?.namespace && ref.name === cluster.metadata?.name;
}

/** What both controllers do with the API: their kind (finalizer patch, status apply), clusters, pods and Secrets. */
export function provisionPermissions(plural: string): Permission[] {
  return [
    { group: API_GROUP, resources: [plural], verbs: ['list', 'watch', 'patch'] },
    { group: API_GROUP, resources: [`${plural}/status`], verbs: ['patch'] },
    { group: API_GROUP, resources: [PLURAL_MYSQL_CLUSTERS], verbs: ['list', 'watch'] },
    { group: '', resources: ['secrets', 'pods'], verbs: ['list', 'watch'] },
  ];
}

export function clusterRefOf(obj: ProvisionedObject): { namespace: string; name: string } {
  return { namespace: obj.spec.clusterRef.namespace || (obj.metadata?.namespace ?? ''), name: obj.spec.clusterRef.name };
}

/** The annotation's policy; anything but `retain` deletes (the anchor's default) what the object made. */
export function deletionPolicy(obj: KubeObject): 'retain' | 'delete' {
  return obj.metadata?.annotations?.[ANNOTATION_RESOURCE_DELETION_POLICY] === RESOURCE_DELETION_POLICY.retain ? 'retain' : 'delete';
}

/** The Ready condition to hold, keeping its transition time while its status stays. */
export function readyCondition(
  old: ProvisionCondition | undefined,
  ok: boolean,
  reason: ProvisionReason,
  message: string,
  now: Date,
): ProvisionCondition {
  const status = ok ? CONDITION_STATUS.true : CONDITION_STATUS.false;
  return {
    type: PROVISION_CONDITION.ready,
    status,
    lastTransitionTime: transitionTime(old, status, now),
    reason,
    message: redactString(message),
  };
}

function sameStatus(obj: ProvisionedObject, cond: ProvisionCondition, fields: Record<string, unknown>): boolean {
  const old = obj.status?.conditions?.find((c) => c.type === PROVISION_CONDITION.ready);
  if (!old || old.status !== cond.status || old.reason !== cond.reason || old.message !== cond.message) return false;
  const status = obj.status as Record<string, unknown>;
  return Object.entries(fields).every(([k, v]) => JSON.stringify(status[k]) === JSON.stringify(v));
}

interface Pass<T extends ProvisionedObject, D> {
  req: Request;
  ctx: ControllerContext;
  kind: ProvisionKind<T, D>;
  opts: ProvisionOptions;
  obj: T;
  log: Logger;
}

export async function reconcileProvisioned<T extends ProvisionedObject, D>(
  req: Request,
  ctx: ControllerContext,
  kind: ProvisionKind<T, D>,
  opts: ProvisionOptions,
): Promise<ReconcileResult | undefined> {
  const obj = (await ctx.informer<T>(kind.target)).get(req.namespace, req.name);
  if (!obj) return;
  const ref = clusterRefOf(obj);
  const pass: Pass<T, D> = { req, ctx, kind, opts, obj, log: ctx.log.child({ object: req.key, cluster: `${ref.namespace}/${ref.name}` }) };
  const crossNamespace = ref.namespace !== req.namespace && !opts.allowCrossNamespace;
  const cluster = (await ctx.informer<MysqlCluster>(KINDS.cluster)).get(ref.namespace, ref.name);

  // Set by the server when a delete waits for finalizers (not in the runtime's ObjectMeta).
  if ((obj.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp)
    return deleting(pass, crossNamespace ? undefined : cluster);

  if (crossNamespace) {
    return report(
      pass,
      refusal(
        PROVISION_REASONS.crossNamespaceRefused,
        `spec.clusterRef.namespace ${ref.namespace} is not the object's namespace ${req.namespace}, and the operator does not allow that (--${kind.crossNamespaceFlag})`,
      ),
      false,
    );
  }
  // Held before anything exists in MySQL, so a deletion cannot leave it behind.
  if (!obj.metadata?.finalizers?.includes(kind.finalizer)) {
    await setFinalizers(pass, [...(obj.metadata?.finalizers ?? []), kind.finalizer]);
    return;
  }
  if (!cluster) return report(pass, refusal(PROVISION_REASONS.clusterNotFound, `MysqlCluster ${ref.namespace}/${ref.name} does not exist`));
  // Not retried: the spec's change, or the holder's change or deletion, enqueues it again.
  const notOurs = await ownershipRefusal(pass);
  if (notOurs) return report(pass, notOurs, false);

  const flavour =
    flavourFromVersionSpec(cluster.spec?.mysqlVersion ?? DEFAULT_MYSQL_VERSION) ?? flavourFromVersionSpec(DEFAULT_MYSQL_VERSION)!;
  const desired = await kind.desired(obj, flavour, ctx);
  // A spec MySQL would refuse is not retried: its next change enqueues it again.
  if (isRefusal(desired))
    return report(pass, desired, desired.refused !== PROVISION_REASONS.invalidSpec && desired.refused !== PROVISION_REASONS.reservedName);

  const node = await connectAsRoot(pass, cluster);
  if (isRefusal(node)) return report(pass, node);
  let plan: Plan | undefined;
  try {
    plan = await kind.plan(node, desired, obj);
    await node.applyChanges(plan.changes);
    if (plan.done.length > 0) {
      pass.log.info('applied', { changes: plan.done });
      ctx.events.normal(obj, PROVISION_REASONS.provisionSucceeded, plan.done.join('; '));
    }
    await writeStatus(
      pass,
      readyCondition(condition(obj), true, PROVISION_REASONS.provisionSucceeded, 'applied on the master', new Date()),
      plan.status(true),
    );
  } catch (err) {
    if (!isMysqlError(err)) throw err;
    return report(
      pass,
      refusal(PROVISION_REASONS.provisionFailed, errorMessage(err)),
      true,
      plan ? plan.status(false) : kind.statusFields(obj),
    );
  } finally {
    await node.close();
  }
}

/** The object as the claim check sees it. */
export function claimant<T extends ProvisionedObject, D>(kind: ProvisionKind<T, D>, o: T): Claimant {
  const ref = clusterRefOf(o);
  return {
    namespace: o.metadata?.namespace ?? '',
    name: o.metadata?.name ?? '',
    creationTimestamp: (o.metadata as { creationTimestamp?: string } | undefined)?.creationTimestamp ?? '',
    cluster: `${ref.namespace}/${ref.name}`,
    claims: kind.claims(o),
  };
}

/**
 * Why the object may not touch the server at all: it names a reserved account or schema, or an
 * earlier object claims the same. Checked on every pass and on deletion (nothing is dropped then).
 */
async function ownershipRefusal<T extends ProvisionedObject, D>(pass: Pass<T, D>): Promise<Refusal | undefined> {
  const { obj, kind, ctx } = pass;
  const ref = clusterRefOf(obj);
  const operated = (await ctx.informer<KubeObject & { data?: Record<string, string> }>(KINDS.secret)).get(
    ref.namespace,
    names.operatedSecret(ref.name),
  );
  const reserved = kind.reserved(obj, operated ? systemUserNames(operated.data) : []);
  if (reserved) return reserved;
  const all = (await ctx.informer<T>(kind.target)).list({});
  const held = claimHolder(
    claimant(kind, obj),
    all.map((o) => claimant(kind, o)),
  );
  return held ? claimRefusal(held.claim, held.holder) : undefined;
}

/**
 * Whether `p` and `s` are two objects of the kind claiming one thing on one cluster: a change or
 * deletion of one enqueues the other (the refused one may now hold the claim).
 */
export function rivals<T extends ProvisionedObject, D>(kind: ProvisionKind<T, D>): (p: T, s: T) => boolean {
  return (p, s) => {
    const a = claimant(kind, p);
    const b = claimant(kind, s);
    return a.cluster === b.cluster && !(a.namespace === b.namespace && a.name === b.name) && a.claims.some((c) => b.claims.includes(c));
  };
}

async function deleting<T extends ProvisionedObject, D>(
  pass: Pass<T, D>,
  cluster: MysqlCluster | undefined,
): Promise<ReconcileResult | undefined> {
  const { obj, kind, ctx } = pass;
  const finalizers = obj.metadata?.finalizers ?? [];
  if (!finalizers.includes(kind.finalizer)) return;
  const rest = finalizers.filter((f) => f !== kind.finalizer);
  if (deletionPolicy(obj) === RESOURCE_DELETION_POLICY.retain) {
    ctx.events.normal(obj, PROVISION_REASONS.retained, `kept in MySQL: annotation ${ANNOTATION_RESOURCE_DELETION_POLICY} is retain`);
    return setFinalizers(pass, rest);
  }
  if (!cluster) {
    // A cluster that is gone (or was never ours to write) holds nothing of this object.
    ctx.events.normal(obj, PROVISION_REASONS.clusterNotFound, `nothing to drop: MysqlCluster ${clusterRefOf(obj).name} is not there`);
    return setFinalizers(pass, rest);
  }
  // A reserved name, or an account or schema another object holds: never this object's to drop.
  const notOurs = await ownershipRefusal(pass);
  if (notOurs) {
    ctx.events.normal(obj, PROVISION_REASONS.retained, `nothing dropped: ${notOurs.message}`);
    pass.log.info('kept', { reason: notOurs.refused });
    return setFinalizers(pass, rest);
  }
  const { changes, kept } = kind.dropPlan(obj);
  const keptWords =
    kept.length > 0
      ? `; kept ${kept.join(', ')}: it existed before this object (annotate ${ANNOTATION_RESOURCE_DELETION_POLICY}: delete to drop it)`
      : '';
  if (changes.length === 0) {
    ctx.events.normal(obj, PROVISION_REASONS.retained, `nothing dropped${keptWords || ': this object made nothing in MySQL'}`);
    return setFinalizers(pass, rest);
  }
  const node = await connectAsRoot(pass, cluster);
  if (isRefusal(node)) return report(pass, node);
  try {
    await node.applyChanges(changes);
  } catch (err) {
    if (!isMysqlError(err)) throw err;
    return report(pass, refusal(PROVISION_REASONS.provisionFailed, errorMessage(err)));
  } finally {
    await node.close();
  }
  ctx.events.normal(obj, PROVISION_REASONS.dropped, `dropped from MySQL${keptWords}`);
  pass.log.info('dropped', { kept });
  return setFinalizers(pass, rest);
}

/** The cluster's master, logged in as root; or why not (no writable master, no root password...). */
async function connectAsRoot<T extends ProvisionedObject, D>(pass: Pass<T, D>, cluster: MysqlCluster): Promise<MysqlNode | Refusal> {
  const { ctx, opts } = pass;
  const ns = cluster.metadata?.namespace ?? '';
  const name = cluster.metadata?.name ?? '';
  const secrets = await ctx.informer<KubeObject & { data?: Record<string, string> }>(KINDS.secret);
  const userSecret = secrets.get(ns, cluster.spec.secretName);
  const key = userSecret && rootPasswordKey(userSecret);
  if (!userSecret || !key) {
    return refusal(
      PROVISION_REASONS.rootPasswordMissing,
      `Secret ${ns}/${cluster.spec.secretName} (the cluster's spec.secretName) has no root password`,
    );
  }
  const pods = (await ctx.informer<PodObject>(POD_TARGET)).list({ namespace: ns, labels: { [LABEL_CLUSTER]: name } });
  const master = await connectToMaster({
    cluster: clusterView(cluster),
    pods,
    operatedSecretData: secrets.get(ns, names.operatedSecret(name))?.data,
    resolve: opts.resolve,
    servers: opts.servers,
  });
  if (master.kind === 'none') return refusal(master.reason, master.message);
  await master.node.close();
  if (master.server.readOnly) {
    return refusal(PROVISION_REASONS.masterReadOnly, `the master ${master.master.pod} is read-only: waiting for a writable master`);
  }
  try {
    return await connectNode({ ...master.master.endpoint, user: ROOT_USER, password: decodeSecretData(userSecret.data)[key] ?? '' });
  } catch (err) {
    if (!isMysqlError(err)) throw err;
    const reason = err.kind === 'access-denied' ? PROVISION_REASONS.rootAccessDenied : PROVISION_REASONS.masterUnreachable;
    return refusal(reason, `${master.master.pod} as ${ROOT_USER}: ${errorMessage(err)}`);
  }
}

function condition(obj: ProvisionedObject): ProvisionCondition | undefined {
  return obj.status?.conditions?.find((c) => c.type === PROVISION_CONDITION.ready);
}

/** Reports a decision not to act: condition, Event, log; then retries with backoff unless `retry` is false. */
async function report<T extends ProvisionedObject, D>(
  pass: Pass<T, D>,
  r: Refusal,
  retry = true,
  fields: Record<string, unknown> = pass.kind.statusFields(pass.obj),
): Promise<undefined> {
  const { obj, ctx } = pass;
  const message = redactString(r.message);
  // One Event per new condition: the retries of a wait, and the pass a status write itself
  // triggers, add none.
  if (await writeStatus(pass, readyCondition(condition(obj), false, r.refused, r.message, new Date()), fields)) {
    if (r.refused === PROVISION_REASONS.failoverInProgress) ctx.events.normal(obj, r.refused, message);
    else ctx.events.warning(obj, r.refused, message);
    pass.log.info('not applied', { reason: r.refused, message });
  }
  if (retry) throw new ProvisionWaitError(r.refused, message);
  return undefined;
}

/** Applies the status when it differs from the cached one; whether it did. */
async function writeStatus<T extends ProvisionedObject, D>(
  pass: Pass<T, D>,
  cond: ProvisionCondition,
  fields: Record<string, unknown>,
): Promise<boolean> {
  const { obj, kind, ctx, req } = pass;
  if (sameStatus(obj, cond, fields)) return false;
  await applyStatus(ctx.client, { ...kind.target, namespace: req.namespace, name: req.name }, kind.owner, {
    conditions: [cond],
    ...fields,
  });
  return true;
}

/** Guarded by the cached resourceVersion: a stale cache gets a conflict and the key is retried. */
async function setFinalizers<T extends ProvisionedObject, D>(pass: Pass<T, D>, finalizers: string[]): Promise<undefined> {
  const { obj, kind, ctx, req } = pass;
  await ctx.client.patch(
    { ...kind.target, namespace: req.namespace, name: req.name },
    {
      metadata: { finalizers, resourceVersion: obj.metadata?.resourceVersion },
    },
  );
  return undefined;
}

/** Keys of the objects of `primary` that `refers` to `source`, each time a source object changes. */
export async function watchReferences<P extends KubeObject, S extends KubeObject>(
  ctx: ControllerContext,
  enqueue: (key: string) => void,
  primary: KindRef,
  source: KindRef,
  refers: (p: P, s: S) => boolean,
): Promise<void> {
  const [primaries, sources] = await Promise.all([ctx.informer<P>(primary), ctx.informer<S>(source)]);
  const enqueueReferrers = (s: S): void => {
    for (const p of primaries.list({})) if (refers(p, s)) enqueue(objectKey(p));
  };
  // The old object too: a source that stops matching (a renamed account) still wakes its former referrers.
  const onUpdate = (old: S, s: S): void => {
    enqueueReferrers(old);
    enqueueReferrers(s);
  };
  const off = sources.addHandlers({ onAdd: enqueueReferrers, onUpdate, onDelete: enqueueReferrers });
  if (ctx.signal.aborted) off();
  else ctx.signal.addEventListener('abort', off, { once: true });
}
