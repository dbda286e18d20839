// The pods/log subresource: like kube-apiserver, the server finds the pod's node, reads the
// kubelet's port from the Node's daemonEndpoints and its InternalIP, and streams the kubelet's
// `/containerLogs/<ns>/<pod>/<container>` answer back (plain HTTP: the sandbox kubelet's).
import http from 'node:http';
import type { ServerResponse } from 'node:http';
import { ApiError, badRequest, statusBody } from './status.ts';
import type { KObj } from './types.ts';

const PASSED = ['follow', 'previous', 'tailLines', 'limitBytes', 'sinceSeconds', 'timestamps'];

/** The container a log request is for: the named one, or the pod's only container. */
export function logContainer(pod: KObj, requested: string | null): string {
  const names = ((pod.spec?.containers ?? []) as KObj[]).map((c) => String(c.name));
  const inits = ((pod.spec?.initContainers ?? []) as KObj[]).map((c) => String(c.name));
  if (requested) {
    if (![...names, ...inits].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${pod.metadata.name}`);
    return requested;
  }
  if (names.length === 1) return names[0]!;
  throw badRequest(
    `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]${inits.length ? ` or one of the init containers: [${inits.join(' ')}]` : ''}`,
  );
}

/** Where the pod's kubelet serves logs. */
export function kubeletEndpoint(pod: KObj, node: KObj | undefined): { host: string; port: number } {
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${pod.metadata.name} does not have a host assigned`);
  const port = Number(node?.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0);
  const host = ((node?.status?.addresses ?? []) as KObj[]).find((a) => a.type === 'InternalIP')?.address;
  if (!node || !port || !host)
    throw new ApiError(500, statusBody(500, 'InternalError', `Internal error occurred: no kubelet endpoint for node "${nodeName}"`));
  return { host: String(host), port };
}

/** Streams the kubelet's answer; resolves with the status code sent. */
export function proxyLogs(
  target: { host: string; port: number },
  pod: KObj,
  container: string,
  query: URLSearchParams,
  res: ServerResponse,
  headers: Record<string, string>,
): Promise<number> {
  const q = new URLSearchParams();
  for (const k of PASSED) if (query.has(k)) q.set(k, query.get(k)!);
  const path = `/containerLogs/${encodeURIComponent(pod.metadata.namespace)}/${encodeURIComponent(pod.metadata.name)}/${encodeURIComponent(container)}?${q}`;
  return new Promise((resolve) => {
    const req = http.get({ host: target.host, port: target.port, path }, (up) => {
      const code = up.statusCode ?? 500;
      if (code === 200) {
        res.writeHead(200, { ...headers, 'Content-Type': 'text/plain' });
        up.pipe(res);
        res.on('close', () => up.destroy());
        up.on('end', () => resolve(200));
        return;
      }
      let text = '';
      up.on('data', (b: Buffer) => (text += b.toString('utf8')));
      up.on('end', () => {
        const body = statusBody(code, code === 404 ? 'NotFound' : 'BadRequest', text);
        res.writeHead(code, { ...headers, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
        resolve(code);
      });
    });
    res.on('close', () => req.destroy());
    req.on('error', (e) => {
      if (!res.headersSent) {
        res.writeHead(500, { ...headers, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(statusBody(500, 'InternalError', `Get "http://${target.host}:${target.port}${path}": ${e.message}`)));
      }
      resolve(500);
    });
  });
}
