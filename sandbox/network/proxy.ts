// The Service proxy: each ClusterIP is an address on the sandbox bridge (host side) with a TCP
// listener per Service port; each new connection goes to one of the Service's endpoints (round
// robin), from the table the network last computed from the Pods and Services it watches (every
// change of either syncs it), so a label or readiness change applies to the next connection.
// Connections already open to a pod that stops matching are left alone, as kube-proxy leaves
// established conntrack entries. The listeners and the forwarding run in a child process
// (proxy-process.ts), off the sandbox process's busy event loop; this half keeps the addresses on
// the bridge and sends the table.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { Logger } from '../../src/runtime/logger.ts';
import { isHeadless, podIp, servicePods, targetPort } from './endpoints.ts';
import { addAddress, linkAddresses, removeAddress } from './ip.ts';

import {
  listenerKey,
  type Endpoint,
  type Listener,
  type ProxyChildMessage,
  type ProxyParentMessage,
  type SourceAliases,
} from './proxy-table.ts';

export { listenerKey, passReset, type Listener } from './proxy-table.ts';

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

const CHILD = new URL('./proxy-process.ts', import.meta.url).pathname;

export class ServiceProxy {
  readonly #bridge: string;
  readonly #view: ProxyView;
  readonly #log: Logger;
  readonly #aliases: SourceAliases | undefined;
  #listeners: Listener[] = [];
  #started: Promise<ChildProcess> | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, (failed: Array<{ key: string; error: string }>) => void>();

  /** `aliases`: connect to a pod from the client pod's alias (addresses.ts proxyAlias), so its policies see the client. */
  constructor(bridge: string, view: ProxyView, log: Logger, aliases?: SourceAliases) {
    this.#bridge = bridge;
    this.#view = view;
    this.#log = log;
    this.#aliases = aliases;
  }

  /** Listeners now open, for tests and the progress display. */
  listeners(): Listener[] {
    return [...this.#listeners];
  }

  /** The forwarding process, started on first use; it exits when this process does (its IPC channel closes). */
  #start(): Promise<ChildProcess> {
    this.#started ??= (async () => {
      const child = fork(CHILD, this.#aliases ? [JSON.stringify(this.#aliases)] : [], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
      });
      child.on('message', (m: ProxyChildMessage) => {
        if (m.kind !== 'synced') return;
        this.#waiting.get(m.id)?.(m.failed);
        this.#waiting.delete(m.id);
      });
      const [first] = (await once(child, 'message')) as [ProxyChildMessage];
      if (first.kind !== 'ready') throw new Error(`service proxy: unexpected first message ${first.kind}`);
      return child;
    })();
    return this.#started;
  }

  /**
   * Opens the listeners `wanted` names and closes the others, adding and removing ClusterIPs on the
   * bridge, and gives the forwarding process every listener's endpoints as they are now.
   */
  async sync(wanted: readonly Listener[]): Promise<void> {
    const ips = new Set(wanted.map((l) => `${l.ip}/32`));
    const present = await linkAddresses(this.#bridge);
    for (const cidr of present) if (cidr.endsWith('/32') && !ips.has(cidr)) await removeAddress(this.#bridge, cidr);
    for (const cidr of ips) if (!present.has(cidr)) await addAddress(this.#bridge, cidr);
    const endpoints: Record<string, Endpoint[]> = {};
    for (const l of wanted) {
      endpoints[listenerKey(l)] =
        this.#view.fixedEndpoints?.(l.namespace, l.service) ??
        listenerEndpoints(l, this.#view.service(l.namespace, l.service), this.#view.pods(l.namespace));
    }
    const child = await this.#start();
    const id = this.#nextId++;
    const failed = await new Promise<Array<{ key: string; error: string }>>((resolve) => {
      this.#waiting.set(id, resolve);
      const m: ProxyParentMessage = { kind: 'sync', id, listeners: [...wanted], endpoints };
      child.send(m);
    });
    const bad = new Set(failed.map((f) => f.key));
    this.#listeners = wanted.filter((l) => !bad.has(listenerKey(l)));
    for (const f of failed) {
      // Another process holds the address and port (a ClusterIP of a real cluster that another
      // sandbox also serves): the Service is unreachable here, said once per sync.
      const l = wanted.find((x) => listenerKey(x) === f.key)!;
      this.#log.warn('service proxy: cannot listen', { service: `${l.namespace}/${l.service}`, address: f.key, error: f.error });
    }
  }

  async close(): Promise<void> {
    const child = await this.#started?.catch(() => undefined);
    this.#listeners = [];
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.send({ kind: 'close' } satisfies ProxyParentMessage);
    await exited;
  }
}
