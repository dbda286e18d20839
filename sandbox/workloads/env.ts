// What every workload controller is built with: the manager's shared caches (for the mapping
// functions of `watches`, which run outside a reconcile), an Event recorder per component, and
// the sandbox's facts.
import type { EventRecorder } from '../../src/runtime/events.ts';
import type { Informer } from '../../src/runtime/informer.ts';
import type { KindRef, KubeObject } from '../../src/runtime/kube/types.ts';

export interface WorkloadEnv {
  /** The manager's shared informer of a kind in all namespaces. */
  cache<T extends KubeObject>(kind: KindRef): Informer<T>;
  /** Events with `source.component` as the real controller's. */
  events(component: string): EventRecorder;
  /** Root of the sandbox's files; volumes live under `<workDir>/volumes/`. */
  workDir: string;
  /** The node pods are bound to. */
  nodeName: string;
  /** First delay before a Job replaces a failed pod (doubles per failure; the real one's is 10 s). */
  jobBackoffMs: number;
}
