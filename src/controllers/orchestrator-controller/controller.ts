// The orchestrator controller as the operator lists it: its settings (options.ts), the API
// resources and verbs it uses, and its registration in the manager. Keyed by cluster; a change of
// one of its pods (labels, status) or of its operated Secret maps to the cluster, every cluster is
// looked at every --orchestrator-resync-period, and the failover hook enqueues one at once.
import { API_GROUP, LABEL_CLUSTER } from '../../api/constants.ts';
import { credentialsFrom, orchestratorClient, type OrchestratorClient } from '../../orchestrator/index.ts';
import { keyFromLabel, type ControllerDefinition, type ControllerSpec, type HttpRoute } from '../../runtime/controller.ts';
import { objectKey } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { operatedSecretCluster, type PassServersOptions, type ResolvePod } from '../../topology/index.ts';
import { POD_TARGET } from '../shared/targets.ts';
import { KINDS } from '../shared/kinds.ts';
import { failoverHookRoute, logFailoverHookState } from './hook.ts';
import { FailoverSignals } from './hook-signals.ts';
import { ORCHESTRATOR_SETTINGS, type OrchestratorControllerOptions } from './options.ts';
import { ControllerMemory } from './memory.ts';
import { reconcileOrchestrator } from './reconcile.ts';

/** What tests and the failover hook plug in; the operator's own wiring leaves the defaults. */
export interface OrchestratorWiring {
  /** Shared with the failover hook route; one per operator process. */
  signals?: FailoverSignals;
  /** HTTP routes served while the controller runs, given the controller's signals: the failover hook (hook.ts). */
  routes?: (signals: FailoverSignals) => HttpRoute[];
  /** Default: the typed client on `--orchestrator-uri`. */
  orchestrator?: OrchestratorClient;
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  servers?: PassServersOptions;
}

/**
 * Informers of clusters, pods and Secrets; the cluster's finalizer (a merge patch of the object,
 * also applyStatus's one-time hand-over of managedFields), its part of the status, and the pod
 * labels role and healthy. Events are the runtime's.
 */
export const ORCHESTRATOR_PERMISSIONS: readonly Permission[] = [
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  // delete: spec.rebuildErrantReplicas (decide-errant.ts), pods and their data claims.
  { group: '', resources: ['pods'], verbs: ['list', 'watch', 'patch', 'delete'] },
  { group: '', resources: ['persistentvolumeclaims'], verbs: ['delete'] },
  { group: '', resources: ['secrets'], verbs: ['list', 'watch'] },
];

export function orchestratorController(opts: OrchestratorControllerOptions, wiring: OrchestratorWiring = {}): ControllerSpec {
  const signals = wiring.signals ?? new FailoverSignals();
  const deps = {
    opts,
    signals,
    memory: new ControllerMemory(),
    // Short timeouts: a pass reads five routes and must not outlive its deadline on a hung Orchestrator.
    orchestrator:
      wiring.orchestrator ??
      orchestratorClient({
        baseUrl: opts.orchestratorUri,
        timeoutMs: 5_000,
        readRetries: 1,
        credentials: credentialsFrom(opts.orchestratorCredentialsDir),
      }),
    resolve: wiring.resolve,
    servers: wiring.servers,
  };
  return {
    name: 'orchestrator',
    for: KINDS.cluster,
    watches: [
      { target: POD_TARGET, map: keyFromLabel(LABEL_CLUSTER) },
      {
        target: KINDS.secret,
        map: (secret) => {
          const cluster = operatedSecretCluster(secret.metadata?.name ?? '');
          return cluster === null ? [] : [objectKey({ namespace: secret.metadata?.namespace, name: cluster })];
        },
      },
    ],
    resyncPeriodMs: opts.resyncPeriodMs,
    reconcileTimeoutMs: 30_000,
    // A failed pass is decided again soon: the view it acted on is seconds old at most.
    backoff: { baseMs: 500, maxMs: opts.resyncPeriodMs },
    routes: wiring.routes?.(signals) ?? [],
    reconcile: (req, ctx) => reconcileOrchestrator(req, ctx, deps),
  };
}

export const orchestratorControllerDefinition: ControllerDefinition<OrchestratorControllerOptions> = {
  name: 'orchestrator',
  settings: ORCHESTRATOR_SETTINGS,
  permissions: ORCHESTRATOR_PERMISSIONS,
  build: (opts) => ({
    ...orchestratorController(opts, { routes: (signals) => [failoverHookRoute({ options: opts, signals })] }),
    start: (ctx) => logFailoverHookState(ctx.log, opts),
  }),
};
