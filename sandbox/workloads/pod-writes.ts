// The pod writes the ReplicaSet and Job controllers share, with the Events both record.
import type { V1Pod } from '@kubernetes/client-node';
import type { EventRecorder } from '../../src/runtime/events.ts';
import type { KubeClient } from '../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../src/runtime/kube/types.ts';
import { POD } from './kinds.ts';

/** Creates `create` and deletes the pods named in `remove`, as the owner's controller. */
export async function writePods(
  client: KubeClient,
  events: EventRecorder,
  owner: KubeObject,
  create: V1Pod[],
  remove: string[],
): Promise<void> {
  for (const pod of create) {
    const made = await client.create(pod);
    events.normal(owner, 'SuccessfulCreate', `Created pod: ${made.metadata?.name}`);
  }
  const namespace = owner.metadata?.namespace ?? '';
  for (const name of remove) {
    if (await client.delete({ ...POD, namespace, name })) events.normal(owner, 'SuccessfulDelete', `Deleted pod: ${name}`);
  }
}
