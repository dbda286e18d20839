// What the Service proxy's two halves share (proxy.ts in the sandbox process, proxy-process.ts
// forwarding): a listener, its endpoints, the messages between them, and how a reset passes on.
import type { Socket } from 'node:net';
import { proxyAlias } from './addresses.ts';

/** One TCP listener: a Service port at the Service's ClusterIP. */
export interface Listener {
  ip: string;
  port: number;
  namespace: string;
  service: string;
  /** The Service port's name ('' when the Service has a single unnamed port). */
  portName: string;
}

export interface Endpoint {
  ip: string;
  port: number;
}

/** The pods' range and the range the proxy speaks for them from (addresses.ts). */
export interface SourceAliases {
  podCIDR: string;
  aliasCIDR: string;
}

/**
 * The local address to connect to `target` from, for a client at `client`: its alias when both
 * are pods of this network (the target's policies then see which pod asked), else the kernel's
 * choice (the bridge's address: the node, which policies always let in).
 */
export function upstreamSource(aliases: SourceAliases | undefined, client: string | undefined, target: string): string | undefined {
  if (!aliases || !client) return undefined;
  const plain = client.startsWith('::ffff:') ? client.slice(7) : client;
  return proxyAlias(aliases, target) ? proxyAlias(aliases, plain) : undefined;
}

export function listenerKey(l: { ip: string; port: number }): string {
  return `${l.ip}:${l.port}`;
}

export type ProxyParentMessage =
  | { kind: 'sync'; id: number; listeners: Listener[]; endpoints: Record<string, Endpoint[]> }
  | { kind: 'close' };

export type ProxyChildMessage = { kind: 'ready' } | { kind: 'synced'; id: number; failed: Array<{ key: string; error: string }> };

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
