// The Service proxy's data path, in a process of its own (started by ServiceProxy, proxy.ts): it
// listens on the ClusterIPs and forwards each new connection to one of the endpoints the parent
// last sent. The parent (the sandbox process) also runs the API server, the workload controllers
// and the kubelet; with the forwarding on its event loop, a busy moment there held every proxied
// connection's bytes, and clients timed out in their handshake (seen: connects through the master
// Service timing out for seconds during a replica's restart, the master idle). kube-proxy is not
// in the API server either: here only the table's updates wait for the parent, as kube-proxy's
// rule syncs wait for its watch.
//
// A connection from a pod goes to its endpoint from that pod's alias address (proxy-table.ts
// upstreamSource), so the endpoint's NetworkPolicy rules judge the client pod, not the proxy.
//
// Messages from the parent: { kind: 'sync', id, listeners, endpoints } (the whole table) and
// { kind: 'close' }; to it: { kind: 'synced', id, failed } once the listeners are open.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import {
  listenerKey,
  passReset,
  upstreamSource,
  type Endpoint,
  type Listener,
  type ProxyChildMessage,
  type ProxyParentMessage,
  type SourceAliases,
} from './proxy-table.ts';

interface Running {
  server: Server;
  /** The round robin's next endpoint. */
  next: number;
}

/** The pods' source aliases (argv[2], JSON), when the network gives them. */
const aliases: SourceAliases | undefined = process.argv[2] ? (JSON.parse(process.argv[2]) as SourceAliases) : undefined;
const running = new Map<string, Running>();
const sockets = new Set<Socket>();
let endpoints = new Map<string, Endpoint[]>();

function track(s: Socket): void {
  sockets.add(s);
  s.once('close', () => sockets.delete(s));
}

function forward(key: string, client: Socket): void {
  const r = running.get(key);
  const eps = endpoints.get(key) ?? [];
  if (!r || eps.length === 0) {
    // kube-proxy rejects a connection to a Service without endpoints: the client sees a refusal.
    client.resetAndDestroy();
    return;
  }
  const target = eps[r.next++ % eps.length]!;
  const localAddress = upstreamSource(aliases, client.remoteAddress, target.ip);
  const upstream = createConnection({ host: target.ip, port: target.port, ...(localAddress ? { localAddress } : {}) });
  track(client);
  track(upstream);
  client.pipe(upstream);
  upstream.pipe(client);
  // A reset on one side is passed on as a reset, so a client sees a backend that died as one.
  client.on('error', () => passReset(upstream));
  upstream.on('error', () => passReset(client));
}

function listen(l: Listener): Promise<Server> {
  const key = listenerKey(l);
  const server = createServer((client) => forward(key, client));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: l.ip, port: l.port }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

async function sync(listeners: readonly Listener[], table: Record<string, Endpoint[]>): Promise<Array<{ key: string; error: string }>> {
  endpoints = new Map(Object.entries(table));
  const byKey = new Map(listeners.map((l) => [listenerKey(l), l]));
  for (const [key, r] of running) {
    if (byKey.has(key)) continue;
    running.delete(key);
    // Stops listening at once; connections already open stay, as kube-proxy leaves established conntrack entries.
    r.server.close();
  }
  const failed: Array<{ key: string; error: string }> = [];
  for (const [key, l] of byKey) {
    if (running.has(key)) continue;
    try {
      running.set(key, { server: await listen(l), next: 0 });
    } catch (e) {
      failed.push({ key, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return failed;
}

function send(m: ProxyChildMessage): void {
  process.send?.(m);
}

// One sync at a time, in the order sent.
let queue: Promise<void> = Promise.resolve();
process.on('message', (m: ProxyParentMessage) => {
  if (m.kind === 'close') {
    for (const s of sockets) s.destroy();
    for (const r of running.values()) r.server.close();
    process.exit(0);
  }
  queue = queue.then(async () => send({ kind: 'synced', id: m.id, failed: await sync(m.listeners, m.endpoints) }));
});
// The parent gone (its IPC channel closed): nothing may keep listening on its addresses.
process.on('disconnect', () => process.exit(0));
send({ kind: 'ready' });
