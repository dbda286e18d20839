// Which servers to register with Orchestrator (discover) and which to forget. A pod is discovered
// once its mysql container runs; an instance is forgotten once no pod of the cluster has its name
// and Orchestrator has not seen it for a grace period: a pod the StatefulSet is recreating comes
// back under the same name, and forgetting it meanwhile would drop its history (downtime, recovery
// bookkeeping). Nothing is forgotten during a failover: the failed master is an instance Orchestrator
// is recovering from; nor while pods of the cluster still replicate from it: a master whose pod
// went before it was handed over (a scale-down) is one Orchestrator has yet to recover, once its
// recovery block (RecoveryPeriodBlockSeconds) allows, and forgotten it could never.
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import { keyName, podNodes, sameInstance, type Gathered } from './gathered.ts';

export interface Registration {
  discover: InstanceKey[];
  forget: InstanceKey[];
  /** Instances to forget later, and why not now. */
  held: Array<{ key: InstanceKey; reason: string; message: string }>;
}

export function decideRegistration(g: Gathered, forgetGraceMs: number): Registration {
  const orc = g.orchestrator;
  const none: Registration = { discover: [], forget: [], held: [] };
  if (orc.kind === 'unreachable') return none;
  const nodes = podNodes(g);
  const discover = nodes.filter((n) => n.instance === undefined && n.pod.mysqlRunning && !n.pod.deleting).map((n) => n.key);

  const failover = decideFailover(g);
  const forget: InstanceKey[] = [];
  const held: Registration['held'] = [];
  for (const i of orc.instances) {
    if (nodes.some((n) => sameInstance(n.key, i.key))) continue;
    const unseenMs = i.lastSeen === null ? Infinity : g.now.getTime() - i.lastSeen.getTime();
    const followers = nodes.filter((n) => n.instance?.master != null && sameInstance(n.instance.master, i.key)).map((n) => n.pod.name);
    if (failover?.inProgress) held.push({ key: i.key, reason: ORCHESTRATOR_REASONS.failoverInProgress, message: failover.message });
    else if (followers.length > 0) {
      held.push({
        key: i.key,
        reason: ORCHESTRATOR_REASONS.instanceHasReplicas,
        message: `${keyName(i.key)} has no pod, but ${followers.join(', ')} still ${followers.length === 1 ? 'replicates' : 'replicate'} from it in Orchestrator's view: it stays for Orchestrator to recover`,
      });
    } else if (unseenMs < forgetGraceMs) {
      held.push({
        key: i.key,
        reason: ORCHESTRATOR_REASONS.forgetGracePeriod,
        message: `${keyName(i.key)} has no pod but Orchestrator saw it less than ${Math.round(forgetGraceMs / 1000)}s ago`,
      });
    } else forget.push(i.key);
  }
  return { discover, forget, held };
}
