// How commits wait for replicas (docs/semi-sync.md): spec.replication, else the defaults the
// cluster was created with. Pure; the cluster controller (my.cnf) and the orchestrator controller
// (semi-sync on each server, by role) decide from the same answer.
import { ANNOTATION_DEFAULTS, DEFAULTS_LOSSLESS, type MysqlCluster } from '../../api/index.ts';

export type ReplicationMode = 'async' | 'semiSync';

export interface ReplicationSettings {
  mode: ReplicationMode;
  /** Acknowledgements each commit waits for (semiSync). */
  acks: number;
  /** Milliseconds before the master falls back to async; undefined: never. */
  fallbackMs: number | undefined;
  /** Why this mode: set in the spec, or the default of a lossless or of an anchor-era cluster. */
  from: 'spec' | 'losslessDefault' | 'anchorDefault';
}

type ClusterLike = Pick<MysqlCluster, 'spec'> & { metadata?: { annotations?: Record<string, string> } };

/** Created by this operator since issue 22, or opted in by its owner: durable defaults. */
export function hasLosslessDefaults(cluster: ClusterLike): boolean {
  return cluster.metadata?.annotations?.[ANNOTATION_DEFAULTS] === DEFAULTS_LOSSLESS;
}

export function replicationSettings(cluster: ClusterLike): ReplicationSettings {
  const r = cluster.spec.replication ?? {};
  const acks = r.semiSyncAcks ?? 1;
  const fallbackMs = r.semiSyncFallbackSeconds === undefined ? undefined : r.semiSyncFallbackSeconds * 1000;
  if (r.mode !== undefined) return { mode: r.mode, acks, fallbackMs, from: 'spec' };
  if (hasLosslessDefaults(cluster) && (cluster.spec.replicas ?? 1) >= 2) {
    return { mode: 'semiSync', acks, fallbackMs, from: 'losslessDefault' };
  }
  return { mode: 'async', acks, fallbackMs, from: hasLosslessDefaults(cluster) ? 'losslessDefault' : 'anchorDefault' };
}
