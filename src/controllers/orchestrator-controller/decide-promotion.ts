// The last check before a pod is labelled role=master (issue 21, "two masters impossible"): the
// pods that carry role=master as the API server has them right now, not as the pod cache had them
// when the pass decided. Every one of them but the pod being promoted loses the label first. Each
// patch carries the resourceVersion it was decided on, so a pod changed since is a conflict (the
// pass gathers again) rather than an overwrite.
import { HEALTHY, LABEL_HEALTHY, LABEL_ROLE, ROLE } from '../../api/constants.ts';
import type { LabelPatch } from './decide-labels.ts';

/** A pod as the API server listed it: its name, labels and resourceVersion. */
export interface LivePod {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; deletionTimestamp?: string };
}

/**
 * Whether a pod that changed since a label decision (its patch got 409) still shows what the
 * decision read of it: the same pod (uid), the same `role` and `healthy` labels, not deleting since.
 * The kubelet rewrites a pod's status whenever a probe or a container changes, which is exactly
 * when a failover labels it; such a change must not cost the promotion a whole pass (seen with
 * Orchestrator 3.2.6: a 409 on the successor put the label 2 s after the PostMasterFailover hook).
 * A change of those labels or a deletion is a real conflict.
 */
export function stillAsDecided(decided: LivePod, live: LivePod): boolean {
  const a = decided.metadata;
  const b = live.metadata;
  if (a === undefined || b === undefined || a.uid !== b.uid) return false;
  if ((a.deletionTimestamp === undefined) !== (b.deletionTimestamp === undefined)) return false;
  return [LABEL_ROLE, LABEL_HEALTHY].every((k) => a.labels?.[k] === b.labels?.[k]);
}

/**
 * The demotions that must land before `promoted` gets role=master: every other pod the API server
 * lists with role=master, each guarded by the resourceVersion the list returned.
 */
export function demotionsBeforePromotion(promoted: string, live: readonly LivePod[]): LabelPatch[] {
  return live
    .filter((p) => p.metadata?.labels?.[LABEL_ROLE] === ROLE.master && p.metadata.name !== undefined && p.metadata.name !== promoted)
    .map((p) => ({
      pod: p.metadata!.name!,
      labels: { [LABEL_ROLE]: ROLE.replica, [LABEL_HEALTHY]: HEALTHY.no },
      ...(p.metadata?.resourceVersion ? { resourceVersion: p.metadata.resourceVersion } : {}),
    }));
}

/** The body of a label patch: the labels, and the resourceVersion as a precondition when known. */
export function labelPatchBody(patch: LabelPatch): { metadata: { labels: LabelPatch['labels']; resourceVersion?: string } } {
  return { metadata: { labels: patch.labels, ...(patch.resourceVersion ? { resourceVersion: patch.resourceVersion } : {}) } };
}
