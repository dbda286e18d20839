// A tiny kubelet for the workload controllers' tests (the sandbox's real one runs processes): it
// plays the pods bound to its node as the test says (Running and Ready, Running not Ready,
// Succeeded, Failed), gives each an IP, finishes graceful deletions at once, and keeps, in watch
// order, what happened to pods: `added:<pod>`, `ready:<pod>`, `deleted:<pod>`, so a test can
// assert the order the controllers acted in.
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { Informer } from '../../../src/runtime/informer.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { isNotFound } from '../../../src/runtime/kube/errors.ts';

/** `none`: the kubelet leaves the pod as the controllers made it. */
export type PodOutcome = 'ready' | 'running' | 'succeed' | 'fail' | 'none';

export interface FakeKubelet {
  /** `added:<pod>`, `ready:<pod>` (turned Ready), `deleted:<pod>`, in the order the watch saw them. */
  readonly history: string[];
  client: KubeClient;
  /** Plays the pod again with the outcome the test's function now gives (after changing its mind). */
  replay(name: string): Promise<void>;
  stop(): Promise<void>;
}

const POD = { apiVersion: 'v1', kind: 'Pod' };

function ready(p: V1Pod): boolean {
  return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export async function startFakeKubelet(
  kubeConfig: KubeConfig,
  opts: { namespace: string; nodeName: string; outcome?: (pod: V1Pod) => PodOutcome },
): Promise<FakeKubelet> {
  const client = new KubeClient(kubeConfig);
  const informer = new Informer<V1Pod>({ client, target: { ...POD, namespace: opts.namespace } });
  const history: string[] = [];
  let ip = 10;
  const ips = new Map<string, string>();
  const outcome = opts.outcome ?? (() => 'ready' as const);

  const play = async (pod: V1Pod): Promise<void> => {
    const ref = { ...POD, namespace: opts.namespace, name: pod.metadata!.name! };
    if (pod.spec?.nodeName !== opts.nodeName) return;
    try {
      if (pod.metadata?.deletionTimestamp) {
        await client.request('DELETE', await client.pathFor(ref), {
          body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } },
        });
        return;
      }
      const want = outcome(pod);
      if (want === 'none') return;
      const phase = want === 'succeed' ? 'Succeeded' : want === 'fail' ? 'Failed' : 'Running';
      const isReady = want === 'ready';
      if (pod.status?.phase === phase && ready(pod) === isReady) return;
      const uid = pod.metadata!.uid!;
      if (!ips.has(uid)) ips.set(uid, `10.244.0.${ip++}`);
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const cond = (type: string, ok: boolean) => ({ type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: now });
      await client.patchStatus(ref, {
        metadata: { uid },
        status: {
          phase,
          podIP: ips.get(uid),
          podIPs: [{ ip: ips.get(uid) }],
          hostIP: '10.244.0.1',
          startTime: pod.status?.startTime ?? now,
          conditions: [cond('Initialized', true), cond('Ready', isReady), cond('ContainersReady', isReady), cond('PodScheduled', true)],
        },
      });
    } catch (err) {
      if (!isNotFound(err) && !String(err).includes('Conflict') && !String(err).includes('Precondition')) throw err;
    }
  };
  const run = (pod: V1Pod): void => void play(pod).catch((err: unknown) => history.push(`error:${String(err)}`));
  informer.addHandlers({
    onAdd: (p) => {
      history.push(`added:${p.metadata!.name}`);
      run(p);
    },
    onUpdate: (o, n) => {
      if (!ready(o) && ready(n)) history.push(`ready:${n.metadata!.name}`);
      run(n);
    },
    onDelete: (p) => history.push(`deleted:${p.metadata!.name}`),
  });
  informer.start();
  await informer.waitForSync();
  return {
    history,
    client,
    replay: async (name) => {
      const p = informer.get(opts.namespace, name);
      if (p) await play(p);
    },
    stop: async () => {
      await informer.stop();
      client.close();
    },
  };
}
