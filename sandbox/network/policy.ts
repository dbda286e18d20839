// Ingress NetworkPolicies compiled to the kernel's rules of one pod (docs/sandbox-network.md,
// "Network policies"): which pods a policy selects, which sources and ports its rules allow, and
// the nftables text the pod's own network namespace gets. Pure: the network's view of pods,
// namespaces and policies is passed in (policy-enforcer.ts applies the text).
//
// The rules of the API (networking.k8s.io/v1): a pod no policy of its namespace selects for
// Ingress accepts everything; a selected pod accepts what any rule of any policy selecting it
// allows (a union), nothing else. Traffic from the node (the bridge's own address, where the
// kubelet's probes and the sandbox's processes come from) is always accepted, as the API's docs
// say of traffic from the pod's node. Egress policies are not enforced.
import type { V1LabelSelector, V1NetworkPolicyPeer, V1NetworkPolicyPort } from '@kubernetes/client-node';
import { matchesSelector } from '../workloads/pods.ts';

/**
 * A NetworkPolicy as the API sends it (the client library's type renames `from` to `_from`).
 * Only its ingress side is read.
 */
export interface NetworkPolicy {
  metadata?: { namespace?: string; name?: string };
  spec?: {
    podSelector?: V1LabelSelector;
    policyTypes?: string[];
    ingress?: Array<{ from?: V1NetworkPolicyPeer[]; ports?: V1NetworkPolicyPort[] }>;
    egress?: unknown[];
  };
}

/** A pod as the policies see it: where it lives, its labels, its address and its named ports. */
export interface PolicyPod {
  namespace: string;
  labels: Readonly<Record<string, string>>;
  ip: string | undefined;
  /** Container ports by name, for policies that name a port. */
  namedPorts: ReadonlyArray<{ name: string; port: number; protocol: string }>;
}

export interface PolicyView {
  pods: readonly PolicyPod[];
  /** Labels of each namespace by name (kubernetes.io/metadata.name among them). */
  namespaces: ReadonlyMap<string, Readonly<Record<string, string>>>;
  policies: readonly NetworkPolicy[];
  /**
   * The other addresses a pod's traffic may come from: the Service proxy connects to a pod from
   * the client pod's alias (its address in the alias range), so the rules see who asked.
   */
  aliases(ip: string): string[];
}

export type Protocol = 'tcp' | 'udp' | 'sctp';

export interface PortMatch {
  protocol: Protocol;
  port: number;
  endPort?: number;
}

export type SourceMatch = { kind: 'any' } | { kind: 'addresses'; addresses: string[] } | { kind: 'block'; cidr: string; except: string[] };

/** One accept rule: these sources, to these ports ('any': every port of every protocol). */
export interface AcceptRule {
  sources: SourceMatch;
  ports: PortMatch[] | 'any';
}

export interface PodIngress {
  /** Selected by at least one policy for Ingress: only what `accept` allows reaches the pod. */
  isolated: boolean;
  accept: AcceptRule[];
}

/** The policy types a policy has: its own, else Ingress, and Egress when it has egress rules (the API's rule). */
export function policyTypes(p: NetworkPolicy): string[] {
  const given = p.spec?.policyTypes;
  if (given && given.length > 0) return given;
  return p.spec?.egress && p.spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** The policies of the pod's namespace that select it for Ingress. */
export function selectingPolicies(pod: PolicyPod, policies: readonly NetworkPolicy[]): NetworkPolicy[] {
  return policies.filter(
    (p) =>
      p.metadata?.namespace === pod.namespace &&
      policyTypes(p).includes('Ingress') &&
      matchesSelector(p.spec?.podSelector ?? {}, { ...pod.labels }),
  );
}

function protocolOf(p: string | undefined): Protocol | undefined {
  const v = (p ?? 'TCP').toUpperCase();
  return v === 'TCP' ? 'tcp' : v === 'UDP' ? 'udp' : v === 'SCTP' ? 'sctp' : undefined;
}

/** A policy port on this pod: a number (with its range), or a name looked up in the pod's container ports; undefined when it names nothing here. */
export function resolvePort(port: V1NetworkPolicyPort, pod: PolicyPod): PortMatch | 'any-port' | undefined {
  const protocol = protocolOf(port.protocol);
  if (!protocol) return undefined;
  const p = port.port;
  if (p === undefined) return 'any-port';
  if (typeof p === 'number' || /^\d+$/.test(p)) {
    const n = Number(p);
    return port.endPort !== undefined && port.endPort > n ? { protocol, port: n, endPort: port.endPort } : { protocol, port: n };
  }
  const named = pod.namedPorts.find((c) => c.name === p && protocolOf(c.protocol) === protocol);
  return named ? { protocol, port: named.port } : undefined;
}

/** The peer's pods' addresses (and their aliases), or the block it names. */
export function peerSources(peer: V1NetworkPolicyPeer, policyNamespace: string, view: PolicyView): SourceMatch {
  if (peer.ipBlock) return { kind: 'block', cidr: peer.ipBlock.cidr, except: peer.ipBlock.except ?? [] };
  const inNamespace = (ns: string): boolean =>
    peer.namespaceSelector ? matchesSelector(peer.namespaceSelector, { ...(view.namespaces.get(ns) ?? {}) }) : ns === policyNamespace;
  const addresses = view.pods
    .filter((p) => p.ip !== undefined && inNamespace(p.namespace))
    .filter((p) => (peer.podSelector ? matchesSelector(peer.podSelector, { ...p.labels }) : true))
    .flatMap((p) => [p.ip!, ...view.aliases(p.ip!)]);
  return { kind: 'addresses', addresses: [...new Set(addresses)].sort(compareIp) };
}

function compareIp(a: string, b: string): number {
  const n = (ip: string) => ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  return n(a) - n(b);
}

/** What reaches `pod` under `view`'s policies. */
export function podIngress(pod: PolicyPod, view: PolicyView): PodIngress {
  const selecting = selectingPolicies(pod, view.policies);
  if (selecting.length === 0) return { isolated: false, accept: [] };
  const accept: AcceptRule[] = [];
  for (const policy of selecting) {
    const ns = policy.metadata?.namespace ?? '';
    for (const rule of policy.spec?.ingress ?? []) {
      const ports = rulePorts(rule.ports, pod);
      if (ports !== 'any' && ports.length === 0) continue;
      const peers = rule.from ?? [];
      if (peers.length === 0) {
        accept.push({ sources: { kind: 'any' }, ports });
        continue;
      }
      for (const peer of peers) {
        const sources = peerSources(peer, ns, view);
        if (sources.kind === 'addresses' && sources.addresses.length === 0) continue;
        accept.push({ sources, ports });
      }
    }
  }
  return { isolated: true, accept };
}

/** A rule's ports on this pod: 'any' when it lists none (or one without a port number or name). */
function rulePorts(ports: V1NetworkPolicyPort[] | undefined, pod: PolicyPod): PortMatch[] | 'any' {
  if (!ports || ports.length === 0) return 'any';
  const out: PortMatch[] = [];
  for (const p of ports) {
    const r = resolvePort(p, pod);
    if (r === 'any-port') return 'any';
    if (r) out.push(r);
  }
  return out;
}

/** The nftables table every pod's rules live in. */
export const NFT_TABLE = 'sandbox_netpol';

function portText(m: PortMatch): string {
  return m.endPort !== undefined ? `${m.port}-${m.endPort}` : String(m.port);
}

function sourceText(s: SourceMatch): string {
  if (s.kind === 'any') return '';
  if (s.kind === 'addresses') return `ip saddr { ${s.addresses.join(', ')} } `;
  return `ip saddr ${s.cidr} ${s.except.length ? `ip saddr != { ${s.except.join(', ')} } ` : ''}`;
}

/**
 * The nftables script that gives a pod's network namespace these rules, replacing what it had
 * (one transaction: the table is declared, deleted and made again). Not isolated: the table is
 * removed, so everything is accepted. Isolated: replies to the pod's own connections, loopback
 * and the node are accepted, then each rule; the rest is rejected with ICMP "administratively
 * prohibited", so a refused client fails at once (EHOSTUNREACH) rather than waiting out a timeout.
 */
export function renderNftScript(ingress: PodIngress, node: string): string {
  const head = `table ip ${NFT_TABLE}\ndelete table ip ${NFT_TABLE}\n`;
  if (!ingress.isolated) return head;
  const lines = ['ct state established,related accept', 'iif "lo" accept', `ip saddr ${node} accept`];
  for (const rule of ingress.accept) {
    const from = sourceText(rule.sources);
    if (rule.ports === 'any') {
      lines.push(`${from}accept`);
      continue;
    }
    for (const protocol of ['tcp', 'udp', 'sctp'] as const) {
      const ports = rule.ports.filter((p) => p.protocol === protocol).map(portText);
      if (ports.length) lines.push(`${from}${protocol} dport { ${[...new Set(ports)].join(', ')} } accept`);
    }
  }
  lines.push('reject with icmp admin-prohibited');
  const body = lines.map((l) => `    ${l}`).join('\n');
  return `${head}table ip ${NFT_TABLE} {\n  chain ingress {\n    type filter hook input priority 0; policy accept;\n${body}\n  }\n}\n`;
}
