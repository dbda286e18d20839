// Pods and Services as the sandbox network sees them, for its pure parts' tests.
import type { V1LabelSelector, V1NetworkPolicyPeer, V1NetworkPolicyPort, V1Pod, V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { NetworkPolicy } from '../../../sandbox/network/policy.ts';

export const NS = 'ns1';

export function pod(
  name: string,
  o: {
    ns?: string;
    ip?: string;
    labels?: Record<string, string>;
    ready?: boolean;
    terminating?: boolean;
    subdomain?: string;
    ports?: Array<{ name: string; containerPort: number }>;
  } = {},
): V1Pod {
  return {
    metadata: { name, namespace: o.ns ?? NS, labels: o.labels ?? {}, ...(o.terminating ? { deletionTimestamp: new Date(0) } : {}) },
    spec: { hostname: name, ...(o.subdomain ? { subdomain: o.subdomain } : {}), containers: [{ name: 'main', ports: o.ports ?? [] }] },
    status: {
      phase: 'Running',
      ...(o.ip ? { podIP: o.ip } : {}),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

export function service(
  name: string,
  o: {
    ns?: string;
    clusterIP?: string;
    selector?: Record<string, string>;
    ports?: V1ServicePort[];
    publishNotReady?: boolean;
    type?: string;
  } = {},
): V1Service {
  return {
    metadata: { name, namespace: o.ns ?? NS },
    spec: {
      clusterIP: o.clusterIP ?? 'None',
      ...(o.selector ? { selector: o.selector } : {}),
      ports: o.ports ?? [{ name: 'mysql', port: 3306, protocol: 'TCP' }],
      ...(o.publishNotReady ? { publishNotReadyAddresses: true } : {}),
      ...(o.type ? { type: o.type } : {}),
    },
  };
}

/** A NetworkPolicy as the API sends it (`from`, not the client library's `_from`). */
export function networkPolicy(
  name: string,
  o: {
    ns?: string;
    podSelector?: V1LabelSelector;
    policyTypes?: string[];
    ingress?: Array<{ from?: V1NetworkPolicyPeer[]; ports?: V1NetworkPolicyPort[] }>;
    egress?: unknown[];
  } = {},
): NetworkPolicy {
  return {
    metadata: { name, namespace: o.ns ?? NS },
    spec: {
      podSelector: o.podSelector ?? {},
      ...(o.policyTypes ? { policyTypes: o.policyTypes } : {}),
      ...(o.ingress ? { ingress: o.ingress } : {}),
      ...(o.egress ? { egress: o.egress } : {}),
    },
  };
}

/** Namespaces by name with their labels, as the API server defaults them (kubernetes.io/metadata.name). */
export function namespaceLabels(...list: Array<[string, Record<string, string>?]>): Map<string, Record<string, string>> {
  return new Map(list.map(([name, labels]) => [name, { 'kubernetes.io/metadata.name': name, ...(labels ?? {}) }]));
}
