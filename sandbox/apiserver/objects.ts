// The storage semantics of kube-apiserver's generic registry, for every served resource:
// create/update/patch/delete with resourceVersion preconditions, generation, status and scale
// subresources, finalizers and deletionTimestamp, managedFields, list paging and selectors.
// Garbage collection and namespace cleanup (the controller-manager's part) live in gc.ts.
import { randomUUID } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { checkCrd } from './structural/index.ts';
import { admitCustomResource, defaultCustomResource } from './cr-schema.ts';
import { builtinCauses, decodeBuiltin, dropUnknownFields } from './builtin-validation.ts';
import { UPDATE_RULES } from './update-rules.ts';
import { base64ErrorAt, dataKeyCauses, metadataCauses, nameCauses } from './meta-validation.ts';
import { clone, deepEqual, getPath, isObject, orderObject, rfc3339, setPath } from './json.ts';
import { disownPaths, managedFieldsForUpdate, requestedEntries, serverSideApply, type ManagedEntry } from './managed-fields.ts';
import { jsonPatch, mergePatch, strategicMerge } from './patch.ts';
import { type Resources, defsFromCrd } from './resources.ts';
import { parseFieldSelector, parseLabelSelector, type FieldSelector } from './selectors.ts';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden,
  internalError,
  invalid,
  notFound,
  statusBody,
  successStatus,
  unsupportedPatch,
  type StatusCause,
} from './status.ts';
import { type Store, objectKey } from './store.ts';
import { apiVersionOf, resourceKey, type DefaultContext, type KObj, type ResourceDef } from './types.ts';

/** errors.NewInvalid(schema.GroupKind{}, "", ...) of a patch that does not decode: no kind, no name. */
function patchInvalid(value: string, why: string): ApiError {
  const cause: StatusCause = { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${why}`, field: 'patch' };
  return new ApiError(422, statusBody(422, 'Invalid', ` "" is invalid: patch: ${cause.message}`, { causes: [cause] }));
}

/** Go's %+v of a decoded JSON value (a strategic patch's map, as its strict errors print it). */
function goPrint(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goPrint).join(' ')}]`;
  if (isObject(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goPrint(v[k])}`)
      .join(' ')}]`;
  return String(v);
}

/** Kinds whose ObjectMeta pkg/apis/core validates (with its finalizer rule): built-in kinds but CRDs. */
function kubeValidated(def: ResourceDef): boolean {
  return def.builtin && def.group !== 'apiextensions.k8s.io';
}

export interface WriteOptions {
  manager: string;
  dryRun: boolean;
  fieldValidation: string;
  /** Filled with Warning header texts (pruned unknown fields). */
  warnings: string[];
  /** Paths of fields the request body gives twice (reported once, by the first admission). */
  duplicateFields?: string[];
  /** The API version a view's request came through (events.k8s.io/v1 Events are stored as core/v1): some rules depend on it. */
  requestVersion?: string;
  /** Set by a patch: the value its strict decoding errors quote under the field `patch`. */
  patchValue?: string;
}

export interface DeleteOptions {
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface ListQuery {
  labelSelector?: string | null;
  fieldSelector?: string | null;
  limit?: number;
  continue?: string | null;
  resourceVersion?: string | null;
  resourceVersionMatch?: string | null;
}

export interface ListResult {
  items: KObj[];
  resourceVersion: string;
  continue: string;
  remainingItemCount?: number;
}

/** What the GC needs to hear about; implemented by gc.ts. */
export interface LifecycleHooks {
  removed(def: ResourceDef, obj: KObj): void;
  written(def: ResourceDef, obj: KObj): void;
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const APPLY_PATCH = 'application/apply-patch+yaml';
const CR_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', APPLY_PATCH];
const BUILTIN_PATCH_TYPES = [...CR_PATCH_TYPES, 'application/strategic-merge-patch+json'];
const SYSTEM_FINALIZERS = { orphan: 'orphan', foreground: 'foregroundDeletion' };
/** Go package of a group's internal types, named in conversion errors. */
const INTERNAL_PACKAGES: Record<string, string> = { '': 'core', 'events.k8s.io': 'core', 'rbac.authorization.k8s.io': 'rbac' };
/** Registries with ReturnDeletedObject: a DELETE that removes one answers the object, not a Status. */
const RETURNS_DELETED_OBJECT = new Set(['pods', 'services', 'serviceaccounts']);

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as KObj;
    if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('bad token');
    return { rv: t.rv, start: t.start };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

function cleanMetadata(meta: KObj): void {
  for (const k of ['labels', 'annotations']) if (isObject(meta[k]) && Object.keys(meta[k]).length === 0) delete meta[k];
  for (const k of ['finalizers', 'ownerReferences', 'managedFields']) if (Array.isArray(meta[k]) && meta[k].length === 0) delete meta[k];
  for (const k of Object.keys(meta)) if (meta[k] === null) delete meta[k];
}

function withoutMetaStatus(o: KObj): KObj {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
}

function withoutResourceVersion(o: KObj): KObj {
  const meta = { ...o.metadata };
  delete meta.resourceVersion;
  return { ...o, metadata: meta };
}

/** The first host of a Service range: the `kubernetes` Service's ClusterIP, which kube-apiserver's serving certificate covers. */
export function kubernetesServiceIP(cidr: string): string {
  const n = parseServiceCIDR(cidr).first + 1;
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
}

function parseServiceCIDR(cidr: string): { first: number; size: number } {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const prefix = m ? Number(m[5]) : NaN;
  if (!m || octets.some((o) => o > 255) || prefix < 8 || prefix > 29)
    throw new Error(`serviceCIDR ${JSON.stringify(cidr)}: want an IPv4 range a.b.c.d/8 to /29`);
  const size = 2 ** (32 - prefix);
  const n = octets.reduce((acc, o) => acc * 256 + o, 0);
  return { first: n - (n % size), size };
}

export class ObjectService {
  readonly store: Store;
  readonly resources: Resources;
  hooks: LifecycleHooks = { removed: () => {}, written: () => {} };
  private readonly usedIps = new Set<string>();
  private readonly usedNodePorts = new Set<number>();
  private readonly stockAdmission: boolean;
  /** First address and size of the Service ClusterIP range. */
  private readonly serviceRange: { first: number; size: number };

  constructor(store: Store, resources: Resources, stockAdmission = true, serviceCIDR = '10.0.0.0/24') {
    this.store = store;
    this.resources = resources;
    this.stockAdmission = stockAdmission;
    this.serviceRange = parseServiceCIDR(serviceCIDR);
  }

  /** A random free address of the range, never its network address, its first host (the real
   * server's `kubernetes` Service) or its broadcast address. */
  private allocateClusterIP(): string {
    const { first, size } = this.serviceRange;
    if (this.usedIps.size >= size - 3) throw internalError('failed to allocate a serviceIP: range is full');
    for (;;) {
      const n = first + 2 + Math.floor(Math.random() * (size - 3));
      const ip = [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
      if (!this.usedIps.has(ip)) {
        this.usedIps.add(ip);
        return ip;
      }
    }
  }

  private allocateNodePort(): number {
    if (this.usedNodePorts.size >= 2768) throw internalError('failed to allocate a nodePort: range is full');
    for (;;) {
      const port = 30000 + Math.floor(Math.random() * 2768);
      if (!this.usedNodePorts.has(port)) {
        this.usedNodePorts.add(port);
        return port;
      }
    }
  }

  private defaultContext(old?: KObj): DefaultContext {
    return {
      allocateClusterIP: () => this.allocateClusterIP(),
      allocateNodePort: () => this.allocateNodePort(),
      old,
      stockAdmission: this.stockAdmission,
    };
  }

  rkey(def: ResourceDef): string {
    return def.view ? def.view.storage : resourceKey(def);
  }

  /** The resource whose storage `def` shows (itself unless it is a view). */
  private storageOf(def: ResourceDef): ResourceDef {
    if (!def.view) return def;
    const storage = def.view.storage;
    return this.resources.all().find((d) => !d.view && resourceKey(d) === storage)!;
  }

  private serveCrd(crd: KObj): void {
    const since = this.store.currentRv();
    this.resources.setCrd(
      crd.metadata.name,
      defsFromCrd(crd).map((d) => ({ ...d, servedSinceRv: since })),
    );
  }

  /** Stored custom resources as another version or a newer schema shows them (stored objects never change). */
  private readonly defaulted = new WeakMap<KObj, { def: ResourceDef; obj: KObj }>();

  /** A stored object as `def` shows it (views converted; CRs in the requested version, with the defaults of a changed CRD). */
  present(def: ResourceDef, obj: KObj): KObj {
    if (def.view) return orderObject(def, def.view.toView(obj));
    const otherVersion = !def.builtin && obj.apiVersion !== apiVersionOf(def);
    const olderSchema = def.servedSinceRv !== undefined && Number(obj.metadata.resourceVersion) < def.servedSinceRv;
    if (!otherVersion && !olderSchema) return obj;
    const cached = this.defaulted.get(obj);
    if (cached?.def === def) return cached.obj;
    // Conversion strategy None: another served version is the same object under its apiVersion.
    const shown = orderObject(def, defaultCustomResource(def, { ...clone(obj), apiVersion: apiVersionOf(def) }));
    this.defaulted.set(obj, { def, obj: shown });
    return shown;
  }

  /** `text` as a selector of `def`'s objects: a view's paths in its storage's terms, built-ins' own field labels. */
  fieldSelector(def: ResourceDef, text: string | null | undefined): FieldSelector {
    const storage = this.storageOf(def);
    return parseFieldSelector(def.view && text ? def.view.selector(text) : text, storage.builtin ? storage.resource : '');
  }

  get(def: ResourceDef, ns: string | undefined, name: string): KObj {
    const obj = this.store.get(this.rkey(def), ns, name);
    if (!obj) throw notFound(def, name);
    return this.present(def, obj);
  }

  list(def: ResourceDef, ns: string | undefined, q: ListQuery): ListResult {
    const oldest = this.store.oldestWatchableRv();
    let listRv = this.store.currentRv();
    let start = '';
    let snapshot: number | undefined;
    if (q.continue) {
      const token = decodeContinue(q.continue);
      if (token.rv !== -1 && token.rv < oldest) {
        throw expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
          { continue: encodeContinue(-1, token.start) },
        );
      }
      if (token.rv !== -1) listRv = snapshot = token.rv;
      start = token.start;
    } else if (q.resourceVersionMatch === 'Exact' && q.resourceVersion) {
      if (Number(q.resourceVersion) < oldest) throw expired('The resourceVersion for the provided list is too old.');
      listRv = snapshot = Math.min(Number(q.resourceVersion), listRv);
    }
    const labels = parseLabelSelector(q.labelSelector);
    const fields = this.fieldSelector(def, q.fieldSelector);
    // Pages of one list are one snapshot, like etcd serving the list's revision.
    const all =
      snapshot !== undefined && snapshot < this.store.currentRv()
        ? this.store.listAt(this.rkey(def), ns, snapshot, start)
        : start
          ? this.store.listFrom(this.rkey(def), ns, start)
          : this.store.list(this.rkey(def), ns);
    const limit = q.limit && q.limit > 0 ? q.limit : 0;
    const unfiltered = !q.labelSelector && !q.fieldSelector;
    const matching: KObj[] = [];
    for (const o of all) {
      if (unfiltered || (labels(o.metadata.labels) && fields(o))) matching.push(o);
      if (limit && unfiltered && matching.length > limit) break;
    }
    for (let i = 0; i < matching.length; i++) matching[i] = this.present(def, matching[i]!);
    if (limit && matching.length > limit) {
      const page = matching.slice(0, limit);
      const last = page[page.length - 1]!;
      const result: ListResult = {
        items: page,
        resourceVersion: String(listRv),
        continue: encodeContinue(listRv, `${objectKey(ns ? undefined : last.metadata.namespace, last.metadata.name)}\u0000`),
      };
      if (unfiltered) result.remainingItemCount = all.length - limit;
      return result;
    }
    return { items: matching, resourceVersion: String(listRv), continue: '' };
  }

  private requireNamespace(def: ResourceDef, ns: string | undefined, name: string): void {
    if (!def.namespaced || !ns) return;
    const nsObj = this.store.get('namespaces', undefined, ns);
    if (!nsObj) {
      throw new ApiError(404, statusBody(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' }));
    }
    if (nsObj.metadata.deletionTimestamp) {
      throw forbidden(
        `${def.resource} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          name,
          ...(def.group ? { group: def.group } : {}),
          kind: def.resource,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
        },
      );
    }
  }

  private admit(def: ResourceDef, obj: KObj, old: KObj | undefined, opts: WriteOptions, name: string, sub?: string): KObj {
    if (isCrdDef(def) && sub !== 'status') {
      const errs = checkCrd(obj);
      if (errs.length > 0) throw invalid(def, name, errs);
    }
    if (def.builtin && (def.resource === 'secrets' || def.resource === 'configmaps') && def.group === '') {
      const base64Fields = def.resource === 'secrets' ? ['data'] : ['binaryData'];
      for (const field of base64Fields) {
        for (const v of Object.values((obj[field] ?? {}) as KObj)) {
          const at = base64ErrorAt(String(v));
          if (at >= 0)
            throw badRequest(`${def.kind} in version "v1" cannot be handled as a ${def.kind}: illegal base64 data at input byte ${at}`);
        }
      }
      const keys = dataKeyCauses(obj);
      if (keys.length > 0) throw invalid(def, name, keys);
    }
    if (def.builtin) {
      this.strictDecoding(def, opts, dropUnknownFields(def, obj));
      if (old && def.resource === 'services' && isObject(old.spec) && isObject(obj.spec) && !obj.spec.clusterIP) {
        obj.spec.clusterIP = old.spec.clusterIP;
        if (old.spec.clusterIPs) obj.spec.clusterIPs = old.spec.clusterIPs;
      }
      def.defaulter?.(obj, this.defaultContext(old));
      const refused = builtinCauses(def, obj, { requestVersion: opts.requestVersion ?? apiVersionOf(def), creating: old === undefined });
      if (refused.length > 0) throw invalid(def, name, refused);
      return obj;
    }
    const result = admitCustomResource(def, obj, old, sub);
    this.strictDecoding(def, opts, result.unknownFields);
    if (result.causes.length > 0) throw invalid(def, name, result.causes);
    return result.object;
  }

  /** Duplicate fields of the request body, then unknown ones: 400 under Strict, Warning headers under Warn. */
  private strictDecoding(def: ResourceDef, opts: WriteOptions, unknownFields: string[]): void {
    const errors = [
      ...(opts.duplicateFields ?? []).map((f) => `duplicate field "${f}"`),
      ...unknownFields.map((f) => `unknown field "${f}"`),
    ];
    opts.duplicateFields = [];
    if (errors.length === 0) return;
    if (opts.fieldValidation === 'Strict') {
      const why = `strict decoding error: ${errors.join(', ')}`;
      // A patch is decoded after it is applied (patch.go): the error names the field `patch`, with
      // the patched object (JSON patches) or the patch (strategic) as the value, in a 422.
      if (opts.patchValue !== undefined) throw patchInvalid(opts.patchValue, why);
      throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`);
    }
    if (opts.fieldValidation !== 'Ignore') opts.warnings.push(...errors);
  }

  private checkTypeMeta(def: ResourceDef, body: unknown): asserts body is KObj {
    if (!isObject(body)) throw badRequest(`the object provided is unrecognized (must be of type ${def.kind})`);
    const gv = apiVersionOf(def);
    if (body.apiVersion !== undefined && body.apiVersion !== gv) {
      throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${gv})`);
    }
    if (body.kind !== undefined && body.kind !== def.kind) {
      // A built-in body of another kind of the same version decodes, then fails to convert.
      if (def.builtin && this.resources.all().some((d) => d.builtin && !d.view && apiVersionOf(d) === gv && d.kind === body.kind)) {
        const internal = INTERNAL_PACKAGES[def.group] ?? def.group.split('.')[0];
        throw badRequest(
          `${body.kind} in version "${def.version}" cannot be handled as a ${def.kind}: converting (${def.version}.${body.kind}) to (${internal}.${def.kind}): unknown conversion`,
        );
      }
      throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${def.kind})`);
    }
  }

  /** A copy of a checked body as stored: this resource's apiVersion and kind, a metadata object. */
  private typed(def: ResourceDef, body: KObj): KObj {
    const obj = clone(body);
    obj.apiVersion = apiVersionOf(def);
    obj.kind = def.kind;
    obj.metadata = isObject(obj.metadata) ? obj.metadata : {};
    if (def.builtin) decodeBuiltin(def, obj);
    return obj;
  }

  create(def: ResourceDef, ns: string | undefined, body: KObj, opts: WriteOptions, managed?: ManagedEntry[]): KObj {
    this.checkTypeMeta(def, body);
    if (def.view)
      return this.present(
        def,
        this.create(this.storageOf(def), ns, def.view.fromView(body), { ...opts, requestVersion: apiVersionOf(def) }),
      );
    let obj = this.typed(def, body);
    const meta: KObj = obj.metadata;
    if (def.namespaced) {
      if (meta.namespace && ns && meta.namespace !== ns) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = ns;
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) {
      let candidate: string;
      do {
        candidate =
          String(meta.generateName) + Array.from({ length: 5 }, () => NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]).join('');
      } while (this.store.get(this.rkey(def), ns, candidate));
      meta.name = candidate;
    }
    if (!meta.name) {
      throw invalid(def, '', [
        { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
      ]);
    }
    const name = String(meta.name);
    const badName = nameCauses(this.storageOf(def).resource, name);
    if (badName.length > 0) throw invalid(def, name, badName);
    if (meta.resourceVersion) throw internalError('resourceVersion should not be set on objects to be created');
    for (const k of [
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'managedFields',
      'selfLink',
    ])
      delete meta[k];
    this.requireNamespace(def, ns, name);
    if (def.hasStatus) {
      if (def.builtin && def.initialStatus) {
        const s = def.initialStatus();
        if (s === undefined) delete obj.status;
        else obj.status = s;
      } else if (!def.builtin) delete obj.status;
    }
    const metaCauses = metadataCauses(meta, undefined, kubeValidated(def));
    if (metaCauses.length > 0) throw invalid(def, name, metaCauses);
    obj = this.admit(def, obj, undefined, opts, name);
    if (this.store.get(this.rkey(def), ns, name)) throw alreadyExists(def, name);
    const m: KObj = obj.metadata;
    cleanMetadata(m);
    if (def.hasGeneration) m.generation = 1;
    m.uid = randomUUID();
    m.creationTimestamp = rfc3339();
    m.managedFields = managed ?? managedFieldsForUpdate(undefined, obj, opts.manager, undefined, apiVersionOf(def), this.setOpts(def));
    cleanMetadata(m);
    def.allocate?.(obj, this.defaultContext());
    // Dry-run storage answers the object as it would be stored, without a resourceVersion.
    if (opts.dryRun) return orderObject(def, obj);
    m.resourceVersion = String(this.store.nextRv());
    const stored = orderObject(def, obj);
    this.store.put(this.rkey(def), stored, 'ADDED');
    this.afterCreate(def, stored);
    this.hooks.written(def, stored);
    return stored;
  }

  private setOpts(def: ResourceDef, sub?: string) {
    const topLevel = sub === 'status' ? (k: string) => k === 'status' : def.hasStatus ? (k: string) => k !== 'status' : undefined;
    return { schema: this.resources.schemaInfo(def), builtin: def.builtin, ...(topLevel ? { topLevel } : {}) };
  }

  private afterCreate(def: ResourceDef, obj: KObj): void {
    if (!isCrdDef(def)) return;
    this.serveCrd(obj);
    // The real server's establishing controller writes the status right after the create.
    setImmediate(() => {
      const cur = this.store.get(this.rkey(def), undefined, obj.metadata.name);
      if (!cur || cur.metadata.uid !== obj.metadata.uid) return;
      const now = rfc3339();
      const names = cur.spec.names ?? {};
      const next = clone(cur);
      next.status = {
        conditions: [
          { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
          {
            type: 'Established',
            status: 'True',
            lastTransitionTime: now,
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
          },
        ],
        acceptedNames: names,
        storedVersions: cur.status?.storedVersions ?? [],
      };
      try {
        this.commit(def, cur, next, { manager: 'kube-apiserver', dryRun: false, fieldValidation: 'Ignore', warnings: [] }, 'status');
      } catch {
        // The CRD changed or went away meanwhile; its next write is established as it is.
      }
    });
  }

  /** Shared tail of update, patch and apply: subresource rules, admission, generation, storage. */
  commit(def: ResourceDef, old: KObj, candidate: KObj, opts: WriteOptions, sub: string | undefined, managed?: ManagedEntry[]): KObj {
    this.checkTypeMeta(def, candidate);
    let next = this.typed(def, candidate);
    const meta: KObj = next.metadata;
    const requested: unknown = managed ? undefined : meta.managedFields;
    if (meta.name !== undefined && meta.name !== old.metadata.name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${old.metadata.name})`);
    }
    if (def.namespaced && meta.namespace && meta.namespace !== old.metadata.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    for (const k of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
      if (old.metadata[k] === undefined) delete meta[k];
      else meta[k] = old.metadata[k];
    }
    if (sub === 'status') {
      const base = clone(old);
      if (next.status === undefined) delete base.status;
      else base.status = next.status;
      next = base;
    } else if (def.hasStatus && sub !== 'scale' && sub !== 'binding') {
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
    next = this.admit(def, next, old, opts, old.metadata.name, sub);
    const rule = def.builtin && sub === undefined ? UPDATE_RULES[def.resource] : undefined;
    const refused = [...metadataCauses(next.metadata, old.metadata, kubeValidated(def)), ...(rule?.(old, next) ?? [])];
    if (refused.length > 0) throw invalid(def, old.metadata.name, refused);
    const m: KObj = next.metadata;
    cleanMetadata(m);
    if (def.hasGeneration) {
      const changed = def.builtin ? !deepEqual(old.spec, next.spec) : !deepEqual(withoutMetaStatus(old), withoutMetaStatus(next));
      if (changed) m.generation = Number(old.metadata.generation ?? 0) + 1;
    }
    if (managed) m.managedFields = managed;
    else if (sub === 'scale') m.managedFields = disownPaths(old.metadata.managedFields ?? [], [specReplicasSegs(def)]);
    else {
      // A write of the main resource may set managedFields itself (how ownership is handed over
      // between managers); a subresource write never does.
      const base = sub === undefined ? requestedEntries(requested) : undefined;
      m.managedFields = managedFieldsForUpdate(old, next, opts.manager, sub, apiVersionOf(def), this.setOpts(def, sub), base);
    }
    cleanMetadata(m);
    def.allocate?.(next, this.defaultContext(old));
    m.resourceVersion = old.metadata.resourceVersion;
    if (deepEqual(withoutResourceVersion(old), withoutResourceVersion(next))) return old;
    if (opts.dryRun) return orderObject(def, next);
    // As kube-apiserver's ShouldDeleteDuringUpdate: only a deletion with no grace period left ends
    // on an update; a pod terminating gracefully stays until its kubelet deletes it with grace 0,
    // whatever status the kubelet writes meanwhile.
    const finalizing =
      old.metadata.deletionTimestamp &&
      !m.finalizers?.length &&
      def.resource !== 'namespaces' &&
      !(Number(old.metadata.deletionGracePeriodSeconds) > 0);
    if (finalizing) {
      // Watchers see no MODIFIED for the finalizer removal, only DELETED with the last stored state.
      const last = clone(old);
      last.metadata.resourceVersion = String(this.store.nextRv());
      this.store.remove(this.rkey(def), last);
      m.resourceVersion = last.metadata.resourceVersion;
      const answer = orderObject(def, next);
      this.afterRemove(def, old);
      return answer;
    }
    m.resourceVersion = String(this.store.nextRv());
    const stored = orderObject(def, next);
    this.store.put(this.rkey(def), stored, 'MODIFIED');
    // A changed CRD serves its new versions, schema and columns at once.
    if (isCrdDef(def) && sub !== 'status') this.serveCrd(stored);
    this.hooks.written(def, stored);
    return stored;
  }

  private checkPrecondition(def: ResourceDef, old: KObj, rv: unknown): void {
    if (rv !== undefined && rv !== null && rv !== '' && String(rv) !== old.metadata.resourceVersion) throw conflict(def, old.metadata.name);
  }

  update(def: ResourceDef, ns: string | undefined, name: string, body: KObj, sub: string | undefined, opts: WriteOptions): KObj {
    if (!isObject(body)) throw badRequest(`the object provided is unrecognized (must be of type ${def.kind})`);
    if (def.view) {
      this.checkTypeMeta(def, body);
      return this.present(def, this.update(this.storageOf(def), ns, name, def.view.fromView(body), sub, opts));
    }
    const old = this.get(def, ns, name);
    const rv = body.metadata?.resourceVersion;
    if (!def.builtin && (rv === undefined || rv === '')) {
      throw invalid(def, name, [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' },
      ]);
    }
    this.checkPrecondition(def, old, rv);
    return this.commit(def, old, body, opts, sub);
  }

  patch(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    contentType: string,
    raw: string,
    sub: string | undefined,
    opts: WriteOptions,
    force: boolean,
  ): { object: KObj; created: boolean } {
    const type = contentType.split(';')[0]!.trim();
    const accepted = def.builtin ? BUILTIN_PATCH_TYPES : CR_PATCH_TYPES;
    if (!accepted.includes(type)) throw unsupportedPatch(accepted);
    if (type === APPLY_PATCH) {
      if (def.view) throw unsupportedPatch(accepted.filter((t) => t !== APPLY_PATCH));
      return this.apply(def, ns, name, raw, sub, opts, force);
    }
    let patchDoc: unknown;
    try {
      patchDoc = JSON.parse(raw);
    } catch (e) {
      throw badRequest(`error decoding patch: ${(e as Error).message}`);
    }
    const old = this.get(def, ns, name);
    let candidate: unknown;
    if (type === 'application/json-patch+json') candidate = jsonPatch(old, patchDoc);
    else if (type === 'application/merge-patch+json') candidate = mergePatch(old, patchDoc);
    else candidate = strategicMerge(old, patchDoc);
    if (!isObject(candidate)) throw badRequest('the patched object is not an object');
    if (isObject(patchDoc) && isObject(patchDoc.metadata)) this.checkPrecondition(def, old, patchDoc.metadata.resourceVersion);
    candidate.metadata = { ...(isObject(candidate.metadata) ? candidate.metadata : {}), resourceVersion: old.metadata.resourceVersion };
    opts.patchValue = type === 'application/strategic-merge-patch+json' ? goPrint(patchDoc) : JSON.stringify(orderObject(def, candidate));
    if (def.view) return { object: this.update(def, ns, name, candidate, sub, opts), created: false };
    return { object: this.commit(def, old, candidate, opts, sub), created: false };
  }

  private apply(
    def: ResourceDef,
    ns: string | undefined,
    name: string,
    raw: string,
    sub: string | undefined,
    opts: WriteOptions,
    force: boolean,
  ): { object: KObj; created: boolean } {
    let applied: unknown;
    try {
      applied = parseYaml(raw);
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
    if (!isObject(applied)) throw badRequest('apply patch must be an object');
    if (!applied.apiVersion || !applied.kind) {
      throw badRequest(
        `error decoding YAML: ${!applied.kind ? "Object 'Kind' is missing" : "Object 'apiVersion' is missing"} in '${raw.slice(0, 60)}'`,
      );
    }
    this.checkTypeMeta(def, applied);
    const meta = isObject(applied.metadata) ? applied.metadata : {};
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    const setOpts = this.setOpts(def, sub);
    const live = this.store.get(this.rkey(def), ns, name);
    if (!live) {
      if (sub) throw notFound(def, name);
      const result = serverSideApply(
        undefined,
        { ...applied, metadata: { ...meta, name } },
        opts.manager,
        force,
        apiVersionOf(def),
        undefined,
        setOpts,
      );
      return { object: this.create(def, ns, result.object, opts, result.managedFields), created: true };
    }
    this.checkPrecondition(def, live, meta.resourceVersion);
    const cleaned = clone(applied);
    if (isObject(cleaned.metadata)) delete cleaned.metadata.resourceVersion;
    const result = serverSideApply(live, cleaned, opts.manager, force, apiVersionOf(def), sub, setOpts);
    return { object: this.commit(def, live, result.object, opts, sub, result.managedFields), created: false };
  }

  delete(def: ResourceDef, ns: string | undefined, name: string, o: DeleteOptions, opts: WriteOptions): KObj {
    if (def.view) {
      const result = this.delete(this.storageOf(def), ns, name, o, opts);
      return result.kind === 'Status'
        ? { ...result, details: successStatus(def, { metadata: { name, uid: result.details.uid } }).details }
        : this.present(def, result);
    }
    const obj = this.get(def, ns, name);
    const pre = o.preconditions ?? {};
    if (pre.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(def, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`,
      );
    }
    const policy = o.propagationPolicy ?? 'Background';
    if (!['Background', 'Foreground', 'Orphan'].includes(policy)) {
      throw invalid(def, name, [
        {
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
          field: 'propagationPolicy',
        },
      ]);
    }
    const finalizers: string[] = [...(obj.metadata.finalizers ?? [])];
    const add = policy === 'Orphan' ? SYSTEM_FINALIZERS.orphan : policy === 'Foreground' ? SYSTEM_FINALIZERS.foreground : undefined;
    if (add && !finalizers.includes(add)) finalizers.push(add);
    if (def.resource === 'namespaces' && def.group === '') return this.deleteNamespace(def, obj, opts.dryRun);
    const grace = podGracePeriod(def, obj, o.gracePeriodSeconds);
    if (grace > 0) return this.deleteGracefully(def, obj, finalizers, grace, opts.dryRun);
    if (finalizers.length === 0) {
      if (!opts.dryRun) this.removeNow(def, obj);
      return RETURNS_DELETED_OBJECT.has(resourceKey(def)) ? obj : successStatus(def, obj);
    }
    const next = clone(obj);
    next.metadata.finalizers = finalizers;
    if (!obj.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = rfc3339();
      if (def.hasGeneration) next.metadata.generation = Number(obj.metadata.generation ?? 0) + 1;
    }
    next.metadata.deletionGracePeriodSeconds = 0;
    if (deepEqual(next, obj)) return obj;
    return this.writeModified(def, next, opts.dryRun);
  }

  /** A pod on a node terminates first: its kubelet (the sandbox's) deletes it with grace 0. */
  private deleteGracefully(def: ResourceDef, obj: KObj, finalizers: string[], grace: number, dryRun: boolean): KObj {
    const current = obj.metadata.deletionGracePeriodSeconds;
    if (obj.metadata.deletionTimestamp && current !== undefined && current <= grace) return obj;
    const next = clone(obj);
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    next.metadata.deletionTimestamp = rfc3339(new Date(Date.now() + grace * 1000));
    next.metadata.deletionGracePeriodSeconds = grace;
    return this.writeModified(def, next, dryRun);
  }

  private deleteNamespace(def: ResourceDef, obj: KObj, dryRun: boolean): KObj {
    if (obj.metadata.deletionTimestamp) return obj;
    const next = clone(obj);
    next.metadata.deletionTimestamp = rfc3339();
    next.metadata.deletionGracePeriodSeconds = 0;
    next.status = { ...(next.status ?? {}), phase: 'Terminating' };
    return this.writeModified(def, next, dryRun);
  }

  /** Stores `next` of a deletion in progress under a fresh resourceVersion (a MODIFIED event); a dry run only answers it. */
  private writeModified(def: ResourceDef, next: KObj, dryRun = false): KObj {
    if (dryRun) return orderObject(def, next);
    next.metadata.resourceVersion = String(this.store.nextRv());
    const stored = orderObject(def, next);
    this.store.put(this.rkey(def), stored, 'MODIFIED');
    this.hooks.written(def, stored);
    return stored;
  }

  /** Removes the object at once: DELETED carries its last state with a fresh resourceVersion. */
  removeNow(def: ResourceDef, obj: KObj): void {
    const last = clone(obj);
    last.metadata.resourceVersion = String(this.store.nextRv());
    this.store.remove(this.rkey(def), last);
    this.afterRemove(def, obj);
  }

  private afterRemove(def: ResourceDef, obj: KObj): void {
    if (isCrdDef(def)) {
      for (const crDef of this.resources.removeCrd(obj.metadata.name)) {
        const rkey = this.rkey(crDef);
        const stillServed = this.resources.all().some((d) => this.rkey(d) === rkey);
        if (stillServed) continue;
        for (const cr of this.store.list(rkey)) {
          const last = clone(cr);
          last.metadata.resourceVersion = String(this.store.nextRv());
          this.store.remove(rkey, last);
        }
        this.store.dropTable(rkey);
      }
    }
    if (def.resource === 'services' && obj.spec?.clusterIP) this.usedIps.delete(obj.spec.clusterIP);
    this.hooks.removed(def, obj);
  }

  deleteCollection(def: ResourceDef, ns: string | undefined, q: ListQuery, o: DeleteOptions, opts: WriteOptions): KObj {
    const { items, resourceVersion } = this.list(def, ns, {
      labelSelector: q.labelSelector ?? null,
      fieldSelector: q.fieldSelector ?? null,
    });
    const deleted: KObj[] = [];
    for (const item of items) {
      try {
        const r = this.delete(def, item.metadata.namespace, item.metadata.name, o, opts);
        deleted.push(r.kind === 'Status' ? item : r);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return listBody(def, deleted, { resourceVersion, continue: '' });
  }

  /** pods/binding: what the scheduler does; the sandbox's scheduler binds through it. */
  bind(def: ResourceDef, ns: string | undefined, name: string, body: KObj, opts: WriteOptions): KObj {
    const old = this.get(def, ns, name);
    const node = body?.target?.name;
    if (typeof node !== 'string' || node === '') {
      throw invalid({ ...def, kind: 'Binding' }, name, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' }]);
    }
    if (old.spec?.nodeName) throw conflict(def, name, `pod ${name} is already assigned to node "${old.spec.nodeName}"`);
    const next = clone(old);
    next.spec = { ...next.spec, nodeName: node };
    // assignPod sets PodScheduled (podutil.UpdatePodCondition), replacing a False one the scheduler wrote.
    const others = ((next.status?.conditions ?? []) as KObj[]).filter((c) => c.type !== 'PodScheduled');
    next.status = {
      ...next.status,
      conditions: [...others, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339() }],
    };
    this.commit(def, old, next, opts, 'binding');
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  }

  scaleOf(def: ResourceDef, obj: KObj): KObj {
    const scale = def.scale!;
    const status: KObj = { replicas: Number(getPath(obj, scale.statusReplicasPath) ?? 0) };
    if (def.builtin && isObject(obj.spec?.selector?.matchLabels)) {
      status.selector = Object.entries(obj.spec.selector.matchLabels as Record<string, string>)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
    } else if (scale.labelSelectorPath) {
      const sel = getPath(obj, scale.labelSelectorPath);
      if (typeof sel === 'string') status.selector = sel;
    }
    const m = obj.metadata;
    const meta: KObj = { name: m.name };
    if (m.namespace) meta.namespace = m.namespace;
    Object.assign(meta, { uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp });
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: meta,
      spec: { replicas: Number(getPath(obj, scale.specReplicasPath) ?? 0) },
      status,
    };
  }

  updateScale(def: ResourceDef, ns: string | undefined, name: string, scaleBody: KObj, opts: WriteOptions): KObj {
    const old = this.get(def, ns, name);
    this.checkPrecondition(def, old, scaleBody?.metadata?.resourceVersion);
    const replicas = scaleBody?.spec?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw new ApiError(
        422,
        statusBody(
          422,
          'Invalid',
          `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas ?? 0)}: must be greater than or equal to 0`,
          {
            name,
            group: 'autoscaling',
            kind: 'Scale',
            causes: [
              {
                reason: 'FieldValueInvalid',
                message: `Invalid value: ${JSON.stringify(replicas ?? 0)}: must be greater than or equal to 0`,
                field: 'spec.replicas',
              },
            ],
          },
        ),
      );
    }
    const next = clone(old);
    setPath(next, def.scale!.specReplicasPath, replicas);
    return this.scaleOf(def, this.commit(def, old, next, opts, 'scale'));
  }

  patchScale(def: ResourceDef, ns: string | undefined, name: string, contentType: string, raw: string, opts: WriteOptions): KObj {
    const type = contentType.split(';')[0]!.trim();
    const scale = this.scaleOf(def, this.get(def, ns, name));
    let patchDoc: unknown;
    try {
      patchDoc = type === APPLY_PATCH ? parseYaml(raw) : JSON.parse(raw);
    } catch (e) {
      throw badRequest(`error decoding patch: ${(e as Error).message}`);
    }
    let next: unknown;
    if (type === 'application/json-patch+json') next = jsonPatch(scale, patchDoc);
    else if (type === 'application/merge-patch+json' || type === APPLY_PATCH) next = mergePatch(scale, patchDoc);
    else if (type === 'application/strategic-merge-patch+json' && def.builtin) next = strategicMerge(scale, patchDoc);
    else throw unsupportedPatch(def.builtin ? BUILTIN_PATCH_TYPES : CR_PATCH_TYPES);
    return this.updateScale(def, ns, name, next as KObj, opts);
  }
}

/** Seconds a deleted pod gets to terminate: none unless it runs on a node and has not finished. */
function podGracePeriod(def: ResourceDef, obj: KObj, requested: number | undefined): number {
  if (def.resource !== 'pods' || def.group !== '') return 0;
  if (!obj.spec?.nodeName || obj.status?.phase === 'Succeeded' || obj.status?.phase === 'Failed') return 0;
  const grace = requested ?? obj.spec?.terminationGracePeriodSeconds ?? 30;
  return Number.isFinite(grace) && grace > 0 ? grace : 0;
}

function isCrdDef(def: ResourceDef): boolean {
  return def.resource === 'customresourcedefinitions' && def.group === 'apiextensions.k8s.io';
}

function specReplicasSegs(def: ResourceDef): string[] {
  return (def.scale?.specReplicasPath ?? '.spec.replicas')
    .replace(/^\./, '')
    .split('.')
    .map((s) => `f:${s}`);
}

/** A list's metadata as Go writes ListMeta: resourceVersion, then continue and remainingItemCount when set. */
export function listMeta(meta: Omit<ListResult, 'items'>): KObj {
  const m: KObj = { resourceVersion: meta.resourceVersion };
  if (meta.continue) m.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) m.remainingItemCount = meta.remainingItemCount;
  return m;
}

/** A list body: built-in lists in Go order without item kind/apiVersion; CR lists sorted with them. */
export function listBody(def: ResourceDef, items: KObj[], meta: Omit<ListResult, 'items'>): KObj {
  const gv = apiVersionOf(def);
  if (def.builtin) {
    return {
      kind: def.listKind,
      apiVersion: gv,
      metadata: listMeta(meta),
      items: items.map((o) => {
        const { kind: _k, apiVersion: _a, ...rest } = o;
        return rest;
      }),
    };
  }
  const m: KObj = { continue: meta.continue };
  if (meta.remainingItemCount !== undefined) m.remainingItemCount = meta.remainingItemCount;
  m.resourceVersion = meta.resourceVersion;
  return { apiVersion: gv, items, kind: def.listKind, metadata: m };
}
