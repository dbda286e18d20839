// The runtime's public surface: what controllers and the operator entry import.
export type {
  ControllerContext,
  ControllerDefinition,
  ControllerSpec,
  HttpAnswer,
  HttpRequest,
  HttpRoute,
  ReconcileResult,
  Request,
  SecondaryWatch,
  WatchTarget,
} from './controller.ts';
export { keyFromLabel, ownerKeys } from './controller.ts';
export { ConfigError, loadConfig, type Config, type OperatorConfig } from './config.ts';
export { KubeEventRecorder, type EventRecorder, type EventType } from './events.ts';
export { Informer, type InformerHandlers } from './informer.ts';
export { KubeClient, type PatchType } from './kube/client.ts';
export { applyStatus, type StatusOwner } from './kube/apply-status.ts';
export {
  AlreadyExistsError,
  ConflictError,
  GoneError,
  InvalidError,
  KubeApiError,
  NotFoundError,
  isAlreadyExists,
  isConflict,
  isNotFound,
} from './kube/errors.ts';
export {
  objectKey,
  parseKey,
  type KindRef,
  type KubeList,
  type KubeObject,
  type ObjectMeta,
  type ObjectRef,
  type OwnerReference,
} from './kube/types.ts';
export { createLogger, errorMessage, redact, redactString, type Logger } from './logger.ts';
export { Manager } from './manager.ts';
export { isCachedCopy, LAST_APPLIED_ANNOTATION, type Projection } from './projection.ts';
