// The headless `mysql` Service is shared by every cluster of a namespace, so no one cluster can
// own it (an owner reference per cluster would put thousands of references on one object and
// make each cluster's first write touch it). It is removed by this rule instead: when a cluster
// is gone and no other MysqlCluster of the namespace exists (a cluster still being deleted still
// counts: its pods may run), the Service goes too, if this operator made it.
import type { V1Service } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../api/index.ts';
import { APP_NAME_VALUE, LABEL_APP_MANAGED_BY, LABEL_APP_NAME, MANAGED_BY_VALUE } from '../../api/constants.ts';

export function sharedServiceUnused(clustersInNamespace: readonly MysqlCluster[], service: V1Service | undefined): boolean {
  if (!service || service.metadata?.deletionTimestamp) return false;
  const labels = service.metadata?.labels ?? {};
  const ours = labels[LABEL_APP_MANAGED_BY] === MANAGED_BY_VALUE && labels[LABEL_APP_NAME] === APP_NAME_VALUE;
  return ours && clustersInNamespace.length === 0;
}
