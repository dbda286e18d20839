// Writes the part of an object's status that one controller owns, and only that part, so several
// controllers can write one status side by side without overwriting each other: a server-side apply
// on the status subresource with the controller's own field manager, force=true, naming only its
// fields (its conditions as entries of the conditions list map). See docs/runtime.md.
//
// What the server does with it (structured-merge-diff, as kube-apiserver v1.26 runs it):
// - fields of other managers are left alone; the applied ones are merged (list maps by key);
// - a field this manager applied before and no longer names is removed, unless another manager
//   owns it too;
// - force=true takes over fields another manager set to other values (409 otherwise).
//
// Objects written before (by the anchor or by our earlier releases with a PUT on /status: Update
// operations, manager `mysql-operator`) come with Update entries that own fields of this owner's
// part. Applying the same value only shares such a field, so the old entry would keep it alive after
// we stop naming it (and once a status list becomes a list map, the server hands the old owner of
// the whole list every item it holds). So the first apply that meets such an entry hands that part
// over: the entries are rewritten through the main resource (guarded by resourceVersion), the part
// moves into this owner's Apply entry, and the status is applied again, which prunes what this owner
// no longer names. Later applies find nothing to hand over: one request per write.
import type { KubeClient } from './client.ts';
import { ConflictError } from './errors.ts';
import { unionFields } from './fields-v1.ts';
import type { FieldsV1, KubeObject, ManagedFieldsEntry, ObjectRef } from './types.ts';

/** Who writes which part of a status: the field manager and the fields it owns alone. */
export interface StatusOwner {
  /** One per controller, e.g. `mysql-operator-cluster`. */
  fieldManager: string;
  /** Top-level status fields owned whole (`readyNodes`, `nodes`...). */
  fields: readonly string[];
  /** Entries of `status.conditions` owned, by type. */
  conditions: readonly string[];
}

const HANDOVER_ATTEMPTS = 3;

/**
 * Applies `status` (only fields and conditions `owner` owns: anything else is a programmer error)
 * and returns the object as stored. Everything the owner owns must be named on every call: a field
 * left out is removed.
 */
export async function applyStatus<T extends KubeObject = KubeObject>(
  client: KubeClient,
  ref: ObjectRef,
  owner: StatusOwner,
  status: Record<string, unknown>,
): Promise<T> {
  checkOwned(owner, status);
  const body = {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: ref.namespace ? { name: ref.name, namespace: ref.namespace } : { name: ref.name },
    status,
  };
  const apply = (): Promise<T> =>
    client.patch<T>(ref, body, { type: 'apply', subresource: 'status', force: true, fieldManager: owner.fieldManager });
  for (let attempt = 1; ; attempt++) {
    const applied = await apply();
    const meta = applied.metadata as { resourceVersion?: string; managedFields?: ManagedFieldsEntry[] } | undefined;
    const handedOver = handOver(meta?.managedFields ?? [], owner);
    if (!handedOver) return applied;
    try {
      await client.patch(
        ref,
        { metadata: { resourceVersion: meta?.resourceVersion, managedFields: handedOver } },
        { type: 'merge', fieldManager: owner.fieldManager },
      );
    } catch (err) {
      if (err instanceof ConflictError && attempt < HANDOVER_ATTEMPTS) continue;
      throw err;
    }
    return apply();
  }
}

function checkOwned(owner: StatusOwner, status: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(status)) {
    if (k === 'conditions' && owner.conditions.length > 0) {
      if (!Array.isArray(v)) throw new Error(`${owner.fieldManager}: status.conditions must be a list`);
      for (const c of v as Array<{ type?: unknown }>) {
        if (typeof c?.type !== 'string' || !owner.conditions.includes(c.type)) {
          throw new Error(`${owner.fieldManager} does not own the status condition ${String(c?.type)}`);
        }
      }
    } else if (!owner.fields.includes(k)) {
      throw new Error(`${owner.fieldManager} does not own status.${k}`);
    }
  }
}

const isLeaf = (s: FieldsV1): boolean => Object.keys(s).length === 0;

/**
 * A node left without children is dropped, even if it was a member itself (`.`): written back as
 * a bare member, the server would read a map or list-map node as owned atomically and, reconciling
 * with the schema, give its old owner every field it holds again.
 */
function withChildren(node: FieldsV1): FieldsV1 | undefined {
  return Object.keys(node).some((k) => k !== '.') ? node : undefined;
}

function conditionType(itemKey: string): unknown {
  try {
    return (JSON.parse(itemKey.slice(2)) as { type?: unknown }).type;
  } catch {
    return undefined;
  }
}

/** The part of an entry's set that falls in `owner`'s part of the status, and the rest. */
export function splitOwned(set: FieldsV1, owner: StatusOwner): { owned: FieldsV1 | undefined; rest: FieldsV1 | undefined } {
  const status = set['f:status'];
  if (!status || isLeaf(status)) return { owned: undefined, rest: set };
  const owned: FieldsV1 = {};
  const restStatus: FieldsV1 = {};
  for (const [k, v] of Object.entries(status)) {
    if (k.startsWith('f:') && owner.fields.includes(k.slice(2))) owned[k] = v;
    else if (k === 'f:conditions' && !isLeaf(v) && owner.conditions.length > 0) {
      const mine: FieldsV1 = {};
      const others: FieldsV1 = {};
      for (const [item, sub] of Object.entries(v)) {
        if (item.startsWith('k:') && owner.conditions.includes(conditionType(item) as string)) mine[item] = sub;
        else others[item] = sub;
      }
      if (!isLeaf(mine)) owned[k] = mine;
      const left = withChildren(others);
      if (left) restStatus[k] = left;
    } else restStatus[k] = v;
  }
  if (isLeaf(owned)) return { owned: undefined, rest: set };
  const rest: FieldsV1 = { ...set };
  const leftStatus = withChildren(restStatus);
  if (leftStatus) rest['f:status'] = leftStatus;
  else delete rest['f:status'];
  return { owned: { 'f:status': owned }, rest: isLeaf(rest) ? undefined : rest };
}

/**
 * The managedFields with every Update entry's share of `owner`'s part moved into `owner`'s Apply
 * entry on /status, or undefined when no Update entry holds any of it.
 */
export function handOver(entries: readonly ManagedFieldsEntry[], owner: StatusOwner): ManagedFieldsEntry[] | undefined {
  const isMine = (e: ManagedFieldsEntry): boolean =>
    e.manager === owner.fieldManager && e.operation === 'Apply' && e.subresource === 'status';
  let taken: FieldsV1 | undefined;
  const kept: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e.operation !== 'Update' || !e.fieldsV1) {
      kept.push(e);
      continue;
    }
    const { owned, rest } = splitOwned(e.fieldsV1, owner);
    if (!owned) {
      kept.push(e);
      continue;
    }
    taken = taken ? unionFields(taken, owned) : owned;
    if (rest) kept.push({ ...e, fieldsV1: rest });
  }
  if (!taken) return undefined;
  const mine = kept.find(isMine);
  if (mine) return kept.map((e) => (e === mine ? { ...e, fieldsV1: unionFields(e.fieldsV1 ?? {}, taken) } : e));
  const apiVersion = entries.find((e) => e.apiVersion)?.apiVersion;
  return [
    ...kept,
    {
      manager: owner.fieldManager,
      operation: 'Apply',
      ...(apiVersion ? { apiVersion } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: taken,
      subresource: 'status',
    },
  ];
}
