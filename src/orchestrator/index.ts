export { orchestratorClient, type CallOptions, type OrchestratorClient, type OrchestratorClientOptions } from './client.ts';
export { OrchestratorError, isOrchestratorError, type OrchestratorErrorKind } from './errors.ts';
export type { AnalysisEntry, ClusterInfo, Instance, InstanceKey, Recovery } from './responses.ts';
