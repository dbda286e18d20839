// What a sandbox attached to an existing cluster's API server (`startSandbox({ kubeconfig })`,
// docs/sandbox.md "Attached to a cluster") decides from what it finds there. Pure.
import { KUBERNETES_SERVICE_NAMES } from './apiserver/tls.ts';

/** The names and addresses a serving certificate covers (its subjectAltName). */
export interface CertificateNames {
  dns: string[];
  ips: string[];
}

/** Node's `subjectaltname` text ("DNS:a, IP Address:1.2.3.4") as names and addresses. */
export function parseSubjectAltName(text: string | undefined): CertificateNames {
  const out: CertificateNames = { dns: [], ips: [] };
  for (const part of (text ?? '').split(/,\s*/)) {
    const m = /^(DNS|IP Address):(.+)$/.exec(part.trim());
    if (!m) continue;
    if (m[1] === 'DNS') out.dns.push(m[2]!.toLowerCase());
    else out.ips.push(m[2]!);
  }
  return out;
}

/** How pods reach the API server: KUBERNETES_SERVICE_HOST, and the names their hosts files map to the relay. */
export interface PodApiAddress {
  host: string;
  /** Names the pods' hosts files map to the relay's address (none when `host` is that address). */
  hostNames: string[];
}

/** The in-cluster name, most specific first: kubeadm, k3s, kind and the self-signed server all carry the first. */
const PREFERRED = ['kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'kubernetes.default', 'kubernetes'];

/**
 * Pods connect to the relay on the bridge (`relayIp`), and their clients verify the server's
 * certificate against the host they dialled. A certificate that covers the relay's address is
 * dialled by it; otherwise by a `kubernetes.default.svc` name the certificate covers (every
 * kube-apiserver's does), which the pods' hosts files then map to the relay. A certificate with
 * neither cannot be verified from a pod: an error naming what it covers.
 */
export function podApiAddress(cert: CertificateNames, relayIp: string): PodApiAddress | { error: string } {
  if (cert.ips.includes(relayIp)) return { host: relayIp, hostNames: [] };
  const name = PREFERRED.find((n) => cert.dns.includes(n));
  if (name) return { host: name, hostNames: [...KUBERNETES_SERVICE_NAMES] };
  const covers = [...cert.dns.map((d) => `DNS:${d}`), ...cert.ips.map((i) => `IP:${i}`)].join(', ') || 'nothing';
  return {
    error:
      `the API server's certificate covers ${covers}: neither the sandbox's relay address ${relayIp} nor kubernetes.default.svc, ` +
      "so pods could not verify it (a kube-apiserver's serving certificate normally names kubernetes.default.svc)",
  };
}

/** The parts of a coordination.k8s.io Lease this reads. */
export interface LeaseView {
  spec?: { holderIdentity?: string | null; renewTime?: string | null; leaseDurationSeconds?: number | null };
}

export type ControllersChoice = 'auto' | 'sandbox' | 'cluster';

/**
 * Whose workload controllers and scheduler run: 'sandbox' or 'cluster' as asked; 'auto' the
 * cluster's when its kube-controller-manager holds its Lease in kube-system (renewed within
 * twice its duration, at least a minute), else the sandbox's (an API server with no controller
 * manager, like the project's own).
 */
export function decideControllers(
  choice: ControllersChoice,
  controllerManagerLease: LeaseView | undefined,
  now: number,
): { run: 'sandbox' | 'cluster'; reason: string } {
  if (choice !== 'auto') return { run: choice, reason: `asked for (--controllers ${choice})` };
  const spec = controllerManagerLease?.spec;
  if (!spec) return { run: 'sandbox', reason: 'the cluster has no kube-controller-manager Lease in kube-system' };
  const renewed = Date.parse(spec.renewTime ?? '');
  const window = Math.max(60, 2 * (spec.leaseDurationSeconds ?? 15)) * 1000;
  if (!spec.holderIdentity || !Number.isFinite(renewed) || now - renewed > window) {
    return { run: 'sandbox', reason: "the cluster's kube-controller-manager Lease in kube-system is not held" };
  }
  return { run: 'cluster', reason: `the cluster runs kube-controller-manager (${spec.holderIdentity} holds its Lease)` };
}
