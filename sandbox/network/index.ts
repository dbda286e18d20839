// The sandbox's pod network (docs/sandbox-network.md): a bridge per sandbox, a network namespace
// per pod with its address on it, hosts files standing in for the cluster DNS, a Service proxy on
// the ClusterIPs, and ingress NetworkPolicies enforced in each pod's namespace. It watches Pods,
// Services, Namespaces and NetworkPolicies directly (not EndpointSlices), so it needs nothing
// but the API server.
import type { V1Namespace, V1Pod, V1Service } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { Informer } from '../../src/runtime/informer.ts';
import { KubeClient } from '../../src/runtime/kube/client.ts';
import { createLogger, errorMessage, type Logger } from '../../src/runtime/logger.ts';
import { proxyAlias } from './addresses.ts';
import { claimAddresses, type AddressClaim } from './claim.ts';
import { dnsRecords, renderHostsFile, resolveName, withApiServerNames, type DnsRecord } from './hosts.ts';
import type { NetworkPolicy } from './policy.ts';
import { PolicyEnforcer } from './policy-enforcer.ts';
import { PodNetworks, type PodNetwork, type PodRef } from './pods.ts';
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
  /**
   * Enforce ingress NetworkPolicies (default true), as a CNI that supports them does; false: as
   * one that ignores them (every pod reaches every pod).
   */
  networkPolicies?: boolean;
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
  /** Resolves after everything observed so far is applied (hosts files, listeners, policy rules). */
  settled(): Promise<void>;
  /** The nftables script a pod's namespace holds for the NetworkPolicies (none: not enforced, or not applied yet). */
  policyRules(uid: string): string | undefined;
  /** Closes the proxy, removes every pod namespace, the bridge and the network's files. */
  stop(): Promise<void>;
}

const POD: { apiVersion: string; kind: string } = { apiVersion: 'v1', kind: 'Pod' };
const SERVICE: { apiVersion: string; kind: string } = { apiVersion: 'v1', kind: 'Service' };
const NAMESPACE: { apiVersion: string; kind: string } = { apiVersion: 'v1', kind: 'Namespace' };
const NETWORK_POLICY: { apiVersion: string; kind: string } = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' };
/** How long an attach waits for the network's watch to show the pod, so its rules and its peers' include it before it runs. */
const POD_SEEN_TIMEOUT_MS = 10_000;

export async function startSandboxNetwork(opts: SandboxNetworkOptions): Promise<SandboxNetwork> {
  if (!opts.client && !opts.kubeConfig) throw new Error('startSandboxNetwork: kubeConfig or client is required');
  const log = (opts.log ?? createLogger({ level: 'warn', stream: process.stderr })).child({ component: 'sandbox-network' });
  const claim = opts.claim ?? (await claimAddresses(opts.workDir));
  const client = opts.client ?? new KubeClient(opts.kubeConfig!, { userAgent: 'sandbox-network' });
  const pods = new Informer<V1Pod & { metadata: object }>({ client, target: POD, log });
  const services = new Informer<V1Service & { metadata: object }>({ client, target: SERVICE, log });
  const enforce = opts.networkPolicies ?? true;
  const namespaces = enforce ? new Informer<V1Namespace & { metadata: object }>({ client, target: NAMESPACE, log }) : undefined;
  const policies = enforce ? new Informer<NetworkPolicy & { metadata: object }>({ client, target: NETWORK_POLICY, log }) : undefined;
  let records: DnsRecord[] = [];
  const podNetworks = new PodNetworks(claim, (identity) => renderHostsFile(identity, records));
  const enforcer = enforce
    ? new PolicyEnforcer(
        {
          attached: () => podNetworks.attachedPods(),
          addresses: () => podNetworks.addresses(),
          pods: () => pods.list(),
          namespaces: () => namespaces!.list(),
          policies: () => policies!.list(),
        },
        claim.gateway,
        (ip) => {
          const alias = proxyAlias(claim, ip);
          return alias ? [alias] : [];
        },
        log,
      )
    : undefined;
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
    { podCIDR: claim.podCIDR, aliasCIDR: claim.aliasCIDR },
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
  // The policy rules follow on their own: applying them never waits for, nor delays, the names and the proxy.
  const changed = (): void => {
    void refresh();
    void enforcer?.sync();
  };
  const onChange = { onAdd: changed, onUpdate: changed, onDelete: changed };
  pods.addHandlers(onChange);
  services.addHandlers(onChange);
  namespaces?.addHandlers(onChange);
  policies?.addHandlers(onChange);

  // An attach returns once the pod's rules, and its address in its peers' rules, are in place:
  // its processes start after that, so a pod allowed somewhere is never refused for being new.
  const seenWaiters = new Map<string, Array<() => void>>();
  pods.addHandlers({
    onAdd: (p) => {
      const uid = p.metadata?.uid ?? '';
      for (const w of seenWaiters.get(uid) ?? []) w();
      seenWaiters.delete(uid);
    },
  });
  const podSeen = (uid: string): Promise<void> =>
    pods.list().some((p) => p.metadata?.uid === uid)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const seen = (): void => {
            clearTimeout(timer);
            resolve();
          };
          // Not seen in time: go on (the pod gets its rules when its object arrives), and forget the waiter.
          const timer = setTimeout(() => {
            const left = (seenWaiters.get(uid) ?? []).filter((w) => w !== seen);
            if (left.length) seenWaiters.set(uid, left);
            else seenWaiters.delete(uid);
            resolve();
          }, POD_SEEN_TIMEOUT_MS);
          seenWaiters.set(uid, [...(seenWaiters.get(uid) ?? []), seen]);
        });
  const network: PodNetwork = {
    attach: async (pod: PodRef) => {
      const attachment = await podNetworks.attach(pod);
      if (enforcer) {
        await podSeen(pod.uid);
        await enforcer.sync();
      }
      return attachment;
    },
    detach: (uid) => podNetworks.detach(uid),
  };

  const abort = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
  const informers = [pods, services, ...(namespaces ? [namespaces] : []), ...(policies ? [policies] : [])];
  for (const i of informers) i.start(signal);
  const ready = (async () => {
    await Promise.all(informers.map((i) => i.waitForSync(signal)));
    await refresh();
    await enforcer?.sync();
  })();
  ready.catch(() => {});

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      abort.abort();
      await Promise.all(informers.map((i) => i.stop()));
      await refreshing;
      await enforcer?.idle();
      await proxy.close();
      await podNetworks.close();
      await claim.release();
      if (!opts.client) client.close();
    })());
  opts.signal?.addEventListener('abort', () => void stop(), { once: true });

  const { release: _r, dir: _d, ...addresses } = claim;
  return {
    network,
    ready,
    addresses,
    resolve: (name) => resolveName(records, name),
    listeners: () => proxy.listeners(),
    settled: async () => {
      while (refreshing || dirty) await (refreshing ?? refresh());
      await enforcer?.sync();
    },
    policyRules: (uid) => enforcer?.applied(uid),
    stop,
  };
}
