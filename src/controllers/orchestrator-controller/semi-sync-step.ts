// The orchestrator controller's semi-sync step (docs/semi-sync.md): after the labels and
// read_only, each server gets the semi-sync side of its role, then the master's state becomes the
// SemiSyncWaiting condition, an Event when its reason changes, and the waiting gauges. Semi-sync
// is set by SET GLOBAL through src/mysql, on the connections of the pass.
import { CLUSTER_CONDITION, CLUSTER_REASONS } from '../../api/constants.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import { isMysqlError, type SemiSyncState } from '../../mysql/index.ts';
import type { ControllerContext } from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { PassServers } from '../../topology/index.ts';
import { transitionTime } from '../shared/condition-time.ts';
import { KINDS } from '../shared/kinds.ts';
import { replicationSettings } from '../shared/replication-mode.ts';
import { decideSemiSync, semiSyncCondition } from './decide-semisync.ts';
import type { MasterVerdict } from './decide-master.ts';
import { podNodes, type Gathered } from './gathered.ts';
import type { OrchestratorMetrics } from './metrics.ts';

const WARNINGS: ReadonlySet<string> = new Set([CLUSTER_REASONS.semiSyncNoAck, CLUSTER_REASONS.semiSyncFellBack]);

/** Returns the written cluster when the condition changed (for the pass's cache catch-up). */
export async function syncSemiSync(
  ctx: ControllerContext,
  g: Gathered,
  verdict: MasterVerdict,
  servers: PassServers | { message: string },
  metrics: OrchestratorMetrics,
): Promise<KubeObject | undefined> {
  const cluster = g.cluster as typeof g.cluster & KubeObject;
  const settings = replicationSettings(cluster);
  const d = decideSemiSync(settings, verdict, podNodes(g));
  if (d.kind === 'unmanaged' || !(servers instanceof PassServers)) return undefined;
  const log = ctx.log.child({ cluster: cluster.metadata?.name, namespace: cluster.metadata?.namespace, step: 'semiSync' });
  let masterState: SemiSyncState | undefined;
  for (const t of d.targets) {
    try {
      // The endpoint the gather observed (the pass's resolver), not podNodes' FQDN one.
      const endpoint = g.servers.find((v) => v.pod === t.node.pod.name)?.endpoint ?? t.node.pod.endpoint;
      const node = await servers.node(endpoint);
      const done = await node.setSemiSync(t.wanted);
      if (done.changed) {
        const side =
          t.role === 'master'
            ? `master side ${t.wanted.master === 'keep' ? 'parameters (it turns on once enough replicas replicate)' : t.wanted.master ? 'on' : 'off'}`
            : `replica side ${t.wanted.replica ? 'on' : 'off'}`;
        const io = done.ioThreadRestarted ? ', IO thread restarted' : '';
        ctx.events.normal(cluster, CLUSTER_REASONS.semiSyncConfigured, `${t.node.pod.name} (${t.role}): semi-sync ${side}${io}`);
      }
      if (t.role === 'master') masterState = await node.semiSyncState();
    } catch (e) {
      // One server that does not answer keeps none of the others from their role's settings.
      if (!isMysqlError(e)) throw e;
      log.warn('semi-sync not set', { pod: t.node.pod.name, role: t.role, error: e.message });
    }
  }
  const c = semiSyncCondition(settings, d.master?.pod.name, masterState);
  const labels = { namespace: cluster.metadata?.namespace ?? '', cluster: cluster.metadata?.name ?? '' };
  metrics.semiSyncWaiting.set(labels, c.waiting ? 1 : 0);
  metrics.semiSyncWaitSessions.set(labels, c.waitSessions);
  const old = cluster.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.semiSyncWaiting);
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return undefined;
  if (old?.reason !== c.reason) {
    if (WARNINGS.has(c.reason)) ctx.events.warning(cluster, c.reason, c.message);
    else ctx.events.normal(cluster, c.reason, c.message);
  }
  const condition = {
    type: CLUSTER_CONDITION.semiSyncWaiting,
    status: c.status,
    reason: c.reason,
    message: c.message,
    lastTransitionTime: transitionTime(old, c.status, g.now),
  };
  const ref = {
    apiVersion: KINDS.cluster.apiVersion,
    kind: KINDS.cluster.kind,
    namespace: cluster.metadata?.namespace ?? '',
    name: cluster.metadata?.name ?? '',
  };
  return applyStatus(ctx.client, ref, CLUSTER_STATUS_OWNERS.semiSync, { conditions: [condition] });
}
