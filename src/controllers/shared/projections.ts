// What the informer caches keep of each kind the controllers read (docs/runtime.md, "What the
// caches hold"): what some controller reads, nothing else. A field not kept here reads as missing
// in the cache, so a controller that starts reading a new field adds it here first.
//
// Writes never start from these copies (the client refuses a PUT built from one): the cluster
// controller decides from the cache and, when it must update, decides again on a fresh GET and
// sends that (reconcile.ts act()). So a projection may drop anything no decision reads; if it
// drops a field a decision compares, the decision sees a difference, GETs, finds none and writes
// nothing: a wasted GET per reconcile, never a wrong write (test/unit/cluster/projections.test.ts
// checks that the objects we make need no GET).
import type { V1ConfigMap, V1Job, V1PodDisruptionBudget, V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { OPERATED_SECRET_SUFFIX, USER_SECRET_KEY } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { Projection } from '../../runtime/projection.ts';

/** `<cluster>-mysql`: the name of a cluster's ConfigMap. */
const CONFIG_MAP_SUFFIX = names.configMap('');
const USER_SECRET_KEYS: ReadonlySet<string> = new Set(Object.values(USER_SECRET_KEY));

function head(o: KubeObject): KubeObject {
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata };
}

function pick<T extends object, K extends keyof T>(o: T | undefined, keys: readonly K[]): Pick<T, K> | undefined {
  if (!o) return undefined;
  const out = {} as Pick<T, K>;
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

export const PROJECTIONS = {
  /**
   * Cluster controller: replicas and the pod template (compared with what it renders; the
   * template annotations decide rollouts), ready and current replicas. Not kept: the selector,
   * serviceName and volumeClaimTemplates (immutable, written only on create), the rest of status.
   */
  statefulSet: {
    name: 'statefulset-owned',
    keep(o) {
      const s = o as V1StatefulSet;
      return {
        ...head(s),
        spec: pick(s.spec, ['replicas', 'template']),
        status: pick(s.status, ['replicas', 'readyReplicas']),
      } as KubeObject;
    },
  },
  /** Cluster controller: the fields it sets (decide-writes.ts planService). Not kept: clusterIPs, IP families, status. */
  service: {
    name: 'service-owned',
    keep(o) {
      const s = o as V1Service;
      return { ...head(s), spec: pick(s.spec, ['type', 'ports', 'selector', 'publishNotReadyAddresses']) } as KubeObject;
    },
  },
  /** Cluster controller: the data of cluster ConfigMaps (`<c>-mysql`); of any other, its metadata only. */
  configMap: {
    name: 'configmap-clusters',
    keep(o) {
      const c = o as V1ConfigMap;
      return c.metadata?.name?.endsWith(CONFIG_MAP_SUFFIX) ? ({ ...head(c), data: c.data } as KubeObject) : head(c);
    },
  },
  /**
   * Cluster and node controllers: all the data of operated Secrets (`<c>-mysql-operated`); of any
   * other Secret, only the keys a user Secret (spec.secretName) may hold. Service-account tokens,
   * TLS keys, Helm releases... of the watched namespaces are not kept.
   */
  secret: {
    name: 'secret-clusters',
    keep(o) {
      const s = o as V1Secret;
      if (s.metadata?.name?.endsWith(OPERATED_SECRET_SUFFIX)) return { ...head(s), type: s.type, data: s.data } as KubeObject;
      const data = s.data && Object.fromEntries(Object.entries(s.data).filter(([k]) => USER_SECRET_KEYS.has(k)));
      return { ...head(s), type: s.type, data } as KubeObject;
    },
  },
  /** Cluster controller: the spec it sets; not the status. */
  pdb: {
    name: 'pdb-spec',
    keep(o) {
      const p = o as V1PodDisruptionBudget;
      return { ...head(p), spec: p.spec } as KubeObject;
    },
  },
  /** Cluster controller: the labels and spec it sets (the cache keeps the whole head); not the status. */
  networkPolicy: {
    name: 'networkpolicy-spec',
    keep(o) {
      return { ...head(o), spec: (o as { spec?: unknown }).spec } as KubeObject;
    },
  },
  /**
   * Backup controller: a Job's outcome (conditions, start and completion times). Not kept: the
   * pod template, which it writes once on create and never compares.
   */
  job: {
    name: 'job-status',
    keep(o) {
      const j = o as V1Job;
      return {
        ...head(j),
        status: pick(j.status, ['conditions', 'startTime', 'completionTime', 'active', 'succeeded', 'failed']),
      } as KubeObject;
    },
  },
  /**
   * Node and orchestrator controllers (pod-view.ts; the labels role and healthy, the cluster
   * label it lists pods by): metadata and status; not the spec (containers, volumes, env).
   * The backup controller reads the same: pod labels (role, healthy) and a backup Job pod's
   * termination message.
   */
  pod: {
    name: 'pod-status',
    keep(o) {
      return { ...head(o), status: (o as { status?: unknown }).status } as KubeObject;
    },
  },
} satisfies Record<string, Projection>;
