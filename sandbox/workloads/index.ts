// The controllers kube-controller-manager and kube-scheduler would run, as one component of the
// sandbox: StatefulSet, Deployment and ReplicaSet, Job, EndpointSlice and Endpoints, the claim
// binder, and a scheduler binding pods to the sandbox's node. They run in one Manager of the
// project's runtime (shared informers, keyed queues, no leader election) against any API server.
// See docs/sandbox-workloads.md.
import { KubeConfig } from '@kubernetes/client-node';
import { loadConfig } from '../../src/runtime/config.ts';
import { KubeEventRecorder, type EventRecorder } from '../../src/runtime/events.ts';
import { KubeClient } from '../../src/runtime/kube/client.ts';
import { createLogger, errorMessage, type Logger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import type { WorkloadEnv } from './env.ts';
import { deploymentController, replicaSetController } from './deployment-controller.ts';
import { endpointsController } from './endpoints-controller.ts';
import { jobController } from './job-controller.ts';
import { statefulSetController } from './statefulset-controller.ts';
import { schedulerController } from './scheduler.ts';
import { volumeController } from './volume-controller.ts';

export interface WorkloadControllersOptions {
  /** Path of a kubeconfig file or a loaded KubeConfig; or give `client`. */
  kubeconfig?: string | KubeConfig;
  client?: KubeClient;
  /** The sandbox's work directory: claims' data go under `<workDir>/volumes/`. */
  workDir: string;
  /** The node pods are bound to (the kubelet's). */
  nodeName: string;
  /** Aborting it stops the controllers, as `stop()` does. */
  signal?: AbortSignal;
  log?: Logger;
  /** First delay before a Job replaces a failed pod; default 10 s, as the real Job controller. */
  jobBackoffMs?: number;
}

export interface WorkloadControllers {
  /** Resolves once every cache has its first list and the controllers run. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

function clientOf(opts: WorkloadControllersOptions): KubeClient {
  if (opts.client) return opts.client;
  if (!opts.kubeconfig) throw new Error('startWorkloadControllers: give kubeconfig or client');
  let kc = opts.kubeconfig;
  if (typeof kc === 'string') {
    const path = kc;
    kc = new KubeConfig();
    kc.loadFromFile(path);
  }
  return new KubeClient(kc, { userAgent: 'sandbox-controller-manager/0.1', fieldManager: 'kube-controller-manager' });
}

export function startWorkloadControllers(opts: WorkloadControllersOptions): WorkloadControllers {
  const client = clientOf(opts);
  const log = opts.log ?? createLogger({ level: 'warn' });
  // Only the runtime's defaults, never the operator's environment (WATCH_NAMESPACE, LEADER_ELECT...).
  const config = loadConfig(
    ['--metrics-addr', '127.0.0.1:0', '--workers', '2', '--resync-period', '30s', '--leader-elect=false'],
    {},
  ).runtime;
  const manager = new Manager({ config, client, log });
  const recorders = new Map<string, KubeEventRecorder>();
  const env: WorkloadEnv = {
    cache: (kind) => manager.informerFor(kind),
    events: (component): EventRecorder => {
      let r = recorders.get(component);
      if (!r) {
        r = new KubeEventRecorder(client, { component, log });
        recorders.set(component, r);
      }
      return r;
    },
    workDir: opts.workDir,
    nodeName: opts.nodeName,
    jobBackoffMs: opts.jobBackoffMs ?? 10_000,
  };
  const specs = [
    statefulSetController,
    volumeController,
    schedulerController,
    endpointsController,
    jobController,
    deploymentController,
    replicaSetController,
  ].map((c) => c(env));
  for (const spec of specs) manager.add(spec);
  const targets = specs.flatMap((s) => [s.for, ...(s.owns ?? []), ...(s.watches ?? []).map((w) => w.target)]);

  const halt = new AbortController();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    halt.abort();
    stopping ??= (async () => {
      await manager.stop();
      await Promise.all([...recorders.values()].map((r) => r.flush()));
      if (!opts.client) client.close();
    })();
    return stopping;
  };
  const onAbort = (): void =>
    void stop().catch((err: unknown) => log.error('stopping the workload controllers failed', { error: errorMessage(err) }));
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  const ready = (async () => {
    if (halt.signal.aborted) throw new Error('the workload controllers were stopped before they started');
    await manager.start();
    await Promise.all(targets.map((t) => manager.informerFor(t).waitForSync(halt.signal)));
  })();
  // Callers that stop without awaiting `ready` must not get an unhandled rejection.
  ready.catch(() => undefined);
  return { ready, stop };
}
