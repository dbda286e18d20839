// Condition timestamps, shared by the cluster and node controllers: Kubernetes times have whole
// seconds, and lastTransitionTime moves only when the condition's status does.
import { kubeTime } from '../../runtime/kube/time.ts';

export { kubeTime };

/** The lastTransitionTime of a condition about to get `status`, given the one it replaces. */
export function transitionTime(old: { status?: string; lastTransitionTime?: string } | undefined, status: string, now: Date): string {
  return old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : kubeTime(now);
}
