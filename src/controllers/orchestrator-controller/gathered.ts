// What one pass of the orchestrator controller gathers for a cluster, as one plain value, and the
// pure joins every decision reads it through. The I/O that fills it (the kube cache, the Orchestrator
// client, the topology's observation of the servers) is the wiring's; see docs/orchestrator-controller.md.
import { LABEL_HEALTHY, LABEL_ROLE, PORT } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import type { MysqlCluster } from '../../api/index.ts';
import type { AnalysisEntry, Instance, InstanceKey, Recovery } from '../../orchestrator/index.ts';
import type { HookSignal } from './hook-signals.ts';
import {
  nodePods,
  normalizeHostName,
  resolveByFqdn,
  type GtidView,
  type NodeView,
  type PodObject,
  type PodView,
  type RoleView,
} from '../../topology/index.ts';

/** Orchestrator's answers for the cluster's alias, or why there are none. */
export type OrchestratorState =
  | { kind: 'unreachable'; message: string }
  | {
      kind: 'reachable';
      /** `master(alias)`; null when Orchestrator knows no cluster by the alias yet. */
      master: Instance | null;
      /**
       * Every instance Orchestrator knows for the cluster: `clusterByAlias(alias)` plus `instance()`
       * of each pod it does not list (an old master left alone in its own cluster after a failover).
       */
      instances: readonly Instance[];
      /** `replicationAnalysis(alias)`. */
      analysis: readonly AnalysisEntry[];
      /** `recoveries(alias)`, newest first. */
      recoveries: readonly Recovery[];
    };

export interface Gathered {
  /** The MysqlCluster as cached, schema defaults applied. */
  cluster: MysqlCluster;
  /** The cluster's Pod objects as cached. */
  pods: readonly PodObject[];
  /**
   * What each pod's server said this pass about its role (topology's observeRoles: read_only and
   * the replication source, all the decisions read); a pod left out was not observed.
   */
  servers: readonly NodeView<RoleView>[];
  orchestrator: OrchestratorState;
  /**
   * What each running pod's server said about its GTID history this pass (decide-errant.ts);
   * undefined: not read. `readLast` names the pod whose view was read after all the others:
   * the master's, re-read before a replica is called errant (a master's history only grows, so a
   * transaction a replica had received from it is in a later read of the master's).
   */
  gtids?: { views: readonly { pod: string; gtid: GtidView | null }[]; readLast?: string };
  /** The newest failover hook call about the cluster, when it is fresh (hook-signals.ts). */
  hook?: HookSignal;
  /**
   * The pod the previous pass kept labelled master though its server did not answer
   * (decide-master.ts, `unanswered`): a second miss in a row takes the label off.
   */
  masterUnansweredBefore?: string;
  /** The pod the operator made read-only itself for spec.readOnly (decide-read-only.ts lifts that freeze once it is off). */
  frozenBySpec?: string;
  now: Date;
}

/** One pod of the cluster with everything gathered about it. */
export interface PodNode {
  pod: PodView;
  /** The instance key Orchestrator uses for the pod. */
  key: InstanceKey;
  labels: Record<string, string>;
  /** null: the server was not observed (pod not running). */
  server: RoleView | null;
  /** undefined: Orchestrator does not know the pod (or is unreachable). */
  instance: Instance | undefined;
}

export function instanceKey(fqdn: string): InstanceKey {
  return { host: fqdn, port: PORT.mysql };
}

export function sameInstance(a: InstanceKey, b: InstanceKey): boolean {
  return normalizeHostName(a.host) === normalizeHostName(b.host) && a.port === b.port;
}

export function keyName(k: InstanceKey): string {
  return `${k.host}:${k.port}`;
}

export function alias(g: Gathered): string {
  return names.orchestratorAlias(g.cluster.metadata?.name ?? '', g.cluster.metadata?.namespace ?? '');
}

/** The cluster's pods (named `<statefulset>-<ordinal>`), by ordinal. */
export function podNodes(g: Gathered): PodNode[] {
  const orc = g.orchestrator;
  const instances = orc.kind === 'reachable' ? orc.instances : [];
  return nodePods(g.pods, resolveByFqdn)
    .sort((a, b) => a.ordinal - b.ordinal)
    .map((pod) => {
      const key = instanceKey(pod.fqdn);
      const raw = g.pods.find((p) => p.metadata?.name === pod.name);
      return {
        pod,
        key,
        labels: (raw?.metadata?.labels ?? {}) as Record<string, string>,
        server: g.servers.find((s) => s.pod === pod.name)?.server ?? null,
        instance: instances.find((i) => sameInstance(i.key, key)),
      };
    });
}

/**
 * Orchestrator checked the instance recently and the check succeeded: only then are its fields
 * news rather than memory (a dead master keeps its last ReadOnly, lag and threads).
 */
export function checkedRecently(i: Instance): boolean {
  return i.recentlyChecked && i.lastCheckValid;
}

/** Orchestrator's master is this pod. */
export function isOrchestratorMaster(g: Gathered, n: PodNode): boolean {
  return g.orchestrator.kind === 'reachable' && g.orchestrator.master !== null && sameInstance(g.orchestrator.master.key, n.key);
}

export function roleLabel(n: PodNode): string | undefined {
  return n.labels[LABEL_ROLE];
}

export function healthyLabel(n: PodNode): string | undefined {
  return n.labels[LABEL_HEALTHY];
}
