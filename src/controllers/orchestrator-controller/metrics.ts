// The orchestrator controller's Prometheus metrics, on the manager's registry (docs/runtime.md).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface OrchestratorMetrics {
  /** Clusters by the status of their Ready condition (`True`, `False`, `Unknown`). */
  clustersByReady: Gauge<'ready'>;
  /** Recoveries of a master seen in Orchestrator's audit, by outcome (`successful`, `failed`). */
  failovers: Counter<'outcome'>;
  /** Seconds from a Post* failover hook call to the `role=master` label on the promoted pod. */
  hookToLabelsSeconds: Histogram;
  /** Calls to the failover hook endpoint, by process and result (hook-request.ts `HOOK_RESULT`). */
  hookCalls: Counter<'process' | 'result'>;
  /** 1 while the cluster's semi-sync master makes commits wait for an acknowledgement (docs/semi-sync.md). */
  semiSyncWaiting: Gauge<'namespace' | 'cluster'>;
  /** Sessions on the master waiting for an acknowledgement, as last read. */
  semiSyncWaitSessions: Gauge<'namespace' | 'cluster'>;
}

function once<M>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

export function orchestratorMetrics(registry: Registry): OrchestratorMetrics {
  const registers = [registry];
  return {
    clustersByReady: once(
      registry,
      'mysql_operator_clusters',
      () =>
        new Gauge({
          name: 'mysql_operator_clusters',
          help: 'MysqlClusters by the status of their Ready condition',
          labelNames: ['ready'],
          registers,
        }),
    ),
    failovers: once(
      registry,
      'mysql_operator_failovers_total',
      () =>
        new Counter({
          name: 'mysql_operator_failovers_total',
          help: "Master recoveries seen in Orchestrator's audit, by outcome",
          labelNames: ['outcome'],
          registers,
        }),
    ),
    hookToLabelsSeconds: once(
      registry,
      'mysql_operator_failover_hook_to_labels_seconds',
      () =>
        new Histogram({
          name: 'mysql_operator_failover_hook_to_labels_seconds',
          help: 'Seconds from a failover hook call to the master label on the promoted pod',
          buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers,
        }),
    ),
    semiSyncWaiting: once(
      registry,
      'mysql_operator_semisync_master_waiting',
      () =>
        new Gauge({
          name: 'mysql_operator_semisync_master_waiting',
          help: 'One while the semi-sync master of the cluster waits for replica acknowledgements',
          labelNames: ['namespace', 'cluster'],
          registers,
        }),
    ),
    semiSyncWaitSessions: once(
      registry,
      'mysql_operator_semisync_master_wait_sessions',
      () =>
        new Gauge({
          name: 'mysql_operator_semisync_master_wait_sessions',
          help: 'Sessions on the semi-sync master waiting for an acknowledgement',
          labelNames: ['namespace', 'cluster'],
          registers,
        }),
    ),
    hookCalls: once(
      registry,
      'mysql_operator_failover_hook_calls_total',
      () =>
        new Counter({
          name: 'mysql_operator_failover_hook_calls_total',
          help: 'Calls to the failover hook endpoint, by process and result',
          labelNames: ['process', 'result'],
          registers,
        }),
    ),
  };
}
