// Shared setup of the workload controllers' tests: a test API server, the controllers, the fake
// kubelet and a work directory, all removed after the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { startWorkloadControllers } from '../../../sandbox/workloads/index.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { memoryLogger } from '../runtime/helpers.ts';
import { startFakeKubelet, type FakeKubelet, type PodOutcome } from './fake-kubelet.ts';

export const NODE = 'sandbox-node';
export const ONLY_TEST_SERVER = process.env.TEST_KUBECONFIG ? 'a real cluster runs its own workload controllers' : false;

export interface WorkloadsEnv extends KubeEnv {
  kubelet: FakeKubelet;
  workDir: string;
}

export async function workloadsEnv(
  t: TestContext,
  opts: { outcome?: (pod: V1Pod) => PodOutcome; jobBackoffMs?: number; crds?: boolean } = {},
): Promise<WorkloadsEnv> {
  // Hooks run in the order they are registered: this one must stop the controllers before
  // kubeEnv's deletes the namespace and stops the server.
  const teardown: Array<() => Promise<void> | void> = [];
  t.after(async () => {
    for (const step of teardown.reverse()) await step();
  });
  const env = await kubeEnv(t, { crds: opts.crds ?? false });
  const workDir = mkdtempSync(join(tmpdir(), 'workloads-'));
  const { log } = memoryLogger();
  teardown.push(() => rmSync(workDir, { recursive: true, force: true }));
  const controllers = startWorkloadControllers({
    kubeconfig: env.kubeConfig,
    workDir,
    nodeName: NODE,
    log,
    jobBackoffMs: opts.jobBackoffMs ?? 200,
  });
  teardown.push(() => controllers.stop());
  await controllers.ready;
  const kubelet = await startFakeKubelet(env.kubeConfig, {
    namespace: env.namespace,
    nodeName: NODE,
    ...(opts.outcome ? { outcome: opts.outcome } : {}),
  });
  teardown.push(() => kubelet.stop());
  return { ...env, kubelet, workDir };
}

/** Position of `entry` in the kubelet's history (fails the test when absent). */
export function at(history: readonly string[], entry: string, from = 0): number {
  const i = history.indexOf(entry, from);
  if (i < 0) throw new Error(`${entry} not in history: ${history.join(' ')}`);
  return i;
}
