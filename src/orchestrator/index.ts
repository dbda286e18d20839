export {
  orchestratorClient,
  type CallOptions,
  type OrchestratorClient,
  type OrchestratorClientOptions,
  type OrchestratorCredentials,
} from './client.ts';
export { credentialsFrom, readCredentialsDir, CREDENTIALS_FILES, CredentialsError } from './credentials.ts';
export { OrchestratorError, isOrchestratorError, type OrchestratorErrorKind } from './errors.ts';
export {
  DOWNTIME_LOST_IN_RECOVERY,
  type AnalysisEntry,
  type ClusterInfo,
  type Instance,
  type InstanceKey,
  type Recovery,
} from './responses.ts';
