// The scheduler of a one-node cluster: a pending pod for the default scheduler, with no node yet,
// is bound to the sandbox's node through `pods/binding` (which also sets PodScheduled), once every
// claim it mounts is Bound, as the VolumeBinding plugin requires. A pod that waits says why with
// PodScheduled=False (reason Unschedulable) and a FailedScheduling Event, as kube-scheduler does.
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { kubeTime } from '../../src/runtime/kube/time.ts';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { ConflictError } from '../../src/runtime/kube/errors.ts';
import { objectKey } from '../../src/runtime/kube/types.ts';
import type { WorkloadEnv } from './env.ts';
import { COMPONENT, DEFAULT_SCHEDULER, POD, PVC } from './kinds.ts';
import { claimsOf, isTerminating } from './pods.ts';

/** Why the pod cannot be bound yet, in kube-scheduler's words; undefined: bind it. */
export function unschedulableReason(pod: V1Pod, claims: ReadonlyMap<string, V1PersistentVolumeClaim>): string | undefined {
  const names = claimsOf(pod);
  const missing = names.find((n) => !claims.has(n));
  if (missing) return `0/1 nodes are available: persistentvolumeclaim "${missing}" not found.`;
  if (names.some((n) => claims.get(n)?.metadata?.deletionTimestamp))
    return '0/1 nodes are available: persistentvolumeclaim is being deleted.';
  if (names.some((n) => claims.get(n)?.status?.phase !== 'Bound'))
    return '0/1 nodes are available: 1 pod has unbound immediate PersistentVolumeClaims.';
  return undefined;
}

export function schedulerController(env: WorkloadEnv): ControllerSpec {
  const events = env.events(COMPONENT.scheduler);
  return {
    name: 'scheduler',
    for: POD,
    watches: [
      {
        // A claim becoming Bound releases the pods waiting for it.
        target: PVC,
        map: (c) =>
          env
            .cache<V1Pod>(POD)
            .list({ namespace: c.metadata?.namespace })
            .filter((p) => !p.spec?.nodeName && claimsOf(p).includes(c.metadata?.name ?? ''))
            .map((p) => objectKey(p)),
      },
    ],
    async reconcile(req, ctx) {
      const pod = (await ctx.informer<V1Pod>(POD)).get(req.namespace, req.name);
      if (!pod || pod.spec?.nodeName || isTerminating(pod)) return;
      if ((pod.spec?.schedulerName ?? DEFAULT_SCHEDULER) !== DEFAULT_SCHEDULER) return;
      const claims = new Map(
        (await ctx.informer<V1PersistentVolumeClaim>(PVC)).list({ namespace: req.namespace }).map((c) => [c.metadata!.name!, c]),
      );
      const why = unschedulableReason(pod, claims);
      const ref = { ...POD, namespace: req.namespace, name: req.name };
      if (why) {
        const cond = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
        if (cond?.status !== 'False' || cond.message !== why) {
          events.warning(pod, 'FailedScheduling', why);
          await ctx.client.patchStatus(
            ref,
            {
              status: {
                conditions: [
                  {
                    type: 'PodScheduled',
                    status: 'False',
                    reason: 'Unschedulable',
                    message: why,
                    lastTransitionTime: kubeTime(new Date()),
                  },
                ],
              },
            },
            'strategic',
          );
        }
        return;
      }
      try {
        await ctx.client.request('POST', `${await ctx.client.pathFor(ref)}/binding`, {
          body: {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name: req.name, namespace: req.namespace },
            target: { apiVersion: 'v1', kind: 'Node', name: env.nodeName },
          },
        });
      } catch (err) {
        if (err instanceof ConflictError) return; // bound meanwhile
        throw err;
      }
      events.normal(pod, 'Scheduled', `Successfully assigned ${req.namespace}/${req.name} to ${env.nodeName}`);
    },
  };
}
