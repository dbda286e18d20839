// The kubelet's log endpoint, `GET /containerLogs/<namespace>/<pod>/<container>`, with the query
// of the pods/log subresource (`follow`, `previous`, `tailLines`, `limitBytes`). The API server
// proxies `kubectl logs` here through the Node's daemonEndpoints, as a real one does. Plain HTTP
// on the loopback address: no client certificates in the sandbox.
import http from 'node:http';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface LogSource {
  /** undefined: no such pod on this node. */
  logPath(namespace: string, pod: string, container: string, previous: boolean): { path: string | undefined; known: boolean } | undefined;
  isRunning(namespace: string, pod: string, container: string): boolean;
}

function lastLines(text: string, n: number): string {
  const lines = text.split(/(?<=\n)/);
  return lines.slice(Math.max(lines.length - n, 0)).join('');
}

/**
 * Streams what the container writes after `from` until it stops. Reads through a descriptor
 * opened now: the pod's directory may be removed (pod deleted) before the follower has read
 * the last lines.
 */
async function follow(path: string, from: number, res: http.ServerResponse, running: () => boolean): Promise<void> {
  const fd = openSync(path, 'r');
  let pos = from;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  try {
    for (;;) {
      const wasRunning = running();
      const size = fstatSync(fd).size;
      if (size > pos) {
        const buf = Buffer.alloc(size - pos);
        readSync(fd, buf, 0, buf.length, pos);
        res.write(buf);
        pos = size;
      }
      if (closed || (!wasRunning && fstatSync(fd).size <= pos)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    closeSync(fd);
    res.end();
  }
}

export async function startLogServer(source: LogSource, host = '127.0.0.1'): Promise<{ port: number; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://kubelet');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const fail = (code: number, message: string) => {
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(message);
    };
    if (!m) return fail(404, '404 page not found');
    const [, ns, pod, container] = m.map(decodeURIComponent) as [string, string, string, string];
    const previous = url.searchParams.get('previous') === 'true';
    const found = source.logPath(ns, pod, container, previous);
    if (!found) return fail(404, `pod ${ns}/${pod} is not on this node`);
    if (!found.known) return fail(400, `container ${container} is not valid for pod ${pod}`);
    if (!found.path) {
      return fail(
        400,
        previous
          ? `previous terminated container "${container}" in pod "${pod}" not found`
          : `container "${container}" in pod "${pod}" is waiting to start: no log yet`,
      );
    }
    const text = readFileSync(found.path, 'utf8');
    const tail = url.searchParams.get('tailLines');
    let body = tail !== null ? lastLines(text, Number(tail)) : text;
    const limit = url.searchParams.get('limitBytes');
    if (limit !== null) body = Buffer.from(body).subarray(0, Number(limit)).toString('utf8');
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked' });
    res.write(body);
    if (url.searchParams.get('follow') !== 'true' || previous) return void res.end();
    void follow(found.path, Buffer.byteLength(text), res, () => source.isRunning(ns, pod, container));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
