// The Service proxy: each ClusterIP is an address on the sandbox bridge (host side) with a TCP
// listener per Service port; each new connection goes to one of the Service's endpoints (round
// robin), chosen at connect time from the Pods and Services the network watches, so a label or
// readiness change applies to the next connection. Connections already open to a pod that stops
// matching are left alone, as kube-proxy leaves established conntrack entries.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { Logger } from '../../src/runtime/logger.ts';
import { errorMessage } from '../../src/runtime/logger.ts';
import { isHeadless, podIp, servicePods, targetPort } from './endpoints.ts';
import { addAddress, linkAddresses, removeAddress } from './ip.ts';

/** One TCP listener: a Service port at the Service's ClusterIP. */
export interface Listener {
  ip: string;
  port: number;
  namespace: string;
  service: string;
  /** The Service port's name ('' when the Service has a single unnamed port). */
  portName: string;
}

export function listenerKey(l: { ip: string; port: number }): string {
  return `${l.ip}:${l.port}`;
}

/** The listeners the Services call for: TCP ports of Services with a ClusterIP. */
export function desiredListeners(services: readonly V1Service[]): Listener[] {
  const out: Listener[] = [];
  for (const svc of services) {
    const ip = svc.spec?.clusterIP;
    if (!ip || isHeadless(svc) || svc.spec?.type === 'ExternalName' || !/^\d+\.\d+\.\d+\.\d+$/.test(ip)) continue;
    for (const p of svc.spec?.ports ?? []) {
      if ((p.protocol ?? 'TCP') !== 'TCP') continue;
      out.push({ ip, port: p.port, namespace: svc.metadata!.namespace!, service: svc.metadata!.name!, portName: p.name ?? '' });
    }
  }
  return out;
}

/** The endpoints (`ip`, `port`) one listener may forward to now, in a stable order. */
export function listenerEndpoints(l: Listener, svc: V1Service | undefined, pods: readonly V1Pod[]): Array<{ ip: string; port: number }> {
  const port = svc?.spec?.ports?.find((p) => (p.name ?? '') === l.portName);
  if (!svc || !port) return [];
  return servicePods(svc, pods)
    .flatMap((pod) => {
      const target = targetPort(port, pod);
      return target === undefined ? [] : [{ ip: podIp(pod)!, port: target }];
    })
    .sort((a, b) => a.ip.localeCompare(b.ip));
}

export interface ProxyView {
  service(namespace: string, name: string): V1Service | undefined;
  pods(namespace: string): V1Pod[];
  /** Endpoints of a Service without a selector the network knows itself (the `kubernetes` Service of an attached cluster). */
  fixedEndpoints?(namespace: string, name: string): Array<{ ip: string; port: number }> | undefined;
}

interface Running {
  listener: Listener;
  server: Server;
  next: number;
}

export class ServiceProxy {
  readonly #bridge: string;
  readonly #view: ProxyView;
  readonly #log: Logger;
  readonly #running = new Map<string, Running>();
  readonly #sockets = new Set<Socket>();

  constructor(bridge: string, view: ProxyView, log: Logger) {
    this.#bridge = bridge;
    this.#view = view;
    this.#log = log;
  }

  /** Listeners now open, for tests and the progress display. */
  listeners(): Listener[] {
    return [...this.#running.values()].map((r) => r.listener);
  }

  /** Opens the listeners `wanted` names and closes the others, adding and removing ClusterIPs on the bridge. */
  async sync(wanted: readonly Listener[]): Promise<void> {
    const byKey = new Map(wanted.map((l) => [listenerKey(l), l]));
    for (const [key, r] of this.#running) {
      if (byKey.has(key)) continue;
      this.#running.delete(key);
      // Stops listening at once; connections already open stay (see the top of this file).
      r.server.close();
    }
    const ips = new Set(wanted.map((l) => `${l.ip}/32`));
    const present = await linkAddresses(this.#bridge);
    for (const cidr of present) if (cidr.endsWith('/32') && !ips.has(cidr)) await removeAddress(this.#bridge, cidr);
    for (const cidr of ips) if (!present.has(cidr)) await addAddress(this.#bridge, cidr);
    for (const [key, l] of byKey) {
      const r = this.#running.get(key);
      if (r) {
        r.listener = l;
        continue;
      }
      try {
        const running: Running = { listener: l, server: await this.#listen(l), next: 0 };
        this.#running.set(key, running);
      } catch (e) {
        // Another process holds the address and port (a ClusterIP of a real cluster that another
        // sandbox also serves): the Service is unreachable here, said once per sync.
        this.#log.warn('service proxy: cannot listen', { service: `${l.namespace}/${l.service}`, address: key, error: errorMessage(e) });
      }
    }
  }

  async close(): Promise<void> {
    const servers = [...this.#running.values()].map((r) => r.server);
    this.#running.clear();
    for (const s of this.#sockets) s.destroy();
    await Promise.all(servers.map(closeServer));
  }

  #listen(l: Listener): Promise<Server> {
    const key = listenerKey(l);
    const server = createServer((client) => this.#forward(key, client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: l.ip, port: l.port }, () => {
        server.off('error', reject);
        resolve(server);
      });
    });
  }

  #forward(key: string, client: Socket): void {
    const r = this.#running.get(key);
    const l = r?.listener;
    const endpoints = !l ? [] : this.#view.fixedEndpoints?.(l.namespace, l.service)
      ?? listenerEndpoints(l, this.#view.service(l.namespace, l.service), this.#view.pods(l.namespace));
    if (!r || endpoints.length === 0) {
      // kube-proxy rejects a connection to a Service without endpoints: the client sees a refusal.
      client.resetAndDestroy();
      return;
    }
    const target = endpoints[r.next++ % endpoints.length]!;
    const upstream = createConnection({ host: target.ip, port: target.port });
    this.#track(client);
    this.#track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    // A reset on one side is passed on as a reset, so a client sees a backend that died as one.
    client.on('error', () => passReset(upstream));
    upstream.on('error', () => passReset(client));
  }

  #track(s: Socket): void {
    this.#sockets.add(s);
    s.once('close', () => this.#sockets.delete(s));
  }
}

/**
 * Passes a reset on to the other side of a proxied connection. Node's resetAndDestroy() on a
 * socket whose end() was called already (the other side had sent its FIN, pipe() ended this one)
 * fails with EINVAL and leaves the handle open with no 'close': the process running the proxy
 * cannot exit (the end-to-end test files hung after their last test until the peer went away, or
 * for good). On a socket still connecting it waits for the connection first, as long as the
 * kernel retries a SYN that no pod answers. Those two are destroyed instead.
 */
export function passReset(s: Socket): void {
  if (s.destroyed) return;
  if (s.connecting || s.writableEnded) s.destroy();
  else s.resetAndDestroy();
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
