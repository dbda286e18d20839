// One pass over one MysqlCluster: gather the cluster and its pod 0, decide what pod 0's restore
// says (decide-restore.ts), act: write the restore part of the status and one Event. A cluster
// whose restore is already recorded, or that restores nothing, decides nothing and writes nothing.
import type { V1Pod } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../api/index.ts';
import { names } from '../../api/names.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import type { ControllerContext, Request } from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { KINDS } from '../shared/kinds.ts';
import { decideRestore, type RestoreDecision } from './decide-restore.ts';

type ClusterObject = MysqlCluster & KubeObject;

interface Gathered {
  cluster: ClusterObject;
  pod0: (V1Pod & KubeObject) | undefined;
}

export async function reconcileRestore(req: Request, ctx: ControllerContext, now: () => Date): Promise<void> {
  const gathered = await gather(req, ctx);
  if (!gathered) return;
  const decision = decideRestore(gathered.cluster, gathered.pod0, now());
  if (!decision) return;
  await act(req, ctx, gathered.cluster, decision);
}

/** The cluster (none when gone or being deleted) and its pod 0, from the caches. */
async function gather(req: Request, ctx: ControllerContext): Promise<Gathered | undefined> {
  const [clusters, pods] = await Promise.all([ctx.informer<ClusterObject>(KINDS.cluster), ctx.informer<V1Pod & KubeObject>(KINDS.pod)]);
  const cluster = clusters.get(req.namespace, req.name);
  if (!cluster || cluster.metadata?.deletionTimestamp) return undefined;
  return { cluster, pod0: pods.get(req.namespace, names.pod(req.name, 0)) };
}

/** The restore part of the status, then its Event and a log line. */
async function act(req: Request, ctx: ControllerContext, cluster: ClusterObject, d: RestoreDecision): Promise<void> {
  await applyStatus(ctx.client, { ...KINDS.cluster, namespace: req.namespace, name: req.name }, CLUSTER_STATUS_OWNERS.restore, {
    ...d.status,
  });
  const log = ctx.log.child({ cluster: req.name, namespace: req.namespace, step: 'restore' });
  if (d.event.type === 'Normal') {
    ctx.events.normal(cluster, d.event.reason, d.event.message);
    log.info('restore recorded', { message: d.event.message });
  } else {
    ctx.events.warning(cluster, d.event.reason, d.event.message);
    log.warn('restore failed', { message: d.event.message });
  }
}
