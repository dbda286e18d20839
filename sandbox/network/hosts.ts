// The names the cluster DNS would answer, written as hosts files: one per pod (bind-mounted over
// its /etc/hosts) and one lookup for processes on the host. Pure: records from the Pods and
// Services, then the text of one pod's file.
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { isHeadless, podIp, servicePods } from './endpoints.ts';

export const CLUSTER_DOMAIN = 'cluster.local';

/** Names for one address. `namespace`: names a pod of that namespace only can use (its search path makes them work). */
export interface DnsRecord {
  ip: string;
  names: string[];
  namespace?: string;
}

/** What makes one pod's hosts file its own: the kubelet's managed lines for the pod itself. */
export interface PodIdentity {
  ip: string;
  namespace: string;
  hostname: string;
  subdomain?: string;
}

/** `<name>.<ns>`, `<name>.<ns>.svc`, `<name>.<ns>.svc.cluster.local`, and `<name>` within the namespace. */
function serviceStyleRecords(ip: string, name: string, ns: string): DnsRecord[] {
  return [
    { ip, names: [`${name}.${ns}.svc.${CLUSTER_DOMAIN}`, `${name}.${ns}.svc`, `${name}.${ns}`] },
    { ip, names: [name], namespace: ns },
  ];
}

/**
 * What CoreDNS's kubernetes plugin answers: a Service name → its ClusterIP, or for a headless
 * Service its endpoints' pod IPs; and `<hostname>.<service>` of each endpoint pod whose subdomain
 * is that headless Service (with the search-path forms the operator uses: `<pod>.mysql.<ns>`).
 */
export function dnsRecords(services: readonly V1Service[], pods: readonly V1Pod[]): DnsRecord[] {
  const out: DnsRecord[] = [];
  for (const svc of services) {
    const name = svc.metadata?.name;
    const ns = svc.metadata?.namespace;
    if (!name || !ns || svc.spec?.type === 'ExternalName') continue;
    if (!isHeadless(svc)) {
      const ip = svc.spec?.clusterIP;
      if (ip) out.push(...serviceStyleRecords(ip, name, ns));
      continue;
    }
    for (const pod of servicePods(svc, pods)) {
      const ip = podIp(pod)!;
      out.push(...serviceStyleRecords(ip, name, ns));
      const hostname = pod.spec?.hostname;
      if (hostname && pod.spec?.subdomain === name) out.push(...serviceStyleRecords(ip, `${hostname}.${name}`, ns));
    }
  }
  return out.sort((a, b) => a.ip.localeCompare(b.ip) || a.names[0]!.localeCompare(b.names[0]!));
}

/**
 * The API server's names (`kubernetes.default.svc`...) on `ip` (a sandbox attached to a cluster:
 * its relay), first, in place of every record that gave one of them another address (the
 * `kubernetes` Service's ClusterIP).
 */
export function withApiServerNames(records: readonly DnsRecord[], ip: string, names: readonly string[]): DnsRecord[] {
  if (names.length === 0) return [...records];
  const own = new Set(names);
  return [{ ip, names: [...names] }, ...records.filter((r) => !r.names.some((n) => own.has(n)))];
}

const KUBELET_HEADER = `# Kubernetes-managed hosts file.
127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
fe00::0\tip6-localnet
fe00::0\tip6-mcastprefix
fe00::1\tip6-allnodes
fe00::2\tip6-allrouters
`;

/** The pod's hosts file: the kubelet's lines, then the cluster's names visible from its namespace. */
export function renderHostsFile(pod: PodIdentity, records: readonly DnsRecord[]): string {
  const own = pod.subdomain
    ? `${pod.ip}\t${pod.hostname}.${pod.subdomain}.${pod.namespace}.svc.${CLUSTER_DOMAIN}\t${pod.hostname}\n`
    : `${pod.ip}\t${pod.hostname}\n`;
  const visible = records.filter((r) => r.namespace === undefined || r.namespace === pod.namespace);
  const lines = visible.map((r) => `${r.ip}\t${r.names.join('\t')}\n`).join('');
  return `${KUBELET_HEADER}${own}# Cluster DNS names (sandbox/network stands in for the cluster DNS).\n${lines}`;
}

/** The host-side lookup: namespace-qualified names only (a process on the host has no namespace). */
export function resolveName(records: readonly DnsRecord[], name: string): string | undefined {
  const wanted = name.replace(/\.$/, '').toLowerCase();
  return records.find((r) => r.namespace === undefined && r.names.includes(wanted))?.ip;
}
