// Informer targets several controllers read. One object per target, so the manager gives them one
// informer and one cache.
import { namespaceSelectorLabels } from '../../api/names.ts';
import { KINDS } from './kinds.ts';

/**
 * The operator's MySQL pods, of every cluster in the watched namespaces: the node controller's
 * target, read by the orchestrator, backup, user and database controllers too.
 */
export const POD_TARGET = { ...KINDS.pod, labelSelector: namespaceSelectorLabels() };
