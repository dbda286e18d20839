// A sandbox kubelet on the test API server for one test: its node, a work dir, a shell image
// (`test-shell`, played by /bin/sh through the images table's options), and a network that gives
// every pod the host's address and a hosts file of its own (what sandbox/network does with a
// namespace per pod, minus the namespace).
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { startKubelet, type Kubelet, type PodNetwork } from '../../../sandbox/kubelet/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';

export const SKIP_REAL = process.env.TEST_KUBECONFIG
  ? 'the sandbox kubelet runs on the test API server only (a real cluster has kubelets of its own)'
  : undefined;

export const SHELL_IMAGE = 'registry.test/test-shell:1';
export const NODE = 'sandbox-node';

export interface KubeletEnv extends KubeEnv {
  client: KubeClient;
  kubelet: Kubelet;
  workDir: string;
  /** A scratch directory of the test's own (hostPath volumes). */
  scratch: string;
  hostsFiles: Map<string, string>;
  stop(): Promise<void>;
}

export function testNetwork(dir: string, hostsFiles: Map<string, string>): PodNetwork {
  return {
    attach: async (pod) => {
      const file = join(dir, `hosts-${pod.uid}`);
      const text = `127.0.0.1\tlocalhost\n127.0.0.1\t${pod.hostname}.${pod.subdomain ?? 'none'}.${pod.namespace}.svc.cluster.local\t${pod.hostname}\n`;
      writeFileSync(file, text);
      hostsFiles.set(pod.uid, text);
      return { ip: '127.0.0.1', netns: '', hostsFile: file };
    },
    detach: async (uid) => {
      rmSync(join(dir, `hosts-${uid}`), { force: true });
    },
  };
}

export async function kubeletEnv(t: TestContext, opts: { backoff?: { baseMs: number; maxMs: number } } = {}): Promise<KubeletEnv> {
  const env = await kubeEnv(t, { crds: false });
  const workDir = mkdtempSync(join(tmpdir(), 'kubelet-'));
  const scratch = mkdtempSync(join(tmpdir(), 'kubelet-test-'));
  const hostsFiles = new Map<string, string>();
  const client = new KubeClient(env.kubeConfig);
  const kubelet = await startKubelet({
    kubeconfig: env.kubeConfig,
    nodeName: NODE,
    workDir,
    network: testNetwork(scratch, hostsFiles),
    images: {
      extra: [
        { describe: () => '/bin/sh (test image)', matches: (ref) => ref.name === 'test-shell', entrypoint: (args) => ['/bin/sh', ...args] },
      ],
    },
    backoff: opts.backoff,
    volumeSyncMs: 200,
    heartbeatMs: 1000,
  });
  await kubelet.ready();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // KUBELET_TEST_DEBUG=1: the pods' status and every container log, to see why a wait timed out.
    if (process.env.KUBELET_TEST_DEBUG) {
      const pods = await client.list<V1Pod & { metadata: { name: string } }>(
        { apiVersion: 'v1', kind: 'Pod' },
        { namespace: env.namespace },
      );
      for (const p of pods.items) console.error(p.metadata?.name, JSON.stringify(p.status));
      console.error(execSync(`find ${workDir} -name '*.log' -exec sh -c 'echo == $1; cat $1' sh {} \\;`, { encoding: 'utf8' }));
    }
    await kubelet.stop();
    client.close();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  };
  return { ...env, client, kubelet, workDir, scratch, hostsFiles, stop };
}

/** Runs `body` with a kubelet env, stopped afterwards whatever happens. */
export async function withKubelet(
  t: TestContext,
  opts: { backoff?: { baseMs: number; maxMs: number } },
  body: (env: KubeletEnv) => Promise<void>,
): Promise<void> {
  const env = await kubeletEnv(t, opts);
  try {
    await body(env);
  } finally {
    await env.stop();
  }
}

export function shellPod(
  namespace: string,
  name: string,
  spec: Partial<NonNullable<V1Pod['spec']>>,
  labels: Record<string, string> = {},
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { nodeName: NODE, terminationGracePeriodSeconds: 5, containers: [], ...spec },
  };
}

export async function getPod(client: KubeClient, namespace: string, name: string): Promise<V1Pod | undefined> {
  return (await client.getIfExists({ apiVersion: 'v1', kind: 'Pod', namespace, name })) as V1Pod | undefined;
}
