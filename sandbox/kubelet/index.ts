// The sandbox kubelet (docs/sandbox-kubelet.md): registers its Node, runs the pods bound to it as
// local processes (pod-worker.ts), reports their status and serves their logs.
import { mkdirSync } from 'node:fs';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { KubeClient } from '../../src/runtime/kube/client.ts';
import { NotFoundError } from '../../src/runtime/kube/errors.ts';
import { KubeEventRecorder } from '../../src/runtime/events.ts';
import { Informer } from '../../src/runtime/informer.ts';
import { createLogger, type Logger } from '../../src/runtime/logger.ts';
import { apiServerEnv, type ApiServerAddress } from './env.ts';
import { hostNetwork, type PodNetwork } from './host-network.ts';
import type { ImageTableOptions } from './images.ts';
import { startLogServer } from './log-server.ts';
import { machineCapacity, NodeRegistration } from './kube-node.ts';
import { PodWorker } from './pod-worker.ts';
import { requestedTokens, staticToken, type TokenSource } from './tokens.ts';
import { podStatusPatch, type PodRuntime, type PodStatusPatch } from './status.ts';

export type { PodNetwork, PodNetworkAttachment } from './host-network.ts';
export { hostNetwork } from './host-network.ts';

export interface KubeletOptions {
  kubeconfig?: KubeConfig;
  client?: KubeClient;
  nodeName: string;
  /** Pod directories (`pods/<uid>`) and unbound claims' volumes (`volumes/<ns>/<claim>`). */
  workDir: string;
  /** Pods of their own network; default: the host network (every pod at the node's address). */
  network?: PodNetwork;
  signal?: AbortSignal;
  /** The node's address (status.hostIP, the log endpoint). Default 127.0.0.1. */
  nodeIP?: string;
  images?: ImageTableOptions;
  /** The API server as pods reach it: every container gets the `kubernetes` Service's variables
   * (KUBERNETES_SERVICE_HOST/PORT), which in-cluster clients read. Default: none. */
  apiServer?: ApiServerAddress;
  /**
   * Where pods' projected service account tokens come from: 'kubeconfig' (default) the
   * kubeconfig's own token (the sandbox's API server); 'request' a TokenRequest per pod for its
   * service account, as a real kubelet does (a real cluster: tokens.ts).
   */
  serviceAccountTokens?: 'kubeconfig' | 'request';
  /** Restart backoff; default the kubelet's 10 s doubling to 5 min (tests scale it down). */
  backoff?: { baseMs: number; maxMs: number };
  /** How often configMap/secret volumes are compared with their objects. Default 1 s. */
  volumeSyncMs?: number;
  /** Node status and Lease renewal period. Default 10 s. */
  heartbeatMs?: number;
  log?: Logger;
}

export interface Kubelet {
  nodeName: string;
  /** Resolves once the Node is registered and the pod watch is synced. */
  ready(): Promise<void>;
  /** What the kubelet knows of a pod it runs (tests, the sandbox's progress display). */
  runtime(namespace: string, name: string): PodRuntime | undefined;
  /** Stops every container (with its grace period) and the kubelet; the pods stay in the API. */
  stop(): Promise<void>;
}

export async function startKubelet(opts: KubeletOptions): Promise<Kubelet> {
  const client = opts.client ?? new KubeClient(opts.kubeconfig!, { userAgent: 'sandbox-kubelet', fieldManager: 'kubelet' });
  const log = opts.log ?? createLogger({ level: 'warn' }).child({ component: 'kubelet', node: opts.nodeName });
  const events = new KubeEventRecorder(client, { component: 'kubelet', log });
  const nodeIP = opts.nodeIP ?? '127.0.0.1';
  mkdirSync(opts.workDir, { recursive: true });
  const capacity = machineCapacity(opts.workDir);
  const workers = new Map<string, PodWorker>();
  const byName = (ns: string, name: string) =>
    [...workers.values()].find((w) => w.pod.metadata?.namespace === ns && w.pod.metadata?.name === name);

  const logs = await startLogServer(
    {
      logPath: (ns, pod, container, previous) => {
        const w = byName(ns, pod);
        if (!w) return undefined;
        const known = [...w.init, ...w.containers].some((c) => c.name === container);
        return { known, path: known ? w.logPath(container, previous) : undefined };
      },
      isRunning: (ns, pod, container) => byName(ns, pod)?.isRunning(container) ?? false,
    },
    nodeIP,
  );
  const node = new NodeRegistration(client, { name: opts.nodeName, ip: nodeIP, logPort: logs.port, capacity });

  // Status writes: one in flight per pod, the latest state wins, unchanged states are not sent.
  const sent = new Map<string, string>();
  const computed = new Map<string, PodStatusPatch>();
  const pending = new Set<string>();
  const inFlight = new Map<string, Promise<void>>();
  const syncStatus = (w: PodWorker): void => {
    pending.add(w.uid);
    if (inFlight.has(w.uid)) return;
    const run = (async () => {
      while (pending.delete(w.uid)) {
        const patch = podStatusPatch(w.pod, w.runtime(), computed.get(w.uid));
        computed.set(w.uid, patch);
        const text = JSON.stringify(patch);
        if (sent.get(w.uid) === text) continue;
        try {
          await client.patchStatus(
            { apiVersion: 'v1', kind: 'Pod', namespace: w.pod.metadata!.namespace!, name: w.pod.metadata!.name! },
            { status: patch },
            'strategic',
          );
          sent.set(w.uid, text);
        } catch (e) {
          if (!(e instanceof NotFoundError))
            log.warn('could not write pod status', { pod: w.pod.metadata?.name, error: (e as Error).message });
        }
      }
    })().finally(() => inFlight.delete(w.uid));
    inFlight.set(w.uid, run);
  };

  const tokens: TokenSource & { forget?(uid: string): void } =
    opts.serviceAccountTokens === 'request'
      ? requestedTokens(client)
      : staticToken(opts.kubeconfig?.getCurrentUser()?.token ?? client.kubeConfig.getCurrentUser()?.token ?? '');
  const ctx = {
    client,
    events,
    log,
    workDir: opts.workDir,
    nodeIP,
    allocatable: capacity,
    network: opts.network ?? hostNetwork(nodeIP),
    hostNetwork: hostNetwork(nodeIP),
    images: opts.images ?? {},
    backoff: opts.backoff ?? { baseMs: 10_000, maxMs: 300_000 },
    volumeSyncMs: opts.volumeSyncMs ?? 1000,
    apiServerEnv: apiServerEnv(opts.apiServer),
    serviceAccountToken: tokens,
    onChange: syncStatus,
  };

  /** Stops a pod's containers; when the API server asked for it (graceful deletion), deletes the pod for good. */
  const finish = async (w: PodWorker, graceSeconds: number, deleteFromApi: boolean): Promise<void> => {
    await w.terminate(graceSeconds);
    await inFlight.get(w.uid);
    workers.delete(w.uid);
    tokens.forget?.(w.uid);
    sent.delete(w.uid);
    computed.delete(w.uid);
    if (!deleteFromApi) return;
    const ref = { apiVersion: 'v1', kind: 'Pod', namespace: w.pod.metadata!.namespace!, name: w.pod.metadata!.name! };
    await client
      .request('DELETE', await client.pathFor(ref), {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: w.uid } },
      })
      .catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) log.warn('could not delete the terminated pod', { pod: ref.name, error: (e as Error).message });
      });
  };

  const observe = (pod: V1Pod): void => {
    if (pod.spec?.nodeName !== opts.nodeName || !pod.metadata?.uid) return;
    let w = workers.get(pod.metadata.uid);
    const phase = pod.status?.phase;
    if (!w) {
      if (phase === 'Succeeded' || phase === 'Failed') return;
      if (pod.metadata.deletionTimestamp) {
        // Never started here: nothing to stop, only the deletion to complete.
        void client
          .request('DELETE', `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`, {
            body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } },
          })
          .catch(() => undefined);
        return;
      }
      w = new PodWorker(ctx, pod);
      workers.set(pod.metadata.uid, w);
      return;
    }
    w.update(pod);
    if (pod.metadata.deletionTimestamp && !w.stopping) {
      void finish(w, pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30, true);
      return;
    }
    // Others' conditions (readiness gates) change the Ready condition.
    syncStatus(w);
  };

  const informer = new Informer<V1Pod & { metadata: { name: string } }>({ client, target: { apiVersion: 'v1', kind: 'Pod' }, log });
  informer.addHandlers({
    onAdd: observe,
    onUpdate: (_old, pod) => observe(pod),
    onDelete: (pod) => {
      const w = pod.metadata?.uid ? workers.get(pod.metadata.uid) : undefined;
      if (w && !w.stopping) void finish(w, pod.spec?.terminationGracePeriodSeconds ?? 30, false);
    },
  });

  const stopAll = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stopAll.signal]) : stopAll.signal;
  const heartbeat = setInterval(() => {
    node.heartbeat().catch((e: unknown) => log.warn('node heartbeat failed', { error: (e as Error).message }));
  }, opts.heartbeatMs ?? 10_000);
  heartbeat.unref();

  const readyPromise = (async () => {
    await node.register();
    informer.start(signal);
    await informer.waitForSync(signal);
  })();
  readyPromise.catch(() => undefined);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      clearInterval(heartbeat);
      await informer.stop();
      stopAll.abort();
      await Promise.all([...workers.values()].map((w) => finish(w, w.pod.spec?.terminationGracePeriodSeconds ?? 30, false)));
      await logs.stop();
      await node.unregister();
      await events.flush();
      if (!opts.client) client.close();
    })();
    return stopped;
  };
  opts.signal?.addEventListener('abort', () => void stop(), { once: true });

  return {
    nodeName: opts.nodeName,
    ready: () => readyPromise,
    runtime: (ns, name) => byName(ns, name)?.runtime(),
    stop,
  };
}
