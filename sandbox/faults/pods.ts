// Faults of the sandbox's pods by name (docs/sandbox-faults.md): the link faults of LinkFaults on
// a pod's network namespace, and the loss of a whole pod, as when its node dies.
import type { V1Pod } from '@kubernetes/client-node';
import { NotFoundError } from '../../src/runtime/kube/errors.ts';
import type { KubeClient } from '../../src/runtime/kube/client.ts';
import { netnsName, type SlotPlan } from '../network/addresses.ts';
import { killNetnsProcesses, LinkFaults, type Fault } from './index.ts';

export type { Fault, FaultKind } from './index.ts';

export interface SandboxFaults {
  /**
   * Every packet into and out of the pod waits `ms` (a round trip through its link grows by 2 × ms).
   * `podsOnly`: only packets to and from other pods; the host's (Service proxy, API server,
   * kubelet probes) pass undelayed.
   */
  delay(namespace: string, pod: string, ms: number, opts?: { podsOnly?: boolean }): Promise<Fault>;
  /** Each packet into or out of the pod dropped with probability percent/100. */
  loss(namespace: string, pod: string, percent: number): Promise<Fault>;
  /** The pod cut from every other pod, the Service proxy, the API server and the kubelet's network probes. */
  partition(namespace: string, pod: string): Promise<Fault>;
  /**
   * The pod lost at once, as when its node dies: its link cut (partition), every process in its
   * network namespace SIGKILLed (no preStop, no SIGTERM), then the pod object deleted with grace period 0, as a
   * person or the node lifecycle force-deletes a pod of a dead node, so its StatefulSet makes it
   * again (same name, same claim: the node's disk survived). Its undo does nothing: the
   * StatefulSet is what brings the pod back. Returns when the pod object is gone.
   */
  losePod(namespace: string, pod: string): Promise<Fault>;
  /** The faults still in place. */
  active(): Fault[];
  /** Undoes every fault still in place (the sandbox's stop() calls it first). */
  clear(): Promise<void>;
}

type Obj<T> = T & { metadata: object };

export function sandboxFaults(client: KubeClient, plan: SlotPlan): SandboxFaults {
  const links = new LinkFaults();
  const podUid = async (namespace: string, name: string): Promise<string> => {
    const pod = await client.get<Obj<V1Pod>>({ apiVersion: 'v1', kind: 'Pod', namespace, name });
    const uid = pod.metadata?.uid;
    if (!uid || !pod.status?.podIP)
      throw new Error(`pod ${namespace}/${name} has no network yet (phase ${pod.status?.phase ?? 'unknown'})`);
    return uid;
  };
  const netns = async (namespace: string, name: string): Promise<string> => netnsName(plan, await podUid(namespace, name));
  return {
    delay: async (ns, pod, ms, opts) =>
      links.delay(await netns(ns, pod), ms, opts?.podsOnly ? { podCIDR: plan.podCIDR, gateway: plan.gateway } : undefined),
    loss: async (ns, pod, percent) => links.loss(await netns(ns, pod), percent),
    partition: async (ns, pod) => links.partition(await netns(ns, pod)),
    async losePod(namespace, name) {
      const uid = await podUid(namespace, name);
      const space = netnsName(plan, uid);
      // The node's network dies with it: cut first, so the kernel's sockets of the killed processes
      // (which outlive them here, the namespace living on until the kubelet detaches it) send
      // nothing more: no retransmission of what a delay held, no FIN. Gone with the namespace.
      await links.partition(space);
      await killNetnsProcesses(space);
      await client
        .request('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, {
          body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid } },
        })
        .catch((e: unknown) => {
          if (!(e instanceof NotFoundError)) throw e;
        });
      // A container the kubelet restarted in place between the kill and the deletion.
      await killNetnsProcesses(space);
      return {
        kind: 'pod-loss',
        target: `${namespace}/${name}`,
        describe: `pod ${namespace}/${name} (uid ${uid}) lost: processes killed, object force-deleted`,
        undo: async () => undefined,
      };
    },
    active: () => links.active(),
    clear: () => links.clear(),
  };
}
