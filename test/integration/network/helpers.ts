// What the network tests share: a sandbox network on its own test API server (given the
// network's ClusterIP range, as the sandbox composes them), pods as the kubelet would make them
// (attached, then their status written), and small TCP programs run inside a pod's namespace
// with its hosts file bind-mounted over /etc/hosts, the way the kubelet runs containers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../sandbox/apiserver/index.ts';
import { claimAddresses, startSandboxNetwork, type PodNetworkAttachment, type SandboxNetwork } from '../../../sandbox/network/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { Logger } from '../../../src/runtime/logger.ts';

/** Why these tests cannot run here, or undefined when they can. */
export function skipReason(): string | undefined {
  if (process.env.TEST_KUBECONFIG) return 'the sandbox network serves the test API server only (a real cluster has its own pod network)';
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, a bridge)';
  if (spawnSync('ip', ['-V']).status !== 0) return 'needs the `ip` command (iproute2)';
  if (spawnSync('unshare', ['--version']).status !== 0) return 'needs `unshare` (util-linux)';
  return undefined;
}

export interface NetworkEnv {
  server: ApiServer;
  client: KubeClient;
  net: SandboxNetwork;
  namespace: string;
  workDir: string;
}

export async function networkEnv(t: TestContext, log?: Logger): Promise<NetworkEnv> {
  const workDir = await mkdtemp(join(tmpdir(), 'sandbox-network-'));
  const claim = await claimAddresses(workDir);
  const server = await startApiServer({ serviceCIDR: claim.serviceCIDR });
  const client = new KubeClient(server.kubeConfig());
  const net = await startSandboxNetwork({ client, workDir, claim, ...(log ? { log } : {}) });
  t.after(async () => {
    await net.stop();
    client.close();
    await server.stop();
    await rm(workDir, { recursive: true, force: true });
  });
  await net.ready;
  const namespace = `t-${Math.random().toString(36).slice(2, 10)}`;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  return { server, client, net, namespace, workDir };
}

export interface TestPod {
  pod: V1Pod;
  net: PodNetworkAttachment;
}

/** A pod as the kubelet leaves it: attached to the network, then Running and Ready at its address. */
export async function runningPod(
  env: NetworkEnv,
  name: string,
  o: {
    labels?: Record<string, string>;
    subdomain?: string;
    ports?: Array<{ name: string; containerPort: number }>;
    namespace?: string;
  } = {},
): Promise<TestPod> {
  const namespace = o.namespace ?? env.namespace;
  const created = await env.client.create<V1Pod & { metadata: object }>({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: o.labels ?? {} },
    spec: {
      hostname: name,
      ...(o.subdomain ? { subdomain: o.subdomain } : {}),
      containers: [{ name: 'main', image: 'echo', ports: o.ports ?? [] }],
    },
  });
  const uid = created.metadata!.uid!;
  const attachment = await env.net.network.attach({
    uid,
    namespace,
    name,
    hostname: name,
    ...(o.subdomain ? { subdomain: o.subdomain } : {}),
  });
  const pod = await env.client.patchStatus<V1Pod & { metadata: object }>(
    { apiVersion: 'v1', kind: 'Pod', namespace, name },
    {
      status: { phase: 'Running', podIP: attachment.ip, podIPs: [{ ip: attachment.ip }], conditions: [{ type: 'Ready', status: 'True' }] },
    },
  );
  return { pod, net: attachment };
}

export async function createService(
  env: NetworkEnv,
  svc: {
    name: string;
    selector: Record<string, string>;
    ports: Array<{ name?: string; port: number; targetPort?: number | string }>;
    headless?: boolean;
  },
): Promise<V1Service> {
  return env.client.create<V1Service & { metadata: object }>({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: svc.name, namespace: env.namespace },
    spec: { selector: svc.selector, ports: svc.ports, ...(svc.headless ? { clusterIP: 'None' } : {}) },
  });
}

/**
 * Runs node with `code` inside the pod's network namespace, in a private mount namespace with
 * the pod's hosts file over /etc/hosts and its resolver over /etc/resolv.conf, as the kubelet
 * mounts them. Killed when the test ends.
 */
export function inPod(t: TestContext, pod: PodNetworkAttachment, code: string, args: string[] = []): ChildProcess {
  const mount = 'mount --bind "$0" /etc/hosts && mount --bind "$1" /etc/resolv.conf && shift && exec "$@"';
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      pod.netns,
      'unshare',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      mount,
      pod.hostsFile,
      pod.resolvFile!,
      process.execPath,
      '-e',
      code,
      ...args,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

/** Its whole stdout once it exits; rejects with its stderr when it fails. */
export function output(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err.trim()}`)))),
  );
}

/** A TCP server on `port` in the pod: says its `name` on each connection, then echoes. Resolves once it listens. */
export async function echoServer(t: TestContext, pod: PodNetworkAttachment, name: string, port: number): Promise<void> {
  const code = `
    const [name, port] = process.argv.slice(1);
    require('node:net').createServer((s) => { s.write(name + '\\n'); s.pipe(s); s.on('error', () => {}); })
      .listen(Number(port), '0.0.0.0', () => console.log('listening'));`;
  const child = inPod(t, pod, code, [name, String(port)]);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('close', (c) => reject(new Error(`echo server in ${pod.netns} exited ${c}`)));
  });
}

/** From inside `from`: connects to host:port and returns the first line the server says, or `error:<code>`. */
export async function greeting(t: TestContext, from: PodNetworkAttachment, host: string, port: number): Promise<string> {
  const code = `
    const [host, port] = process.argv.slice(1);
    const s = require('node:net').connect({ host, port: Number(port), timeout: 5000 });
    let buf = '';
    s.on('data', (d) => { buf += d; if (buf.includes('\\n')) { console.log(buf.split('\\n')[0]); s.destroy(); } });
    s.on('timeout', () => { console.log('error:ETIMEDOUT'); s.destroy(); });
    s.on('error', (e) => console.log('error:' + e.code));`;
  return (await output(inPod(t, from, code, [host, String(port)]))).trim();
}
