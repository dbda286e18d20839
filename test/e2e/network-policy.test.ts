// End to end on the sandbox, whose network enforces NetworkPolicies as a CNI does
// (docs/network-policies.md): the chart's default install gives the cluster its NetworkPolicy, so
// a pod of another namespace is refused on the sidecar's port (the backup stream) and on MySQL's,
// directly and through the master Service, while a pod of the cluster's own namespace reaches
// MySQL; once the cluster names its clients (spec.networkPolicy.mysqlFrom), the application of
// another namespace it names gets in and the unnamed pods of its own are refused. The cluster stays Ready,
// replicates, and a replica deleted meanwhile comes back (cloned from a peer's sidecar, configured
// by the operator, discovered by Orchestrator: every path the policy must leave open).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { API_GROUP_VERSION, KIND_MYSQL_CLUSTER, PORT } from '../../src/api/constants.ts';
import { names } from '../../src/api/names.ts';
import { clusterView, waitForClusterReady } from '../../sandbox/cluster-view.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { netnsPrefix } from '../../sandbox/network/addresses.ts';
import {
  applyMariaDBExample,
  printSandboxOnFailure,
  sandboxLeftovers,
  sandboxSkip,
  serviceIP,
  sqlOnPod,
  sqlThroughService,
  type ExampleCluster,
} from '../support/sandbox.ts';
import { eventually } from '../support/wait.ts';

const run = promisify(execFile);
const OTHER_NAMESPACE = 'elsewhere';
const APP_LABELS = { app: 'shop' };

/**
 * From inside a pod's network namespace: 'open' when a TCP connection to host:port is made,
 * else the error's code (EHOSTUNREACH: refused by a policy; ECONNRESET: the proxy's upstream was).
 */
async function probe(sb: Sandbox, namespace: string, pod: string, host: string, port: number): Promise<string> {
  const p = await sb.client.get<{ metadata: { uid: string } }>({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod });
  const netns = `${netnsPrefix(sb.network.addresses.bridge)}${p.metadata.uid}`;
  // A server that speaks first (mysqld's greeting) or an HTTP server's answer: data means through.
  const code = `
    const [host, port] = process.argv.slice(1);
    const s = require('node:net').connect({ host, port: Number(port), timeout: 5000 });
    s.on('connect', () => s.write('GET /health HTTP/1.0\\r\\n\\r\\n'));
    s.on('data', () => { console.log('open'); s.destroy(); });
    s.on('end', () => { console.log('closed'); s.destroy(); });
    s.on('timeout', () => { console.log('ETIMEDOUT'); s.destroy(); });
    s.on('error', (e) => console.log(e.code));`;
  const { stdout } = await run('ip', ['netns', 'exec', netns, process.execPath, '-e', code, host, String(port)]);
  return stdout.trim().split('\n')[0] ?? '';
}

/** A pod that only sleeps, in `namespace`, with `labels`: a client whose network namespace the tests use. */
async function sleeper(sb: Sandbox, namespace: string, name: string, labels: Record<string, string>): Promise<void> {
  await sb.client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    // No token: the new namespace has no ServiceAccount (nothing here makes `default`), and a sleeper needs none.
    spec: {
      containers: [{ name: 'main', image: 'mariadb:10.11', command: ['sleep', '100000'] }],
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
    },
  });
  await eventually(`${namespace}/${name} running`, async () => {
    const p = await sb.client.get<{ status?: { phase?: string; podIP?: string } } & { metadata: object }>({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace,
      name,
    });
    return p.status?.phase === 'Running' && !!p.status.podIP;
  });
}

async function podIP(sb: Sandbox, namespace: string, name: string): Promise<string> {
  const p = await sb.client.get<{ status?: { podIP?: string } } & { metadata: object }>({ apiVersion: 'v1', kind: 'Pod', namespace, name });
  return p.status!.podIP!;
}

describe('a MariaDB cluster of 2 nodes behind the NetworkPolicies of a default install', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-'));
  let sb: Sandbox;
  let c: ExampleCluster;
  let master: string;
  let replica: string;

  before(async () => {
    sb = await startSandbox({ workDir });
    await sb.ready;
    c = await applyMariaDBExample(sb, 2);
    const view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: 400_000 });
    master = view.master!;
    replica = view.pods.find((p) => p.name !== master)!.name;
    await sb.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OTHER_NAMESPACE } });
    await sleeper(sb, OTHER_NAMESPACE, 'intruder', APP_LABELS);
    await sleeper(sb, c.namespace, 'shop', APP_LABELS);
  });
  after(() => sb?.stop());
  printSandboxOnFailure(() => sb);

  it("refuses a pod of another namespace on the sidecar's and MySQL's ports; a pod of the cluster's namespace reaches MySQL", async () => {
    const policy = await sb.client.get<{ metadata: object }>({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      namespace: c.namespace,
      name: names.networkPolicy(c.name),
    });
    assert.ok(policy, 'the operator made the cluster its NetworkPolicy');
    const masterIp = await podIP(sb, c.namespace, master);
    assert.equal(await probe(sb, OTHER_NAMESPACE, 'intruder', masterIp, PORT.sidecarHttp), 'EHOSTUNREACH', "the sidecar's port");
    assert.equal(await probe(sb, c.namespace, 'shop', masterIp, PORT.sidecarHttp), 'EHOSTUNREACH', 'not for applications either');
    // mysqlFrom unset: the cluster's own namespace, the operator and Orchestrator only.
    const masterService = await serviceIP(sb, c.namespace, names.masterService(c.name));
    assert.equal(await probe(sb, OTHER_NAMESPACE, 'intruder', masterIp, PORT.mysql), 'EHOSTUNREACH', "MySQL's port");
    assert.notEqual(await probe(sb, OTHER_NAMESPACE, 'intruder', masterService, PORT.mysql), 'open', 'nor through the ClusterIP');
    assert.equal(await probe(sb, OTHER_NAMESPACE, 'intruder', await podIP(sb, c.namespace, replica), PORT.mysql), 'EHOSTUNREACH');
    assert.equal(await probe(sb, c.namespace, 'shop', masterIp, PORT.mysql), 'open', "a pod of the cluster's namespace");
    assert.equal(await probe(sb, c.namespace, 'shop', masterService, PORT.mysql), 'open', 'through the ClusterIP too');
  });

  it("with spec.networkPolicy.mysqlFrom naming another namespace's application, lets it in and refuses the unnamed pods of the cluster's namespace", async () => {
    const otherApp = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': OTHER_NAMESPACE } },
      podSelector: { matchLabels: APP_LABELS },
    };
    await sb.client.patch(
      { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER, namespace: c.namespace, name: c.name },
      { spec: { networkPolicy: { mysqlFrom: [otherApp] } } },
      { type: 'merge' },
    );
    const masterIp = await podIP(sb, c.namespace, master);
    const masterService = await serviceIP(sb, c.namespace, names.masterService(c.name));
    await eventually(
      'the named application let in',
      async () => (await probe(sb, OTHER_NAMESPACE, 'intruder', masterIp, PORT.mysql)) === 'open',
    );
    assert.equal(await probe(sb, OTHER_NAMESPACE, 'intruder', masterService, PORT.mysql), 'open', 'through the ClusterIP too');
    assert.equal(await probe(sb, c.namespace, 'shop', masterIp, PORT.mysql), 'EHOSTUNREACH', "an unnamed pod of the cluster's namespace");
    assert.notEqual(await probe(sb, c.namespace, 'shop', masterService, PORT.mysql), 'open', 'nor through the ClusterIP');
    assert.equal(
      await probe(sb, OTHER_NAMESPACE, 'intruder', masterIp, PORT.sidecarHttp),
      'EHOSTUNREACH',
      "the sidecar's port stays closed",
    );
  });

  it('stays Ready and replicating, and a deleted replica comes back through the policy', async () => {
    await sqlThroughService(
      sb,
      c,
      names.masterService(c.name),
      "CREATE DATABASE IF NOT EXISTS np; CREATE TABLE IF NOT EXISTS np.t (id INT PRIMARY KEY, v VARCHAR(20)); REPLACE INTO np.t VALUES (1, 'before')",
    );
    await eventually(
      'the row on the replica',
      async () => (await sqlOnPod(sb, c, replica, 'SELECT v FROM np.t WHERE id = 1'))[0]?.v === 'before',
    );
    const podRef = { apiVersion: 'v1', kind: 'Pod', namespace: c.namespace, name: replica };
    const oldUid = (await sb.client.get<{ metadata: { uid: string } }>(podRef)).metadata.uid;
    await sb.client.delete(podRef);
    // The new pod clones from a peer's sidecar, the operator configures it, Orchestrator discovers it.
    await eventually(
      'the replica back, ready',
      async () => {
        const p = await sb.client.getIfExists<{ metadata: { uid: string } }>(podRef);
        if (!p || p.metadata.uid === oldUid) return false;
        const v = await clusterView(sb.client, c.namespace, c.name);
        return v.ready && v.pods.length === 2 && v.pods.every((x) => x.ready === '4/4');
      },
      400_000,
    );
    const view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: 60_000 });
    assert.equal(view.master, master, 'no failover was needed');
    await sqlThroughService(sb, c, names.masterService(c.name), "INSERT INTO np.t VALUES (2, 'after')");
    await eventually('both rows on the new replica', async () => {
      const rows = await sqlOnPod(sb, c, replica, 'SELECT COUNT(*) AS n FROM np.t').catch(() => []);
      return Number(rows[0]?.n) === 2;
    });
  });

  it('stops leaving no network namespace, link, mount, process or file', async () => {
    const bridge = sb.network.addresses.bridge;
    await sb.stop();
    assert.deepEqual(sandboxLeftovers(workDir, bridge), []);
  });
});
