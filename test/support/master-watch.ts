// A watch over a cluster's pods that records every moment two of them carry role=master (the
// invariant of docs/architecture.md §3), shared by the orchestrator controller's component test and the
// end-to-end failover scenarios.
import { LABEL_CLUSTER, LABEL_ROLE, ROLE } from '../../src/api/constants.ts';
import type { KubeClient } from '../../src/runtime/kube/client.ts';
import type { PodObject } from '../../src/topology/index.ts';

export interface MasterWatch {
  /** Each pod version at which more than one pod carried role=master, and a watch that failed. */
  violations: string[];
  events: number;
  /** The pods carrying role=master as the watch began, then at each change (joined by commas, '' for none). */
  masterChanges: string[];
  /** When each of masterChanges was seen (ms since the epoch). */
  changedAt: number[];
  /** Each pod whose deletion began, in order, with the role it carried then. */
  deletions: { pod: string; role: string | undefined; at: number }[];
}

/**
 * Watches the cluster's pods from now on until the test ends. A watch that fails is recorded as
 * a violation: the test would otherwise not know what it missed.
 */
export async function watchMasters(
  client: KubeClient,
  namespace: string,
  cluster: string,
  t: { after(fn: () => void): void },
): Promise<MasterWatch> {
  const state: MasterWatch = { violations: [], events: 0, masterChanges: [], changedAt: [], deletions: [] };
  const ref = { apiVersion: 'v1', kind: 'Pod' };
  const selector = { [LABEL_CLUSTER]: cluster };
  const labels = new Map<string, string | undefined>();
  const deleting = new Set<string>();
  const first = await client.list<PodObject>(ref, { namespace, labelSelector: selector });
  for (const p of first.items) labels.set(p.metadata?.name ?? '', p.metadata?.labels?.[LABEL_ROLE]);
  let rv = first.metadata?.resourceVersion;
  const stop = new AbortController();
  t.after(() => stop.abort());
  const check = (): void => {
    const on = [...labels]
      .filter(([, role]) => role === ROLE.master)
      .map(([name]) => name)
      .sort();
    if (on.length > 1) state.violations.push(`rv ${rv}: ${on.join(', ')}`);
    if (state.masterChanges.at(-1) !== on.join()) {
      state.masterChanges.push(on.join());
      state.changedAt.push(Date.now());
    }
  };
  check();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  void (async () => {
    // A watch the server ends (its timeout) is resumed from the last version seen.
    while (!stop.signal.aborted) {
      try {
        await client.watch<PodObject>(
          ref,
          { namespace, resourceVersion: rv, labelSelector: selector, signal: stop.signal, onOpen: opened },
          (ev) => {
            if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return;
            const name = ev.object.metadata?.name ?? '';
            rv = ev.object.metadata?.resourceVersion ?? rv;
            const uid = ev.object.metadata?.uid ?? '';
            if ((ev.type === 'DELETED' || ev.object.metadata?.deletionTimestamp) && !deleting.has(uid)) {
              deleting.add(uid);
              state.deletions.push({ pod: name, role: ev.object.metadata?.labels?.[LABEL_ROLE], at: Date.now() });
            }
            if (ev.type === 'DELETED') labels.delete(name);
            else labels.set(name, ev.object.metadata?.labels?.[LABEL_ROLE]);
            state.events++;
            check();
          },
        );
      } catch (e) {
        if (!stop.signal.aborted) state.violations.push(`the watch failed: ${(e as Error).message}`);
        opened();
        return;
      }
    }
  })();
  await open;
  return state;
}
