// The last check before a pod is labelled role=master (issue 21, "two masters impossible"): the
// pods that carry role=master as the API server has them right now, not as the pod cache had them
// when the pass decided. Every one of them but the pod being promoted loses the label first. Each
// patch carries the resourceVersion it was decided on, so a pod changed since is a conflict (the
// pass gathers again) rather than an overwrite.
import { HEALTHY, LABEL_HEALTHY, LABEL_ROLE, ROLE } from '../../api/constants.ts';
import type { LabelPatch } from './decide-labels.ts';

/** A pod as the API server listed it: its name, labels and resourceVersion. */
export interface LivePod {
  metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> };
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
