// The StatefulSet controller: gathers a set's pods, claims and revisions from the caches, lets
// decideStatefulSet choose, then writes in its order. Pods named like the set's that no controller
// owns and its selector matches are adopted first, as the real controller's ClaimPods does.
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { isAlreadyExists, isNotFound } from '../../src/runtime/kube/errors.ts';
import type { KubeClient } from '../../src/runtime/kube/client.ts';
import { objectKey } from '../../src/runtime/kube/types.ts';
import { decideStatefulSet, ordinalOf, statusChanged, type StatefulSetAction } from './decide-statefulset.ts';
import type { WorkloadEnv } from './env.ts';
import { COMPONENT, CONTROLLER_REVISION, POD, PVC, STATEFUL_SET } from './kinds.ts';
import { controllerRef, isControlledBy, isTerminating, matchesSelector } from './pods.ts';

export function statefulSetController(env: WorkloadEnv): ControllerSpec {
  const events = env.events(COMPONENT.statefulSet);
  const sets = (): ReturnType<typeof env.cache<V1StatefulSet>> => env.cache<V1StatefulSet>(STATEFUL_SET);
  return {
    name: 'statefulset',
    for: STATEFUL_SET,
    owns: [POD, CONTROLLER_REVISION],
    watches: [
      // A claim that finished deleting unblocks the pod that waits for it.
      {
        target: PVC,
        map: (c) =>
          sets()
            .list({ namespace: c.metadata?.namespace })
            .filter((s) =>
              (s.spec?.volumeClaimTemplates ?? []).some(
                (t) => ordinalOf(`${t.metadata?.name}-${s.metadata?.name}`, c.metadata?.name ?? '') >= 0,
              ),
            )
            .map((s) => objectKey(s)),
      },
      // Orphans the selector matches may be adopted.
      {
        target: POD,
        map: (p) =>
          p.metadata?.ownerReferences?.some((r) => r.controller)
            ? []
            : sets()
                .list({ namespace: p.metadata?.namespace })
                .filter((s) => matchesSelector(s.spec?.selector, p.metadata?.labels))
                .map((s) => objectKey(s)),
      },
    ],
    async reconcile(req, ctx) {
      const sts = (await ctx.informer<V1StatefulSet>(STATEFUL_SET)).get(req.namespace, req.name);
      if (!sts) return;
      const inNamespace = { namespace: req.namespace };
      const allPods = (await ctx.informer<V1Pod>(POD)).list(inNamespace);
      const orphans = allPods.filter(
        (p) =>
          !p.metadata?.ownerReferences?.some((r) => r.controller) &&
          !isTerminating(p) &&
          matchesSelector(sts.spec?.selector, p.metadata?.labels) &&
          ordinalOf(req.name, p.metadata?.name ?? '') >= 0,
      );
      if (orphans.length > 0 && !sts.metadata?.deletionTimestamp) {
        for (const p of orphans) await adopt(ctx.client, sts, p);
        return; // the adopted pods' events bring the next pass
      }
      const claims = new Map((await ctx.informer<V1PersistentVolumeClaim>(PVC)).list(inNamespace).map((c) => [c.metadata!.name!, c]));
      const revisions = (await ctx.informer<V1ControllerRevision>(CONTROLLER_REVISION))
        .list(inNamespace)
        .filter((r) => isControlledBy(r, sts));
      const plan = decideStatefulSet({ sts, pods: allPods.filter((p) => isControlledBy(p, sts)), claims, revisions, now: Date.now() });

      if (plan.revision && 'create' in plan.revision) {
        try {
          await ctx.client.create(plan.revision.create);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err; // made by the pass before, not yet in the cache
        }
      } else if (plan.revision) {
        await ctx.client.patch(
          { ...CONTROLLER_REVISION, namespace: req.namespace, name: plan.revision.renumber },
          { revision: plan.revision.revision },
        );
      }
      const where = `StatefulSet ${req.name}`;
      for (const a of plan.actions) await act(ctx.client, a, req.namespace, where, sts, events);
      for (const name of plan.prune) await ctx.client.delete({ ...CONTROLLER_REVISION, namespace: req.namespace, name });
      if (statusChanged(sts, plan.status)) await ctx.client.updateStatus({ ...sts, status: plan.status });
      if (plan.waiting) ctx.log.debug('waiting', { object: req.key, why: plan.waiting });
      // minReadySeconds passes without an event.
      if (plan.waiting && (sts.spec?.minReadySeconds ?? 0) > 0) return { requeueAfterMs: 1000 };
      return undefined;
    },
  };
}

async function adopt(client: KubeClient, sts: V1StatefulSet, pod: V1Pod): Promise<void> {
  await client.patch(
    { ...POD, namespace: pod.metadata!.namespace!, name: pod.metadata!.name! },
    { metadata: { uid: pod.metadata!.uid, ownerReferences: [...(pod.metadata?.ownerReferences ?? []), controllerRef(sts)] } },
  );
}

async function act(
  client: KubeClient,
  a: StatefulSetAction,
  namespace: string,
  where: string,
  sts: V1StatefulSet,
  events: ReturnType<WorkloadEnv['events']>,
): Promise<void> {
  switch (a.type) {
    case 'createClaim':
      try {
        await client.create(a.claim);
        events.normal(sts, 'SuccessfulCreate', `create Claim ${a.claim.metadata!.name} Pod ${a.pod} in ${where} success`);
      } catch (err) {
        if (isAlreadyExists(err)) return;
        events.warning(
          sts,
          'FailedCreate',
          `create Claim ${a.claim.metadata!.name} for Pod ${a.pod} in ${where} failed error: ${String(err)}`,
        );
        throw err;
      }
      return;
    case 'createPod':
      try {
        await client.create(a.pod);
        events.normal(sts, 'SuccessfulCreate', `create Pod ${a.pod.metadata!.name} in ${where} successful`);
      } catch (err) {
        if (isAlreadyExists(err)) return;
        events.warning(sts, 'FailedCreate', `create Pod ${a.pod.metadata!.name} in ${where} failed error: ${String(err)}`);
        throw err;
      }
      return;
    case 'deletePod':
      if (a.why === 'failed')
        events.warning(sts, 'RecreatingFailedPod', `StatefulSet ${namespace}/${sts.metadata!.name} is recreating failed Pod ${a.name}`);
      try {
        await client.delete({ ...POD, namespace, name: a.name });
        events.normal(sts, 'SuccessfulDelete', `delete Pod ${a.name} in ${where} successful`);
      } catch (err) {
        if (isNotFound(err)) return;
        events.warning(sts, 'FailedDelete', `delete Pod ${a.name} in ${where} failed error: ${String(err)}`);
        throw err;
      }
      return;
    case 'labelPod':
      await client.patch({ ...POD, namespace, name: a.name }, { metadata: { labels: a.labels } });
      return;
  }
}
