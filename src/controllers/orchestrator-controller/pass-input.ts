// What one pass of the orchestrator controller works with: the request, the caches, the connections
// to the cluster's servers, and what lives longer than a pass (PassDeps).
import type { MysqlCluster } from '../../api/index.ts';
import type { OrchestratorClient } from '../../orchestrator/index.ts';
import type { ControllerContext, Request } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { PassServers, PassServersOptions, PodObject, ResolvePod } from '../../topology/index.ts';
import type { FailoverSignals } from './hook-signals.ts';
import type { ControllerMemory } from './memory.ts';
import type { OrchestratorMetrics } from './metrics.ts';
import type { OrchestratorControllerOptions } from './options.ts';
import type { StepClock } from './step-clock.ts';

export type Cluster = MysqlCluster & KubeObject;

/** Connections to the cluster's servers as the operator user, or why there are none. */
export type Servers = PassServers | { message: string };

/** What a pass needs besides its options: the Orchestrator client, the shared signals, the memory. */
export interface PassDeps {
  opts: OrchestratorControllerOptions;
  orchestrator: OrchestratorClient;
  signals: FailoverSignals;
  memory: ControllerMemory;
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  servers?: PassServersOptions;
}

export interface PassInput {
  req: Request;
  ctx: ControllerContext;
  cluster: Cluster;
  caches: { clusters: Informer<Cluster>; pods: Informer<PodObject> };
  /** One set of connections for the pass: the fast path's and the gather's reads share them. */
  servers: Servers;
  deps: PassDeps;
  metrics: OrchestratorMetrics;
  steps: StepClock;
}
