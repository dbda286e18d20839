// A sandbox attached to an existing cluster's API server (docs/sandbox.md "Attached to a
// cluster"): the relay that lets pods reach a server listening where they cannot (the host's
// loopback, a network the bridge does not route to), and the checks that pods will verify it.
// The relay is plain TCP: TLS runs end to end between the pod and the server, so the relay never
// sees a token, and the pods verify the server's own certificate.
import { createConnection, createServer, isIP, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '../src/runtime/kube/client.ts';
import {
  decideControllers,
  parseSubjectAltName,
  podApiAddress,
  type CertificateNames,
  type ControllersChoice,
  type LeaseView,
} from './decide-attach.ts';
import { passReset } from './network/proxy.ts';

export interface Upstream {
  host: string;
  port: number;
}

/** The kubeconfig's server as the relay dials it; only HTTPS (in-cluster clients send tokens over nothing else). */
export function upstreamOf(kc: KubeConfig): Upstream {
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new Error("the kubeconfig names no server (current-context's cluster)");
  const url = new URL(cluster.server);
  if (url.protocol !== 'https:')
    throw new Error(`the kubeconfig's server ${url.origin} is not HTTPS: pods' in-cluster clients send their token over HTTPS only`);
  if (cluster.skipTLSVerify)
    throw new Error(
      "the kubeconfig skips TLS verification (insecure-skip-tls-verify): pods verify the server with the cluster's kube-root-ca.crt, so its certificate must verify",
    );
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 443) };
}

function handshake(opts: ConnectionOptions, timeoutMs = 10_000): Promise<ReturnType<typeof tlsConnect>> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(opts);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no TLS handshake within ${timeoutMs / 1000} s`)));
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The names and addresses the server's certificate covers (read, not verified: the choice of name comes first). */
export async function serverCertificateNames(upstream: Upstream): Promise<CertificateNames> {
  const socket = await handshake({
    host: upstream.host,
    port: upstream.port,
    rejectUnauthorized: false,
    ...(isIP(upstream.host) ? {} : { servername: upstream.host }),
  });
  try {
    return parseSubjectAltName(socket.getPeerCertificate().subjectaltname);
  } finally {
    socket.destroy();
  }
}

/**
 * What a pod's in-cluster client does, from this machine: a TLS handshake with the relay, the
 * server verified with `ca` (the cluster's kube-root-ca.crt) for `host`. Throws what failed.
 */
export async function verifyAsPod(relay: Upstream, host: string, ca: string): Promise<void> {
  const socket = await handshake({
    host: relay.host,
    port: relay.port,
    ca,
    ...(isIP(host) ? { checkServerIdentity: checkIp(host) } : { servername: host }),
  });
  socket.destroy();
}

/** Node checks an IP against the dialled host; the pod dials `ip` where this dials the relay. */
function checkIp(ip: string): ConnectionOptions['checkServerIdentity'] {
  return (_host, cert) => {
    const names = parseSubjectAltName(cert.subjectaltname);
    return names.ips.includes(ip) ? undefined : new Error(`the certificate does not cover ${ip}`);
  };
}

export interface ApiRelay {
  address: Upstream;
  /** Addresses of the clients it relayed so far (tests: a pod's address shows it came through). */
  clients(): string[];
  stop(): Promise<void>;
}

/** A TCP relay on `listen` to `upstream`; one upstream connection per client, resets passed on. */
export async function startApiRelay(listen: Upstream, upstream: Upstream): Promise<ApiRelay> {
  const sockets = new Set<Socket>();
  const seen = new Set<string>();
  const track = (s: Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const server: Server = createServer((client) => {
    if (client.remoteAddress) seen.add(client.remoteAddress);
    const up = createConnection({ host: upstream.host, port: upstream.port });
    track(client);
    track(up);
    client.pipe(up);
    up.pipe(client);
    client.on('error', () => passReset(up));
    up.on('error', () => passReset(client));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listen.host, port: listen.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: listen,
    clients: () => [...seen],
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Attachment {
  relay: ApiRelay;
  /** KUBERNETES_SERVICE_HOST/PORT of every pod: the relay, under a name the certificate covers. */
  podApi: { host: string; port: number };
  /** What the network maps to the relay (hosts files, the `kubernetes` Service's ClusterIP). */
  networkApi: { ip: string; port: number; names: readonly string[] };
  controllers: { run: 'sandbox' | 'cluster'; reason: string };
}

/** The relay's port on the bridge: the `kubernetes` Service's, so `https://kubernetes.default.svc` works as it does in a cluster. */
export const RELAY_PORT = 443;

/**
 * Prepares the sandbox's parts for the cluster `kc` names: the relay on `gateway`, checked the
 * way a pod will use it (the certificate covers the name pods dial, the cluster's
 * kube-root-ca.crt verifies it), and whose controllers run. Stops the relay if a check fails.
 */
export async function attach(kc: KubeConfig, client: KubeClient, gateway: string, choice: ControllersChoice): Promise<Attachment> {
  const upstream = upstreamOf(kc);
  const names = await serverCertificateNames(upstream).catch((e: unknown) => {
    throw new Error(`cannot reach the kubeconfig's server ${upstream.host}:${upstream.port} over TLS: ${(e as Error).message}`);
  });
  const address = podApiAddress(names, gateway);
  if ('error' in address) throw new Error(address.error);
  const relay = await startApiRelay({ host: gateway, port: RELAY_PORT }, upstream);
  try {
    const rootCA = await clusterRootCA(client);
    await verifyAsPod(relay.address, address.host, rootCA).catch((e: unknown) => {
      throw new Error(
        `pods could not verify the API server through the relay as ${address.host} with the cluster's kube-root-ca.crt: ${(e as Error).message}`,
      );
    });
    const lease = (await client.getIfExists({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'kube-system',
      name: 'kube-controller-manager',
    })) as LeaseView | undefined;
    return {
      relay,
      podApi: { host: address.host, port: RELAY_PORT },
      networkApi: { ip: gateway, port: RELAY_PORT, names: address.hostNames },
      controllers: decideControllers(choice, lease, Date.now()),
    };
  } catch (e) {
    await relay.stop();
    throw e;
  }
}

/** The cluster CA pods verify the server with (kube-controller-manager publishes it in every namespace; a new server within seconds). */
async function clusterRootCA(client: KubeClient): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const cm = (await client.getIfExists({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'kube-root-ca.crt' })) as
      | { data?: Record<string, string> }
      | undefined;
    const ca = cm?.data?.['ca.crt'];
    if (ca) return ca;
    if (Date.now() > deadline)
      throw new Error(
        'the cluster has no kube-root-ca.crt ConfigMap in default (kube-controller-manager publishes it): pods verify the API server with it',
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}
