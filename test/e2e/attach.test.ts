// `startSandbox({ kubeconfig })` attached to an existing cluster's API server (docs/sandbox.md
// "Attached to a cluster"). The cluster: TEST_KUBECONFIG's, or the project's own API server run
// as a process of its own that listens on 127.0.0.1 only, as a real one on the host's loopback
// does (kind, k3s, a port-forward), with TLS and a kubeconfig that authenticates with a client
// certificate (no token a kubelet could hand its pods), and a `kubernetes` Service as every
// cluster has. Pods' loopback is their own: only the sandbox's relay on the bridge gets them to
// that server. The example MariaDB cluster becomes Ready (the operator in its pod talks to the
// server through the relay), a pod reaches the server with its own service account's token and
// the cluster's CA, by name and by the `kubernetes` Service's ClusterIP, but not at the
// kubeconfig's address; stopping leaves nothing.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_APP_COMPONENT } from '../../src/api/constants.ts';
import { waitForClusterReady } from '../../sandbox/cluster-view.ts';
import { netnsPrefix } from '../../sandbox/network/addresses.ts';
import { RELEASE, REPO, run, startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { applyMariaDBExample, printSandboxOnFailure, sandboxLeftovers, type ExampleCluster } from '../support/sandbox.ts';
import { eventually } from '../support/wait.ts';

const NODE = process.execPath;
const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function skip(): string | false {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, the sandbox bridge, mounts)';
  return false;
}

/** The project's API server as a process of its own on 127.0.0.1; resolves with its URL once it listens. */
async function startCluster(dir: string): Promise<{ proc: ChildProcess; url: string; kubeconfig: string }> {
  const kubeconfig = join(dir, 'kubeconfig');
  const proc = spawn(
    NODE,
    [
      join(REPO, 'sandbox/apiserver/main.ts'),
      '--tls',
      '--client-cert-auth',
      '--kubeconfig-out',
      kubeconfig,
      // kubeadm's Service range: the cluster's ClusterIPs are outside the sandbox's own, as on a real cluster.
      '--service-cidr',
      '10.96.0.0/24',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: proc.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the API server exited with ${code} before listening`)));
    lines.on('line', (l) => {
      const m = /"url":"([^"]+)"/.exec(l);
      if (m) resolve(m[1]!);
    });
  });
  return { proc, url, kubeconfig };
}

/**
 * What an in-cluster client in `pod` gets from GET `url`: the HTTP status, or the error. Runs in
 * the pod's network and mount namespaces (its hosts file, its projected token and CA); the token
 * is read from the pod's file by the script, never passed on a command line.
 */
async function fromPod(sb: Sandbox, namespace: string, pod: string, url: string): Promise<string> {
  const p = await sb.client.get<V1Pod & { metadata: { uid: string } }>({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod });
  const netns = `${netnsPrefix(sb.network.addresses.bridge)}${p.metadata.uid}`;
  // A container's process: its root has the projected token (the namespace's holder has not).
  // Through /proc/<pid>/root the host's absolute /var/run link would lead out of it: its target instead.
  const inRoot = join(realpathSync('/var/run'), 'secrets/kubernetes.io/serviceaccount/ca.crt');
  const pid = (await run('ip', ['netns', 'pids', netns])).stdout
    .split('\n')
    .find((l) => /^\d+$/.test(l) && existsSync(`/proc/${l}/root${inRoot}`));
  if (!pid) throw new Error(`no container process in ${pod}'s network namespace`);
  const script = `
    const fs = require('node:fs'); const https = require('node:https');
    const dir = '${TOKEN_DIR}';
    const req = https.request(process.argv[1], { ca: fs.readFileSync(dir + '/ca.crt'), headers: { authorization: 'Bearer ' + fs.readFileSync(dir + '/token', 'utf8') }, timeout: 5000 },
      (res) => { res.resume(); console.log('HTTP ' + res.statusCode); });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => console.log('error ' + (e.code || e.message)));
    req.end();`;
  const r = await run('nsenter', ['-t', pid, '-m', '-n', '-r', '--', NODE, '-e', script, url]);
  return r.out.trim();
}

describe("the sandbox attached to an existing cluster's API server on the host's loopback", { skip: skip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-attach-'));
  const clusterDir = mkdtempSync(join(tmpdir(), 'sandbox-attach-cluster-'));
  let cluster: { proc: ChildProcess; url: string; kubeconfig: string } | undefined;
  let kubeconfig: string;
  let sb: Sandbox;
  let c: ExampleCluster;

  before(async () => {
    if (process.env.TEST_KUBECONFIG) kubeconfig = process.env.TEST_KUBECONFIG;
    else {
      cluster = await startCluster(clusterDir);
      kubeconfig = cluster.kubeconfig;
      assert.match(cluster.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    }
    sb = await startSandbox({ workDir, kubeconfig });
    if (cluster) {
      // Every cluster has it: kube-apiserver keeps it, selectorless, its endpoint the server itself.
      const svc = await sb.kubectl([
        '-n',
        'default',
        'create',
        'service',
        'clusterip',
        'kubernetes',
        '--tcp=443:6443',
        '--clusterip=10.96.0.1',
      ]);
      assert.ok(svc.ok, svc.out);
    }
    await sb.ready;
    c = await applyMariaDBExample(sb, 2);
  });
  after(async () => {
    await sb?.stop();
    if (cluster && cluster.proc.exitCode === null) {
      const exited = new Promise((r) => cluster!.proc.once('exit', r));
      cluster.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(clusterDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  });
  printSandboxOnFailure(() => sb);

  it("runs the sandbox's controllers on a server without a controller manager, and pods dial it by a name its certificate covers", () => {
    assert.ok(sb.attached);
    assert.equal(sb.attached.podApi.host, 'kubernetes.default.svc');
    assert.equal(sb.attached.podApi.port, 443);
    if (cluster) assert.equal(sb.attached.controllers.run, 'sandbox', sb.attached.controllers.reason);
    assert.equal(sb.apiserver, undefined, "no API server of the sandbox's own");
  });

  it('becomes Ready: the operator reaches the API server through the relay', async () => {
    const view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: 400_000 });
    assert.equal(view.pods.length, 2);
    assert.ok(view.master);
    const podCIDR = sb.network.addresses.podCIDR.replace(/\.0\/24$/, '.');
    assert.ok(
      sb.attached!.relay.clients().some((a) => a.startsWith(podCIDR)),
      `the relay served a pod (clients: ${sb.attached!.relay.clients().join(', ')})`,
    );
  });

  it("lets a pod reach the server with its own token and the cluster's CA, by name and ClusterIP; not at the kubeconfig's address", async () => {
    const pods = await sb.client.list<V1Pod & { metadata: { name: string } }>(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: RELEASE.namespace, labelSelector: `${LABEL_APP_COMPONENT}=operator` },
    );
    const operator = pods.items[0]!.metadata.name;
    const path = '/api/v1/namespaces/default/services/kubernetes';
    assert.equal(await fromPod(sb, RELEASE.namespace, operator, `https://kubernetes.default.svc${path}`), 'HTTP 200');
    if (cluster) {
      const svc = await sb.client.get<{ spec: { clusterIP: string } } & { metadata: object }>({
        apiVersion: 'v1',
        kind: 'Service',
        namespace: 'default',
        name: 'kubernetes',
      });
      // Its certificate covers the Service's IP, as kube-apiserver's does: the Service proxy sends it to the relay.
      assert.equal(svc.spec.clusterIP, '10.96.0.1');
      assert.equal(await fromPod(sb, RELEASE.namespace, operator, `https://${svc.spec.clusterIP}${path}`), 'HTTP 200');
      assert.match(
        await fromPod(sb, RELEASE.namespace, operator, `${cluster.url}${path}`),
        /ECONNREFUSED/,
        "the kubeconfig's 127.0.0.1 is the pod's own loopback",
      );
    }
  });

  it('stops leaving no network namespace, link, mount, process or file, and no release on the cluster', async () => {
    const bridge = sb.network.addresses.bridge;
    await sb.stop();
    assert.deepEqual(sandboxLeftovers(workDir, bridge), []);
    if (cluster) {
      const release = await run(join(REPO, '.tools/bin/kubectl'), [
        '--kubeconfig',
        kubeconfig,
        '-n',
        RELEASE.namespace,
        'get',
        'deploy,sts',
        '-o',
        'name',
      ]);
      assert.ok(release.ok, release.out);
      assert.equal(release.stdout.trim(), '', 'helm uninstalled the release');
    }
    await eventually('no relay on the gateway', async () => !existsSync(workDir));
  });
});
