// Small builders for the workload controllers' decisions.
import type { V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { decideStatefulSet, statefulSetPod, type StatefulSetState } from '../../../sandbox/workloads/decide-statefulset.ts';

export function statefulSet(spec: Partial<NonNullable<V1StatefulSet['spec']>> = {}): V1StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'sts-uid', generation: 1 },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } },
      volumeClaimTemplates: [
        { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      ],
      ...spec,
    },
  };
}

export type PodShape = 'ready' | 'pending' | 'failed' | 'terminating';

/** The set's pod of `ordinal` at `revision`, in the given state. */
export function stsPod(sts: V1StatefulSet, ordinal: number, revision: string, shape: PodShape = 'ready'): V1Pod {
  const pod = statefulSetPod(sts, sts.spec!.template, revision, ordinal);
  pod.metadata!.uid = `pod-${ordinal}`;
  if (shape === 'terminating') pod.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z' as unknown as Date;
  const ready = shape === 'ready' || shape === 'terminating';
  pod.status = {
    phase: shape === 'failed' ? 'Failed' : shape === 'pending' ? 'Pending' : 'Running',
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
  };
  return pod;
}

export function claim(name: string, deleting = false): V1PersistentVolumeClaim {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' as unknown as Date } : {}),
    },
  };
}

export function claimsFor(sts: V1StatefulSet, ordinals: number[]): Map<string, V1PersistentVolumeClaim> {
  return new Map(ordinals.map((i) => [`data-${sts.metadata!.name}-${i}`, claim(`data-${sts.metadata!.name}-${i}`)]));
}

/** The update revision's name the decision gives this set (and the revision object to feed back). */
export function revisionNameOf(sts: V1StatefulSet): { name: string; state: Pick<StatefulSetState, 'revisions'> } {
  const plan = decideStatefulSet({ sts, pods: [], claims: new Map(), revisions: [], now: 0 });
  const rev = plan.revision && 'create' in plan.revision ? plan.revision.create : undefined;
  if (!rev) throw new Error('no revision');
  return { name: rev.metadata!.name!, state: { revisions: [rev] } };
}
