// One pass over one MysqlCluster that archives its binlogs (docs/pitr.md): gather the archive's
// index from storage (with the cluster's backup Secret), decide the status (decide-archive-status.ts),
// act: write the pitr part of the status when it changed, an Event when the condition's reason
// changed, the lag metric. Polls every interval: the archive changes without any Kubernetes event.
import { buffer } from 'node:stream/consumers';
import { BINLOG_ARCHIVE_INDEX, type BinlogArchiveIndex } from '../../api/binlog-archive.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import { decodeSecretData } from '../../runtime/kube/secret-data.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage } from '../../runtime/redact.ts';
import type { BackupStorage, StorageEnv } from '../../storage/index.ts';
import { StorageError } from '../../storage/index.ts';
import { KINDS } from '../shared/kinds.ts';
import { archiveUrlOf, decideArchiveStatus, type IndexRead, intervalOf } from './decide-archive-status.ts';
import type { PitrMetrics } from './metrics.ts';

type ClusterObject = MysqlCluster & KubeObject;

export interface PitrDeps {
  storageFor(url: string, env: StorageEnv): BackupStorage;
  now(): Date;
  metrics(ctx: ControllerContext): PitrMetrics;
}

export async function reconcilePitr(req: Request, ctx: ControllerContext, deps: PitrDeps): Promise<ReconcileResult | undefined> {
  const clusters = await ctx.informer<ClusterObject>(KINDS.cluster);
  const cluster = clusters.get(req.namespace, req.name);
  const metrics = deps.metrics(ctx);
  if (!cluster || cluster.metadata?.deletionTimestamp) {
    metrics.lagSeconds.remove({ namespace: req.namespace, cluster: req.name });
    return undefined;
  }
  const url = archiveUrlOf(cluster);
  const read = url ? await readIndex(ctx, cluster, url, deps) : null;
  const d = decideArchiveStatus(cluster, read, deps.now());
  if (d.lagSeconds === null) metrics.lagSeconds.remove({ namespace: req.namespace, cluster: req.name });
  else metrics.lagSeconds.set({ namespace: req.namespace, cluster: req.name }, d.lagSeconds);
  if (d.changed) {
    await applyStatus(ctx.client, { ...KINDS.cluster, namespace: req.namespace, name: req.name }, CLUSTER_STATUS_OWNERS.pitr, {
      ...d.status,
    });
  }
  if (d.event) {
    const log = ctx.log.child({ cluster: req.name, namespace: req.namespace, step: 'pitr' });
    if (d.event.type === 'Normal') ctx.events.normal(cluster, d.event.reason, d.event.message);
    else ctx.events.warning(cluster, d.event.reason, d.event.message);
    log.info('binlog archive', { reason: d.event.reason, message: d.event.message });
  }
  return url ? { requeueAfterMs: Math.max(intervalOf(cluster), 10) * 1000 } : undefined;
}

/** The archive's index through the cluster's backup Secret; what went wrong as a message, never thrown. */
async function readIndex(ctx: ControllerContext, cluster: ClusterObject, url: string, deps: PitrDeps): Promise<IndexRead> {
  try {
    const name = cluster.spec.backupSecretName;
    const secret = name
      ? await ctx.client.getIfExists<KubeObject & { data?: Record<string, string> }>({
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: cluster.metadata?.namespace ?? '',
          name,
        })
      : undefined;
    if (name && !secret) return { kind: 'error', message: `Secret ${name} (spec.backupSecretName) does not exist` };
    const storage = deps.storageFor(url, decodeSecretData(secret?.data));
    const text = (await buffer(await storage.openRead(`${url}${BINLOG_ARCHIVE_INDEX}`))).toString('utf8');
    const index = JSON.parse(text) as BinlogArchiveIndex;
    if (index.version !== 1 || typeof index.completeUpTo !== 'number')
      return { kind: 'error', message: `${BINLOG_ARCHIVE_INDEX} is not an index` };
    return { kind: 'index', index };
  } catch (err) {
    if (err instanceof StorageError && err.code === 'not-found') return { kind: 'missing' };
    return { kind: 'error', message: errorMessage(err) };
  }
}
