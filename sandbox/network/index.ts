// The sandbox's pod network (docs/sandbox-network.md): a bridge per sandbox, a network namespace
// per pod with its address on it, hosts files standing in for the cluster DNS, and a Service
// proxy on the ClusterIPs. It watches Pods and Services directly (not EndpointSlices), so it
// needs nothing but the API server.
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { Informer } from '../../src/runtime/informer.ts';
import { KubeClient } from '../../src/runtime/kube/client.ts';
import { createLogger, errorMessage, type Logger } from '../../src/runtime/logger.ts';
import { claimAddresses, type AddressClaim } from './claim.ts';
import { dnsRecords, renderHostsFile, resolveName, withApiServerNames, type DnsRecord } from './hosts.ts';
import { PodNetworks, type PodNetwork } from './pods.ts';
import { desiredListeners, ServiceProxy, type Listener } from './proxy.ts';

export type { PodNetwork, PodNetworkAttachment, PodRef } from './pods.ts';
export type { AddressClaim } from './claim.ts';
export { claimAddresses } from './claim.ts';

export interface SandboxNetworkOptions {
  /** The API to watch Pods and Services on: a kubeconfig, or a client (not closed on stop). */
  kubeConfig?: KubeConfig;
  client?: KubeClient;
  /** The network keeps its files under `<workDir>/network` and cleans what a crashed run with the same work dir left. */
  workDir: string;
  /** Addresses claimed beforehand (`claimAddresses`), so the API server could be given `serviceCIDR`; released on stop. */
  claim?: AddressClaim;
  signal?: AbortSignal;
  /**
   * The API server as pods reach it when it is not served by this network (a sandbox attached to
   * a cluster, sandbox/attach.ts): the relay's address. Its `names` (kubernetes.default.svc...) go
   * to `ip` in every pod's hosts file, in place of the `kubernetes` Service's ClusterIP, and
   * connections to that Service's ClusterIP go to `ip:port`, as kube-proxy sends them to the
   * Service's endpoints (the server).
   */
  apiServer?: { ip: string; port: number; names: readonly string[] };
  /** Default: warnings and errors to stderr (a refresh that failed, a ClusterIP it cannot serve). */
  log?: Logger;
}

export interface SandboxNetwork {
  network: PodNetwork;
  /** Resolves once Pods and Services are listed and hosts files and listeners follow them. */
  ready: Promise<void>;
  /** The bridge, its gateway and ranges. */
  addresses: Omit<AddressClaim, 'release' | 'dir'>;
  /** The cluster DNS answer for a namespace-qualified name, for processes outside pods. */
  resolve(name: string): string | undefined;
  /** The proxy's listeners, in effect from the next connection on. */
  listeners(): Listener[];
  /** Resolves after everything observed so far is applied (hosts files, listeners). */
  settled(): Promise<void>;
  /** Closes the proxy, removes every pod namespace, the bridge and the network's files. */
  stop(): Promise<void>;
}

const POD: { apiVersion: string; kind: string } = { apiVersion: 'v1', kind: 'Pod' };
const SERVICE: { apiVersion: string; kind: string } = { apiVersion: 'v1', kind: 'Service' };

export async function startSandboxNetwork(opts: SandboxNetworkOptions): Promise<SandboxNetwork> {
  if (!opts.client && !opts.kubeConfig) throw new Error('startSandboxNetwork: kubeConfig or client is required');
  const log = (opts.log ?? createLogger({ level: 'warn', stream: process.stderr })).child({ component: 'sandbox-network' });
  const claim = opts.claim ?? (await claimAddresses(opts.workDir));
  const client = opts.client ?? new KubeClient(opts.kubeConfig!, { userAgent: 'sandbox-network' });
  const pods = new Informer<V1Pod & { metadata: object }>({ client, target: POD, log });
  const services = new Informer<V1Service & { metadata: object }>({ client, target: SERVICE, log });
  let records: DnsRecord[] = [];
  const podNetworks = new PodNetworks(claim, (identity) => renderHostsFile(identity, records));
  const api = opts.apiServer;
  const proxy = new ServiceProxy(
    claim.bridge,
    {
      service: (ns, name) => services.get(ns, name),
      pods: (ns) => pods.list({ namespace: ns }),
      ...(api
        ? {
            fixedEndpoints: (ns: string, name: string) =>
              ns === 'default' && name === 'kubernetes' ? [{ ip: api.ip, port: api.port }] : undefined,
          }
        : {}),
    },
    log,
  );

  // One refresh at a time; changes during a refresh ask for one more, however many they are.
  let dirty = false;
  let refreshing: Promise<void> | undefined;
  const refreshOnce = async (): Promise<void> => {
    const allServices = services.list();
    records = dnsRecords(allServices, pods.list());
    if (api) records = withApiServerNames(records, api.ip, api.names);
    await podNetworks.refreshHosts();
    await proxy.sync(desiredListeners(allServices));
  };
  const refresh = (): Promise<void> => {
    dirty = true;
    refreshing ??= (async () => {
      try {
        while (dirty) {
          dirty = false;
          try {
            await refreshOnce();
          } catch (e) {
            log.warn('sandbox network: refresh failed', { error: errorMessage(e) });
          }
        }
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };
  const onChange = { onAdd: () => void refresh(), onUpdate: () => void refresh(), onDelete: () => void refresh() };
  pods.addHandlers(onChange);
  services.addHandlers(onChange);

  const abort = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
  pods.start(signal);
  services.start(signal);
  const ready = (async () => {
    await Promise.all([pods.waitForSync(signal), services.waitForSync(signal)]);
    await refresh();
  })();
  ready.catch(() => {});

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      abort.abort();
      await Promise.all([pods.stop(), services.stop()]);
      await refreshing;
      await proxy.close();
      await podNetworks.close();
      await claim.release();
      if (!opts.client) client.close();
    })());
  opts.signal?.addEventListener('abort', () => void stop(), { once: true });

  const { release: _r, dir: _d, ...addresses } = claim;
  return {
    network: podNetworks,
    ready,
    addresses,
    resolve: (name) => resolveName(records, name),
    listeners: () => proxy.listeners(),
    settled: async () => {
      while (refreshing || dirty) await (refreshing ?? refresh());
    },
    stop,
  };
}
