// PVCs of a cluster after a scale-down, and with keepAfterDelete. By default every PVC is kept:
// data is never deleted unless the cluster opts in with volumeSpec.deletePVCsOnScaleDown, and
// even then the PVC of ordinal 0 (the one a cluster scaled to 0 comes back with) is kept.
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../api/index.ts';
import { names } from '../../api/names.ts';

export interface PvcDecision {
  remove: V1PersistentVolumeClaim[];
}

export function pvcOrdinal(cluster: string, pvcName: string): number | undefined {
  const prefix = `${names.pvc(cluster, 0).slice(0, -1)}`;
  if (!pvcName.startsWith(prefix)) return undefined;
  const rest = pvcName.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

/**
 * PVCs to delete: ordinal >= spec.replicas, > 0, and no longer backing a pod the StatefulSet still
 * runs (`currentReplicas`: status.replicas of the StatefulSet).
 */
export function decidePvcCleanup(cluster: MysqlCluster, pvcs: readonly V1PersistentVolumeClaim[], currentReplicas: number): PvcDecision {
  if (!cluster.spec.volumeSpec?.deletePVCsOnScaleDown || cluster.metadata?.deletionTimestamp) return { remove: [] };
  const name = cluster.metadata?.name ?? '';
  const wanted = cluster.spec.replicas ?? 1;
  const remove = pvcs.filter((p) => {
    const ord = pvcOrdinal(name, p.metadata?.name ?? '');
    return ord !== undefined && ord > 0 && ord >= wanted && ord >= currentReplicas && !p.metadata?.deletionTimestamp;
  });
  return { remove };
}
