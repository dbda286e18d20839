// PodDisruptionBudget `<c>-mysql`. Unlike the anchor, it follows later changes of minAvailable.
import type { V1PodDisruptionBudget } from '@kubernetes/client-node';
import { controllerRef, names, selectorLabels, type ClusterRef } from '../../api/names.ts';

/** The effective minAvailable: the spec's, else "50%" for more than one replica, else none. */
export function effectiveMinAvailable(spec: { minAvailable?: number | string; replicas?: number }): number | string | undefined {
  if (spec.minAvailable !== undefined && spec.minAvailable !== '') return spec.minAvailable;
  return (spec.replicas ?? 1) > 1 ? '50%' : undefined;
}

export function renderPodDisruptionBudget(ref: ClusterRef, minAvailable: number | string): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: names.podDisruptionBudget(ref.name), namespace: ref.namespace, ownerReferences: [controllerRef(ref)] },
    spec: { minAvailable, selector: { matchLabels: selectorLabels(ref.name) } },
  };
}
