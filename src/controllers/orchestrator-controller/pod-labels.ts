// The writes of the pod labels `role` and `healthy`: one merge patch per pod, in the rounds
// decide-labels.ts orders, each guarded by the version the pass decided on.
import { LABEL_CLUSTER, LABEL_ROLE, ROLE } from '../../api/constants.ts';
import type { KubeClient } from '../../runtime/kube/client.ts';
import { isConflict } from '../../runtime/kube/errors.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { PodObject } from '../../topology/index.ts';
import { labelRounds, type LabelPatch } from './decide-labels.ts';
import { demotionsBeforePromotion, labelPatchBody, stillAsDecided, type LivePod } from './decide-promotion.ts';

export async function patchPodLabels(
  ctx: { client: Pick<KubeClient, 'patch'> },
  namespace: string,
  patch: LabelPatch,
): Promise<KubeObject> {
  return ctx.client.patch({ apiVersion: 'v1', kind: 'Pod', namespace, name: patch.pod }, labelPatchBody(patch), { type: 'merge' });
}

/**
 * The label patches in their rounds (decide-labels.ts), each guarded by the resourceVersion of the
 * pod as the pass decided on it (`decidedOn`): a pod changed since is a 409 Conflict, which ends the
 * pass, and the next one gathers again (reconcileOrchestrator). Before the promotion, the pods the
 * API server lists with role=master right now (not the cache, which may lag) lose the label, each
 * guarded by the version the list returned. Returns the pods demoted that way. A 409 on a pod
 * that still shows what the decision read of it (`stillAsDecided`: only its status moved) is
 * retried once on the version the API server has now.
 */
export async function applyLabelRounds(
  client: Pick<KubeClient, 'list' | 'get'>,
  namespace: string,
  cluster: string,
  patches: readonly LabelPatch[],
  decidedOn: readonly PodObject[],
  patch: (p: LabelPatch) => Promise<void>,
): Promise<string[]> {
  const version = (pod: string): string | undefined => decidedOn.find((o) => o.metadata?.name === pod)?.metadata?.resourceVersion;
  const guarded = patches.map((p) => ({ ...p, ...(version(p.pod) ? { resourceVersion: version(p.pod) } : {}) }));
  const demoted: string[] = [];
  const seen = [...decidedOn];
  const attempt = (p: LabelPatch) => patchOrRetry(client, namespace, p, seen, patch);
  for (const round of labelRounds(guarded)) {
    const promotion = round.find((p) => p.labels[LABEL_ROLE] === ROLE.master);
    if (promotion !== undefined) {
      const live = await client.list<PodObject>(POD_KIND, {
        namespace,
        labelSelector: { [LABEL_CLUSTER]: cluster, [LABEL_ROLE]: ROLE.master },
      });
      seen.unshift(...live.items);
      const more = demotionsBeforePromotion(promotion.pod, live.items);
      await Promise.all(more.map(attempt));
      demoted.push(...more.map((p) => p.pod));
    }
    await Promise.all(round.map(attempt));
  }
  return demoted;
}

/** One guarded label patch; on a 409, once more on the live version if the pod still shows what was decided on. */
async function patchOrRetry(
  client: Pick<KubeClient, 'get'>,
  namespace: string,
  p: LabelPatch,
  decidedOn: readonly LivePod[],
  patch: (p: LabelPatch) => Promise<void>,
): Promise<void> {
  try {
    await patch(p);
  } catch (e) {
    const decided = decidedOn.find((o) => o.metadata?.name === p.pod && o.metadata?.resourceVersion === p.resourceVersion);
    if (!isConflict(e) || decided === undefined) throw e;
    const live = await client.get<PodObject>({ ...POD_KIND, namespace, name: p.pod });
    if (!stillAsDecided(decided, live) || live.metadata?.resourceVersion === undefined) throw e;
    await patch({ ...p, resourceVersion: live.metadata.resourceVersion });
  }
}

const POD_KIND = { apiVersion: 'v1', kind: 'Pod' } as const;
