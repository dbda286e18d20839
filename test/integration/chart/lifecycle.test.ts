// Install, upgrade and uninstall of the chart with the real helm, on the test API server (which
// decodes the protobuf bodies of helm's release Secrets, docs/test-apiserver.md) or a real cluster
// with TEST_KUBECONFIG. The test API server runs no pods: the operator runs in this process with
// the cluster controller's flags and variables read from the Deployment helm installed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { V1Container, V1Deployment, V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import { clusterControllerDefinition } from '../../../src/controllers/cluster/controller.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { eventually } from '../../support/wait.ts';
import { manifests, NEEDS_REQUEST_LOG, startOperator, testApi, type RunningOperator, type TestApi } from '../cluster/operator.ts';
import { kubeconfigFile, kubectl } from '../../support/kubectl.ts';
import { CHART, chartArgs, helm } from './helm.ts';

const CLUSTER_FLAGS = new Set(Object.values(clusterControllerDefinition.settings ?? {}).map((s) => s.flag));
const CLUSTER_VARS = new Set(Object.values(clusterControllerDefinition.settings ?? {}).map((s) => s.env));

/** The cluster controller's part of the installed operator container: the flags and variables that shape the database pods. */
async function clusterConfig(
  client: TestApi['client'],
  deployment: V1Deployment,
): Promise<{ argv: string[]; env: Record<string, string> }> {
  const c = deployment.spec!.template.spec!.containers[0] as V1Container;
  const argv = c.args!.filter((a) => CLUSTER_FLAGS.has(a.replace(/^--/, '').split('=')[0]!));
  // The Secret volume the credentials flag names, as the kubelet would mount it, in a directory here.
  const credsAt = argv.findIndex((a) => a.startsWith('--orchestrator-credentials-dir='));
  if (credsAt >= 0) {
    const volume = deployment.spec!.template.spec!.volumes!.find((v) => v.name === 'orchestrator-api')!;
    const secret = await client.get<V1Secret & KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: deployment.metadata!.namespace!,
      name: volume.secret!.secretName!,
    });
    // One directory per content, so the same Secret gives the same flag before and after an upgrade.
    const content = JSON.stringify(volume.secret!.items!.map((i) => [i.path, secret.data![i.key]]));
    let dir = credentialDirs.get(content);
    if (!dir) {
      const made = mkdtempSync(join(tmpdir(), 'chart-life-orc-api-'));
      cleanups.push(() => rmSync(made, { recursive: true, force: true }));
      for (const item of volume.secret!.items!) writeFileSync(join(made, item.path), Buffer.from(secret.data![item.key]!, 'base64'));
      credentialDirs.set(content, made);
      dir = made;
    }
    argv[credsAt] = `--orchestrator-credentials-dir=${dir}`;
  }
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (!CLUSTER_VARS.has(e.name)) continue;
    const ref = e.valueFrom?.secretKeyRef;
    if (!ref) {
      env[e.name] = e.value!;
      continue;
    }
    const secret = await client.get<V1Secret & KubeObject>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: deployment.metadata!.namespace!,
      name: ref.name!,
    });
    env[e.name] = Buffer.from(secret.data![ref.key]!, 'base64').toString();
  }
  return { argv, env };
}

const cleanups: (() => void)[] = [];
const credentialDirs = new Map<string, string>();
after(() => {
  for (const c of cleanups) c();
});

async function gone(client: TestApi['client'], ref: Parameters<TestApi['client']['get']>[0]): Promise<boolean> {
  try {
    await client.get(ref);
    return false;
  } catch {
    return true;
  }
}

test('helm install, helm upgrade changing an operator flag, helm uninstall: the operator rolls, no database pod changes, the clusters stay', async (t) => {
  const { env, namespace: ns, client } = await testApi(t);
  const dir = mkdtempSync(join(tmpdir(), 'chart-life-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = kubeconfigFile(env.kubeConfig, dir);
  // One namespace holds the release and its clusters, so a real cluster keeps nothing after the test.
  const release = { namespace: ns, set: [`watchNamespace=${ns}`] };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'mysql-operator' };
  const orchestrator = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: ns, name: 'mysql-operator-orc' };
  let op: RunningOperator | undefined;
  t.after(() => op?.stop());
  t.after(() => helm(kubeconfig, dir, ['uninstall', 'mysql-operator', '--namespace', ns, '--ignore-not-found']));

  const installed = await helm(kubeconfig, dir, chartArgs('install', release));
  assert.equal(installed.status, 0, installed.stderr);
  const listed = await helm(kubeconfig, dir, ['list', '--namespace', ns, '--output', 'json']);
  assert.deepEqual(
    (JSON.parse(listed.stdout) as { name: string; revision: string; status: string }[]).map((r) => [r.name, r.revision, r.status]),
    [['mysql-operator', '1', 'deployed']],
  );
  await t.test("helm's release Secret went as protobuf", { skip: env.server ? false : NEEDS_REQUEST_LOG }, () => {
    const stored = env
      .server!.requestLog.filter({ verb: 'create', resource: 'secrets', namespace: ns })
      .filter((e) => e.userAgent?.startsWith('Helm/'));
    assert.ok(
      stored.some((e) => e.status === 201 && e.contentType === 'application/vnd.kubernetes.protobuf'),
      JSON.stringify(stored),
    );
  });
  const before = await client.get<V1Deployment & KubeObject>(deployment);
  const orcBefore = await client.get<V1StatefulSet & KubeObject>(orchestrator);
  const apiSecret = { apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'mysql-operator-orc-api' };
  const apiBefore = await client.get<V1Secret & KubeObject>(apiSecret);

  const c1 = await clusterConfig(client, before);
  op = await startOperator(env.kubeConfig, ns, c1.argv, c1.env);
  for (const obj of manifests(new URL('../../../examples/mysqlcluster.yaml', import.meta.url), ns)) await client.create(obj);
  const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: ns, name: 'my-db-mysql' };
  await op.reconciles.settled([`${ns}/my-db`], op.reconciles.mark(), 2);
  const db = await eventually('the database StatefulSet', () => client.get<V1StatefulSet & KubeObject>(sts));
  await op.stop();

  await t.test('upgrade: the CRDs first, as chart/README.md says (helm does not upgrade crds/)', async () => {
    const r = await kubectl(kubeconfig, ['apply', '--server-side', '--force-conflicts', '-f', `${CHART}/crds/`]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 4, r.stdout);
  });

  await t.test('helm upgrade: the changed flag changes the operator pod template (a rollout), nothing else', async () => {
    const upgraded = await helm(kubeconfig, dir, chartArgs('upgrade', { ...release, set: [...release.set, 'extraArgs={--workers=8}'] }));
    assert.equal(upgraded.status, 0, upgraded.stderr);
    const after = await client.get<V1Deployment & KubeObject>(deployment);
    assert.equal(after.metadata!.generation, before.metadata!.generation! + 1);
    assert.ok(after.spec!.template.spec!.containers[0]!.args!.includes('--workers=8'));
    const c2 = await clusterConfig(client, after);
    assert.deepEqual(c2, c1, 'the flags that shape database pods are the same');
    // helm's lookup keeps the generated Orchestrator password, so Orchestrator does not roll either.
    assert.equal((await client.get<V1StatefulSet & KubeObject>(orchestrator)).metadata!.generation, orcBefore.metadata!.generation);
    // And the generated API password: Orchestrator, the operator and the pods keep agreeing.
    assert.deepEqual((await client.get<V1Secret & KubeObject>(apiSecret)).data, apiBefore.data);

    op = await startOperator(env.kubeConfig, ns, c2.argv, c2.env);
    await op.reconciles.settled([`${ns}/my-db`], op.reconciles.mark(), 2);
    const now = await client.get<V1StatefulSet & KubeObject>(sts);
    assert.equal(now.metadata!.generation, db.metadata!.generation, 'the restarted operator renders the same pod template');
    assert.equal(now.metadata!.resourceVersion, db.metadata!.resourceVersion);
    await op.stop();
    op = undefined;
  });

  await t.test('helm uninstall: the release and its objects go, the MysqlCluster and its StatefulSet stay', async () => {
    const removed = await helm(kubeconfig, dir, ['uninstall', 'mysql-operator', '--namespace', ns]);
    assert.equal(removed.status, 0, removed.stderr);
    const listed = await helm(kubeconfig, dir, ['list', '--all', '--namespace', ns, '--output', 'json']);
    // helm 4 prints nothing rather than `[]` when no release is left.
    assert.deepEqual(JSON.parse(listed.stdout.trim() || '[]'), []);
    await eventually('the operator Deployment deleted', () => gone(client, deployment));
    const cluster = await client.get<KubeObject & { metadata: { deletionTimestamp?: string } }>({
      apiVersion: 'mysql.presslabs.org/v1alpha1',
      kind: 'MysqlCluster',
      namespace: ns,
      name: 'my-db',
    });
    assert.equal(cluster.metadata!.deletionTimestamp, undefined);
    assert.equal((await client.get<V1StatefulSet & KubeObject>(sts)).metadata!.uid, db.metadata!.uid);
  });
});
