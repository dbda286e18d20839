// The controller-manager parts a test cluster cannot do without, run in-process and promptly:
// the garbage collector (ownerReferences with background, foreground and orphan propagation,
// dangling references), the namespace controller (empty a terminating namespace, then remove
// it), and what every new namespace gets on a real cluster (the `kube-root-ca.crt` ConfigMap and
// the `default` ServiceAccount), so namespace contents look the same here and there; and the PVC
// protection controller (a deleted claim goes once no running pod uses it).
import { clone } from './json.ts';
import type { ObjectService } from './objects.ts';
import type { KObj, ResourceDef } from './types.ts';
import { resourceKey } from './types.ts';

type Task =
  | { kind: 'namespaceCreated'; name: string }
  | { kind: 'ownerGone'; uid: string }
  | { kind: 'owner'; uid: string }
  | { kind: 'dependent'; uid: string }
  | { kind: 'namespace'; name: string }
  | { kind: 'claims'; namespace: string };

/** The test server has no CA: the ConfigMap exists for parity, its content is a marker. */
const TEST_CA_PLACEHOLDER = '# test API server: plain HTTP, no cluster CA\n';
const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const GC_MANAGER = { manager: 'kube-controller-manager', dryRun: false, fieldValidation: 'Ignore', warnings: [] as string[] };

export class GarbageCollector {
  private readonly svc: ObjectService;
  private readonly queue: Task[] = [];
  private scheduled = false;
  private stopped = false;
  /** Owner uid -> dependents' uids. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Namespaces (by uid) that got their default objects. */
  private readonly seeded = new Set<string>();

  /** kube-root-ca.crt's content: over TLS the serving certificate, which pods' in-cluster clients verify the server with. */
  private readonly rootCA: string;

  constructor(svc: ObjectService, rootCA = TEST_CA_PLACEHOLDER) {
    this.svc = svc;
    this.rootCA = rootCA;
    svc.hooks = {
      written: (def, obj) => this.written(def, obj),
      removed: (def, obj) => this.removed(def, obj),
    };
  }

  stop(): void {
    this.stopped = true;
  }

  private index(obj: KObj, add: boolean): void {
    for (const ref of (obj.metadata.ownerReferences ?? []) as KObj[]) {
      let set = this.dependents.get(ref.uid);
      if (!set) {
        if (!add) continue;
        set = new Set();
        this.dependents.set(ref.uid, set);
      }
      if (add) set.add(obj.metadata.uid);
      else {
        set.delete(obj.metadata.uid);
        if (set.size === 0) this.dependents.delete(ref.uid);
      }
    }
  }

  private written(def: ResourceDef, obj: KObj): void {
    this.index(obj, true);
    if (obj.metadata.ownerReferences?.length) this.enqueue({ kind: 'dependent', uid: obj.metadata.uid });
    const fins: string[] = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && (fins.includes('orphan') || fins.includes('foregroundDeletion'))) {
      this.enqueue({ kind: 'owner', uid: obj.metadata.uid });
    }
    if (
      def.group === '' &&
      (def.resource === 'persistentvolumeclaims'
        ? obj.metadata.deletionTimestamp && fins.includes(PVC_PROTECTION)
        : def.resource === 'pods')
    ) {
      this.enqueue({ kind: 'claims', namespace: obj.metadata.namespace });
    }
    if (def.resource === 'namespaces' && def.group === '') {
      if (obj.metadata.deletionTimestamp) this.enqueue({ kind: 'namespace', name: obj.metadata.name });
      else if (!this.seeded.has(obj.metadata.uid)) {
        this.seeded.add(obj.metadata.uid);
        this.enqueue({ kind: 'namespaceCreated', name: obj.metadata.name });
      }
    }
  }

  private removed(def: ResourceDef, obj: KObj): void {
    this.index(obj, false);
    if (def.group === '' && def.resource === 'pods') this.enqueue({ kind: 'claims', namespace: obj.metadata.namespace });
    this.enqueue({ kind: 'ownerGone', uid: obj.metadata.uid });
    for (const ref of (obj.metadata.ownerReferences ?? []) as KObj[]) this.enqueue({ kind: 'owner', uid: ref.uid });
    if (obj.metadata.namespace) {
      const ns = this.svc.store.get('namespaces', undefined, obj.metadata.namespace);
      if (ns?.metadata.deletionTimestamp) this.enqueue({ kind: 'namespace', name: ns.metadata.name });
    }
  }

  private enqueue(t: Task): void {
    this.queue.push(t);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    if (this.stopped) return;
    const batch = this.queue.splice(0, this.queue.length);
    for (const t of batch) {
      try {
        this.run(t);
      } catch {
        // A conflict with a concurrent write: the write re-enqueues what is still needed.
      }
    }
  }

  private defOf(rkey: string): ResourceDef | undefined {
    return this.svc.resources.all().find((d) => resourceKey(d) === rkey);
  }

  private run(t: Task): void {
    switch (t.kind) {
      case 'ownerGone':
        for (const dep of [...(this.dependents.get(t.uid) ?? [])]) this.checkDependent(dep);
        return;
      case 'dependent':
        this.checkDependent(t.uid);
        return;
      case 'owner':
        this.processOwner(t.uid);
        return;
      case 'namespace':
        this.processNamespace(t.name);
        return;
      case 'namespaceCreated':
        this.seedNamespace(t.name);
        return;
      case 'claims':
        this.releaseClaims(t.namespace);
        return;
    }
  }

  private ownerAlive(ref: KObj, dependentNs: string | undefined): boolean {
    const found = this.svc.store.getByUid(ref.uid);
    if (!found) return false;
    const ns = found.obj.metadata.namespace;
    return ns === undefined || ns === dependentNs;
  }

  /** Deletes a dependent whose owners are all gone; drops references to gone owners otherwise. */
  private checkDependent(uid: string): void {
    const found = this.svc.store.getByUid(uid);
    if (!found) return;
    const def = this.defOf(found.rkey);
    if (!def) return;
    const obj = found.obj;
    const refs = (obj.metadata.ownerReferences ?? []) as KObj[];
    if (refs.length === 0) return;
    const alive = refs.filter((r) => this.ownerAlive(r, obj.metadata.namespace));
    if (alive.length === refs.length) {
      // Owners being deleted in the foreground take their dependents with them.
      const foreground = alive.some((r) => {
        const o = this.svc.store.getByUid(r.uid)?.obj;
        return o?.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes('foregroundDeletion');
      });
      if (foreground && !obj.metadata.deletionTimestamp) {
        this.svc.delete(def, obj.metadata.namespace, obj.metadata.name, { propagationPolicy: 'Foreground' }, GC_MANAGER);
      }
      return;
    }
    if (alive.length > 0) {
      const next = clone(obj);
      next.metadata.ownerReferences = alive;
      this.svc.commit(def, obj, next, GC_MANAGER, undefined);
      return;
    }
    if (obj.metadata.deletionTimestamp) return;
    this.svc.delete(def, obj.metadata.namespace, obj.metadata.name, { propagationPolicy: 'Background' }, GC_MANAGER);
  }

  private processOwner(uid: string): void {
    const found = this.svc.store.getByUid(uid);
    if (!found) return;
    const def = this.defOf(found.rkey);
    if (!def) return;
    const owner = found.obj;
    if (!owner.metadata.deletionTimestamp) return;
    const fins: string[] = owner.metadata.finalizers ?? [];
    const deps = [...(this.dependents.get(uid) ?? [])]
      .map((d) => this.svc.store.getByUid(d))
      .filter((d): d is { rkey: string; obj: KObj } => d !== undefined);
    if (fins.includes('orphan')) {
      for (const d of deps) {
        const depDef = this.defOf(d.rkey);
        if (!depDef) continue;
        const next = clone(d.obj);
        next.metadata.ownerReferences = (next.metadata.ownerReferences as KObj[]).filter((r) => r.uid !== uid);
        this.svc.commit(depDef, d.obj, next, GC_MANAGER, undefined);
      }
      this.dropFinalizer(def, uid, 'orphan');
      return;
    }
    if (fins.includes('foregroundDeletion')) {
      for (const d of deps) {
        const depDef = this.defOf(d.rkey);
        if (!depDef) continue;
        if (!d.obj.metadata.deletionTimestamp) {
          this.svc.delete(depDef, d.obj.metadata.namespace, d.obj.metadata.name, { propagationPolicy: 'Foreground' }, GC_MANAGER);
        }
      }
      const remaining = [...(this.dependents.get(uid) ?? [])].filter((d) => {
        const o = this.svc.store.getByUid(d)?.obj;
        return o && (o.metadata.ownerReferences as KObj[]).some((r) => r.uid === uid && r.blockOwnerDeletion);
      });
      if (remaining.length === 0) this.dropFinalizer(def, uid, 'foregroundDeletion');
    }
  }

  private dropFinalizer(def: ResourceDef, uid: string, finalizer: string): void {
    const cur = this.svc.store.getByUid(uid)?.obj;
    if (!cur) return;
    const next = clone(cur);
    next.metadata.finalizers = (next.metadata.finalizers as string[]).filter((f) => f !== finalizer);
    this.svc.commit(def, cur, next, GC_MANAGER, undefined);
  }

  /** Drops the protection finalizer of deleted claims no pod uses (pods that ended do not count). */
  private releaseClaims(ns: string): void {
    const pvcDef = this.defOf('persistentvolumeclaims');
    if (!pvcDef) return;
    const deleted = this.svc.store
      .list('persistentvolumeclaims', ns)
      .filter((c) => c.metadata.deletionTimestamp && (c.metadata.finalizers ?? []).includes(PVC_PROTECTION));
    if (deleted.length === 0) return;
    const used = new Set<string>();
    for (const pod of this.svc.store.list('pods', ns)) {
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      for (const v of (pod.spec?.volumes ?? []) as KObj[])
        if (v.persistentVolumeClaim?.claimName) used.add(v.persistentVolumeClaim.claimName);
    }
    for (const c of deleted) if (!used.has(c.metadata.name)) this.dropFinalizer(pvcDef, c.metadata.uid, PVC_PROTECTION);
  }

  private seedNamespace(ns: string): void {
    const cm = this.svc.resources.find('', 'v1', 'configmaps')!;
    const sa = this.svc.resources.find('', 'v1', 'serviceaccounts')!;
    const create = (def: ResourceDef, body: KObj) => {
      if (this.svc.store.get(resourceKey(def), ns, body.metadata.name)) return;
      this.svc.create(def, ns, body, GC_MANAGER);
    };
    create(cm, { metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': this.rootCA } });
    create(sa, { metadata: { name: 'default' } });
  }

  private processNamespace(name: string): void {
    const ns = this.svc.store.get('namespaces', undefined, name);
    if (!ns?.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const def of this.svc.resources.all()) {
      if (!def.namespaced) continue;
      for (const obj of this.svc.store.list(resourceKey(def), name)) {
        remaining++;
        if (!obj.metadata.deletionTimestamp) {
          this.svc.delete(def, name, obj.metadata.name, { propagationPolicy: 'Background' }, GC_MANAGER);
        }
      }
    }
    if (remaining > 0) {
      let left = 0;
      for (const def of this.svc.resources.all()) if (def.namespaced) left += this.svc.store.list(resourceKey(def), name).length;
      if (left > 0) return;
    }
    const nsDef = this.defOf('namespaces');
    if (nsDef) this.svc.removeNow(nsDef, ns);
  }
}
