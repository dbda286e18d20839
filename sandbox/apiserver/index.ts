// The test API server: `startApiServer()` serves the Kubernetes wire protocol over plain HTTP (or
// HTTPS with `tls: true`) on loopback, port 0 by default, in-process. See docs/test-apiserver.md.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';
import type { Faults } from './faults.ts';
import { GarbageCollector } from './gc.ts';
import { kubernetesServiceIP, ObjectService } from './objects.ts';
import type { RequestLog } from './request-log.ts';
import { Resources } from './resources.ts';
import { ApiHttpHandler } from './server.ts';
import { Store } from './store.ts';
import { clientCertificates, selfSignedCert } from './tls.ts';
import type { KObj } from './types.ts';

export type { Faults, RequestMatch } from './faults.ts';
export type { RequestLog, RequestLogEntry } from './request-log.ts';
export type { KObj } from './types.ts';

export interface ApiServerOptions {
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  host?: string;
  /** Bearer token the kubeconfig carries; a wrong token gets 401 (null: no authentication at all). */
  token?: string | null;
  /** Requests without credentials are served (default), as kubectl sends no token over plain HTTP;
   * false answers them 403 like kube-apiserver's RBAC does for system:anonymous. */
  allowAnonymous?: boolean;
  /** Events the watch window retains before older start RVs get 410 (default 50,000). */
  watchWindow?: number;
  /** Interval of BOOKMARK events for watches that ask for them (default 60 s, as the real one). */
  bookmarkIntervalMs?: number;
  /** CRDs to install at start: objects or paths of YAML files. */
  crds?: (KObj | string)[];
  /** Serve HTTPS with a self-signed certificate (needs the openssl CLI); the kubeconfig carries its CA. */
  tls?: boolean;
  /** With `tls`: the kubeconfig authenticates with a client certificate (signed by a CA this
   * server trusts) instead of the bearer token, as kubeadm's admin.conf and kind's do. */
  clientCertAuth?: boolean;
  /** Admission as a stock cluster enables it (default): Pod priority and default tolerations, the
   * PVC protection finalizer. false: only the plugins of the recorded v1.26.1 run (fixture replay). */
  stockAdmission?: boolean;
  /** Where Service ClusterIPs come from (default 10.0.0.0/24); sandboxes side by side each pass
   * their network's own range (sandbox/network claimAddresses) so their ClusterIPs never meet. */
  serviceCIDR?: string;
}

export interface ApiServer {
  url: string;
  token: string | null;
  kubeConfig(): KubeConfig;
  kubeconfigYaml(): string;
  writeKubeconfig(path: string): void;
  faults: Faults;
  requestLog: RequestLog;
  /** Direct access for tests that need to look behind the wire (current RV, raw objects). */
  internals: { service: ObjectService };
  stop(): Promise<void>;
}

const DEFAULT_SERVICE_CIDR = '10.0.0.0/24';
const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const SYSTEM = { manager: 'kube-apiserver', dryRun: false, fieldValidation: 'Ignore', warnings: [] as string[] };

export function crdObjectsFrom(source: KObj | string): KObj[] {
  if (typeof source !== 'string') return [source];
  return parseAllDocuments(readFileSync(source, 'utf8'))
    .map((d) => d.toJS() as KObj | null)
    .filter((d): d is KObj => d !== null && d.kind === 'CustomResourceDefinition');
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const token = opts.token === undefined ? randomBytes(16).toString('hex') : opts.token;
  const store = new Store(opts.watchWindow ?? 50_000);
  const resources = new Resources();
  const service = new ObjectService(store, resources, opts.stockAdmission ?? true, opts.serviceCIDR ?? DEFAULT_SERVICE_CIDR);
  const host = opts.host ?? '127.0.0.1';
  const serving = opts.tls ? await selfSignedCert(host, kubernetesServiceIP(opts.serviceCIDR ?? DEFAULT_SERVICE_CIDR)) : undefined;
  if (opts.clientCertAuth && !serving) throw new Error('startApiServer: clientCertAuth needs tls');
  const client = opts.clientCertAuth ? await clientCertificates() : undefined;
  const gc = new GarbageCollector(service, serving?.cert);
  let address = '';
  const handler = new ApiHttpHandler(service, {
    token,
    allowAnonymous: opts.allowAnonymous ?? true,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    serverAddress: () => address,
    clientCertAuth: client !== undefined,
  });
  const nsDef = resources.find('', 'v1', 'namespaces')!;
  for (const name of DEFAULT_NAMESPACES) service.create(nsDef, undefined, { metadata: { name } }, SYSTEM);
  const crdDef = resources.find('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  for (const src of opts.crds ?? []) for (const crd of crdObjectsFrom(src)) service.create(crdDef, undefined, crd, SYSTEM);

  const server: Server = serving
    ? createTlsServer(
        {
          cert: serving.cert,
          key: serving.key,
          // A client certificate is asked for, not required: a token authenticates as well.
          ...(client ? { requestCert: true, rejectUnauthorized: false, ca: [client.ca] } : {}),
        },
        (req, res) => handler.handle(req, res),
      )
    : createServer((req, res) => handler.handle(req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  const url = `${serving ? 'https' : 'http'}://${host}:${port}`;

  const kubeconfigUser = (): KObj => {
    if (client)
      return {
        'client-certificate-data': Buffer.from(client.cert).toString('base64'),
        'client-key-data': Buffer.from(client.key).toString('base64'),
      };
    return token === null ? {} : { token };
  };
  const kubeconfigObject = (): KObj => ({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'test-apiserver',
        cluster: serving
          ? { server: url, 'certificate-authority-data': Buffer.from(serving.cert).toString('base64') }
          : { server: url, 'insecure-skip-tls-verify': true },
      },
    ],
    users: [{ name: 'test-admin', user: kubeconfigUser() }],
    contexts: [{ name: 'test-apiserver', context: { cluster: 'test-apiserver', user: 'test-admin', namespace: 'default' } }],
    'current-context': 'test-apiserver',
    preferences: {},
  });

  return {
    url,
    token,
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromString(stringify(kubeconfigObject()));
      return kc;
    },
    kubeconfigYaml: () => stringify(kubeconfigObject()),
    writeKubeconfig(path: string) {
      writeFileSync(path, stringify(kubeconfigObject()), { mode: 0o600 });
    },
    faults: handler.faults,
    requestLog: handler.requestLog,
    internals: { service },
    async stop() {
      gc.stop();
      handler.faults.clear();
      handler.watches.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
