// Ours (issue 23, docs/network-policies.md): the cluster's NetworkPolicy `<c>-mysql`, selecting its
// MySQL pods by the selector labels the anchor's pods carry too (adopted clusters are covered
// without a rollout). Once a policy selects a pod, only what it lists reaches the pod, so every
// port of the pod has a rule:
// - MySQL's port: the cluster's pods (replication, clones), the operator, Orchestrator, and
//   spec.networkPolicy.mysqlFrom; when that field is unset, every pod of the cluster's own
//   namespace (where its applications usually run), and no other namespace;
// - the sidecar's port (the backup stream, /health): the cluster's pods, the operator and the
//   cluster's backup Jobs;
// - the metrics exporter's port, and the ports of the user's extra containers: every source, as before.
// The kubelet's probes come from the node, which NetworkPolicy implementations let in.
import type { V1LabelSelector, V1NetworkPolicyPeer, V1NetworkPolicyPort } from '@kubernetes/client-node';
import { PORT } from '../../api/constants.ts';
import type { MysqlClusterSpec } from '../../api/index.ts';
import { backupJobPodLabels, controllerRef, names, selectorLabels, type ClusterRef } from '../../api/names.ts';

/** The namespace label the API server sets on every namespace (v1.21+). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** An ingress rule as the API names its fields (the client library's type calls `from` `_from`). */
export interface NetworkPolicyIngressRule {
  from?: V1NetworkPolicyPeer[];
  ports?: V1NetworkPolicyPort[];
}

/** A NetworkPolicy in the API's own field names, as it is sent and as the cache holds it. */
export interface NetworkPolicyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    ownerReferences?: ReturnType<typeof controllerRef>[];
    resourceVersion?: string;
    uid?: string;
  };
  spec?: { podSelector: V1LabelSelector; policyTypes?: string[]; ingress?: NetworkPolicyIngressRule[] };
}

/** Where the operator's and Orchestrator's pods are, from the operator's flags. */
export interface OperatorPeers {
  /** '' = any namespace. */
  namespace: string;
  operatorPodLabels: Readonly<Record<string, string>>;
  orchestratorPodLabels: Readonly<Record<string, string>>;
}

/** Pods with these labels in that namespace ({} labels: every pod there; '' namespace: every namespace). */
export function operatorPeer(namespace: string, labels: Readonly<Record<string, string>>): V1NetworkPolicyPeer {
  return {
    namespaceSelector: namespace === '' ? {} : { matchLabels: { [NAMESPACE_NAME_LABEL]: namespace } },
    podSelector: Object.keys(labels).length === 0 ? {} : { matchLabels: { ...labels } },
  };
}

/** Every pod of the policy's own namespace: a `podSelector` alone, as the API reads it. */
export function sameNamespacePeer(): V1NetworkPolicyPeer {
  return { podSelector: {} };
}

function tcp(port: number): V1NetworkPolicyPort {
  return { protocol: 'TCP', port };
}

/** TCP ports (by number) of the user's extra containers, in order, once each. */
function extraContainerPorts(spec: MysqlClusterSpec): V1NetworkPolicyPort[] {
  const seen = new Set<string>();
  const out: V1NetworkPolicyPort[] = [];
  for (const c of spec.podSpec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      const protocol = p.protocol ?? 'TCP';
      const key = `${protocol}/${p.containerPort}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ protocol, port: p.containerPort });
    }
  }
  return out;
}

export function renderNetworkPolicy(ref: ClusterRef, spec: MysqlClusterSpec, peers: OperatorPeers): NetworkPolicyObject {
  const clusterPods: V1NetworkPolicyPeer = { podSelector: { matchLabels: selectorLabels(ref.name) } };
  const operator = operatorPeer(peers.namespace, peers.operatorPodLabels);
  const orchestrator = operatorPeer(peers.namespace, peers.orchestratorPodLabels);
  const backupJobs: V1NetworkPolicyPeer = { podSelector: { matchLabels: backupJobPodLabels(ref.name) } };
  const mysqlFrom = spec.networkPolicy?.mysqlFrom;
  const extra = extraContainerPorts(spec);
  const ingress: NetworkPolicyIngressRule[] = [
    { ports: [tcp(PORT.mysql)], from: [clusterPods, operator, orchestrator, ...(mysqlFrom ?? [sameNamespacePeer()])] },
    { ports: [tcp(PORT.sidecarHttp)], from: [clusterPods, operator, backupJobs] },
    { ports: [tcp(PORT.metricsExporter)] },
    ...(extra.length ? [{ ports: extra }] : []),
  ];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: names.networkPolicy(ref.name),
      namespace: ref.namespace,
      labels: selectorLabels(ref.name),
      ownerReferences: [controllerRef(ref)],
    },
    spec: { podSelector: { matchLabels: selectorLabels(ref.name) }, policyTypes: ['Ingress'], ingress },
  };
}
