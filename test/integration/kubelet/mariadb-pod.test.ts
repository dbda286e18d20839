// One real MariaDB pod under the sandbox kubelet, on the sandbox's pod network: the pod the
// operator renders for a 1-node MariaDB cluster (its StatefulSet template, named and bound as the
// StatefulSet controller would, with the ConfigMap and Secrets the cluster controller renders)
// runs its init container (the sidecar's clone-and-init), then mysqld (the MariaDB image played by
// the local mariadbd through the image's first-start behaviour), the sidecar, pt-heartbeat and
// the metrics exporter, and turns Ready. The node controller's one step the readiness probe
// waits for (`configured` in sys_operator.status) is done by hand with the mysql layer's own
// call: the operator is not part of this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { startApiServer } from '../../../sandbox/apiserver/index.ts';
import { startKubelet } from '../../../sandbox/kubelet/index.ts';
import { claimAddresses, startSandboxNetwork } from '../../../sandbox/network/index.ts';
import { CONTAINER, OPERATED_SECRET_KEY } from '../../../src/api/constants.ts';
import { names } from '../../../src/api/names.ts';
import { connectNode } from '../../../src/mysql/node.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { cluster, render, wire } from '../../unit/cluster/builders.ts';
import { eventually } from '../../support/wait.ts';
import { getPod, NODE, SKIP_REAL } from './harness.ts';

const ROOT_PASSWORD = 'r00t';

function skipReason(): string | undefined {
  if (SKIP_REAL) return SKIP_REAL;
  if (process.getuid?.() !== 0) return 'needs root (network and mount namespaces)';
  if (spawnSync('prometheus-mysqld-exporter', ['--version']).status !== 0)
    return 'needs prometheus-mysqld-exporter (scripts/install-deps.sh)';
  return undefined;
}

test("the operator's MariaDB pod runs init, mysqld, sidecar, heartbeat and exporter, and turns Ready", {
  skip: skipReason(),
}, async (t) => {
  const workDir = mkdtempSync(join(tmpdir(), 'kubelet-mariadb-'));
  const claim = await claimAddresses(workDir);
  const server = await startApiServer({ serviceCIDR: claim.serviceCIDR });
  const client = new KubeClient(server.kubeConfig());
  const net = await startSandboxNetwork({ client, workDir, claim });
  const kubelet = await startKubelet({ client, nodeName: NODE, workDir, network: net.network, volumeSyncMs: 500 });
  t.after(async () => {
    await kubelet.stop();
    await net.stop();
    client.close();
    await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });
  await Promise.all([net.ready, kubelet.ready()]);

  const ns = 'mariadb-pod';
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const desired = wire(
    render(
      cluster(
        {
          mysqlVersion: 'mariadb-10.11',
          replicas: 1,
          podSpec: { resources: { requests: { memory: '256Mi' }, limits: { memory: '512Mi' } } },
        },
        { namespace: ns },
      ),
    ),
  );
  const c = desired.ref.name;
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-db-secret', namespace: ns },
    stringData: { ROOT_PASSWORD },
  });
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.operatedSecret(c), namespace: ns },
    stringData: desired.secretData,
  });
  await client.create({ ...desired.configMap, metadata: { ...desired.configMap.metadata, ownerReferences: undefined } });
  await client.create({ ...desired.headlessService, metadata: { ...desired.headlessService.metadata, ownerReferences: undefined } });
  const template = desired.statefulSet.spec!.template;
  const podName = names.pod(c, 0);
  const claimName = `data-${desired.statefulSet.metadata!.name}-0`;
  await client.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claimName, namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  // What the StatefulSet controller makes of the template: the name, hostname and subdomain, the claim.
  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName,
      namespace: ns,
      labels: { ...template.metadata?.labels, 'statefulset.kubernetes.io/pod-name': podName },
      annotations: template.metadata?.annotations,
    },
    spec: {
      ...template.spec!,
      nodeName: NODE,
      hostname: podName,
      subdomain: desired.statefulSet.spec!.serviceName,
      terminationGracePeriodSeconds: 10,
      volumes: template.spec!.volumes!.map((v) => (v.name === 'data' ? { name: 'data', persistentVolumeClaim: { claimName } } : v)),
    },
  };
  await client.create(pod);

  const running = await eventually(
    'init to complete and mysqld to answer in the pod',
    async () => {
      const p = await getPod(client, ns, podName);
      const mysql = p?.status?.containerStatuses?.find((s) => s.name === CONTAINER.mysql);
      return Boolean(p?.status?.podIP) && mysql?.state?.running && p;
    },
    120_000,
  );
  assert.equal(running.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode, 0);
  assert.notEqual(running.status?.podIP, '127.0.0.1', 'the pod has an address of its own on the sandbox bridge');

  const node = await eventually(
    'mysqld to accept the root password at the pod address',
    () =>
      connectNode({
        // The operator's account, as the node controller connects: root is fenced by read_only (docs/fencing.md).
        host: running.status!.podIP!,
        port: 3306,
        user: desired.secretData[OPERATED_SECRET_KEY.operatorUser]!,
        password: desired.secretData[OPERATED_SECRET_KEY.operatorPassword]!,
        connectTimeoutMs: 1000,
      }),
    120_000,
  );
  try {
    const info = await node.serverInfo();
    assert.match(info.version, /MariaDB/i, 'the local mariadbd plays the MariaDB image');
    assert.equal(info.hostname, podName, "@@hostname is the pod's (Orchestrator derives the cluster alias from it)");
    await node.markConfigured();
  } finally {
    await node.close();
  }

  const ready = await eventually(
    'the pod to turn Ready',
    async () => {
      const p = await getPod(client, ns, podName);
      return p?.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True' && p;
    },
    120_000,
  );
  assert.deepEqual(
    ready.status?.containerStatuses?.map((s) => [s.name, s.ready, s.restartCount]).sort(),
    [
      [CONTAINER.metricsExporter, true, 0],
      [CONTAINER.mysql, true, 0],
      [CONTAINER.heartbeat, true, 0],
      [CONTAINER.sidecar, true, 0],
    ].sort(),
  );
  // No secret value in any container log (the entrypoint's password handling, the sidecar's).
  const secrets = [
    ROOT_PASSWORD,
    ...Object.entries(desired.secretData)
      .filter(([k]) => k.endsWith('PASSWORD'))
      .map(([, v]) => v),
  ];
  const logs = readdirSync(join(workDir, 'pods'), { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.includes('/logs/') && f.endsWith('.log'),
  );
  assert.ok(logs.length >= 5, `every container has a log: ${logs.join(', ')}`);
  for (const f of logs) {
    const text = readFileSync(join(workDir, 'pods', f), 'utf8');
    for (const v of secrets) assert.equal(text.includes(v), false, `${f} holds the secret value ${v}`);
  }
  const events = await client.list({ apiVersion: 'v1', kind: 'Event' }, { namespace: ns });
  const started = events.items
    .map((e) => String((e as { message?: string }).message))
    .filter((m) => m.startsWith(`Started container ${CONTAINER.mysql}:`));
  assert.match(
    started[0] ?? '',
    /runs as MariaDB .* \(local mariadbd\) standing in for mariadb:10\.11\.10/,
    'an Event says which flavour ran',
  );
});
