// Which defaults a cluster gets (docs/semi-sync.md): a cluster seen before any of its objects
// exists, with no status yet, is new and is marked `mysql.presslabs.org/defaults: lossless` before anything is
// created; a cluster whose StatefulSet or ConfigMap already exists (adopted from the anchor, or
// made by an older version of this operator) is never marked by the operator, so its my.cnf
// bytes and its replication stay as they were until its owner opts in.
import { ANNOTATION_DEFAULTS } from '../../api/index.ts';

export interface DefaultsInput {
  annotations: Readonly<Record<string, string>> | undefined;
  statefulSetExists: boolean;
  configMapExists: boolean;
  /** Some operator wrote the cluster's status already (conditions, nodes): it is not new. */
  hasStatus: boolean;
}

/** True when this pass must mark the cluster (and stop: the next pass renders with the mark). */
export function mustMarkLossless(input: DefaultsInput): boolean {
  if (input.annotations?.[ANNOTATION_DEFAULTS] !== undefined) return false;
  return !input.statefulSetExists && !input.configMapExists && !input.hasStatus;
}

/** The anchor (or an earlier operator) wrote conditions or nodes: the cluster ran before. */
export function hasStatus(cluster: { status?: { conditions?: readonly unknown[]; nodes?: readonly unknown[] } }): boolean {
  return (cluster.status?.conditions?.length ?? 0) > 0 || (cluster.status?.nodes?.length ?? 0) > 0;
}
