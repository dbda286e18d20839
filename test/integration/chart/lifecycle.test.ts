// Install, upgrade and uninstall of the chart as helm applies them, on the test API server (or a
// real cluster with TEST_KUBECONFIG): the rendered manifests are applied and deleted with the real
// kubectl, and the operator runs with the cluster controller's flags and variables of the chart's
// own Deployment. A real `helm install` cannot run against the test API server: helm stores its
// release in a Secret through client-go's typed client, which speaks protobuf, a non-goal of that
// server (docs/test-apiserver.md). The sandbox install (issue 15) needs either.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { V1Container, V1Deployment, V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import { clusterControllerDefinition } from '../../../src/controllers/cluster/controller.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { eventually } from '../../support/wait.ts';
import { manifests, startOperator, testApi, type RunningOperator } from '../cluster/operator.ts';
import { kubeconfigFile, kubectl } from '../../support/kubectl.ts';
import { CHART, only, render, toYaml } from './helm.ts';

const CLUSTER_FLAGS = new Set(Object.values(clusterControllerDefinition.settings ?? {}).map((s) => s.flag));
const CLUSTER_VARS = new Set(Object.values(clusterControllerDefinition.settings ?? {}).map((s) => s.env));

/** The cluster controller's part of the chart's operator container: the flags and variables that shape the database pods. */
function clusterConfig(docs: KubeObject[]): { argv: string[]; env: Record<string, string> } {
  const c = only<V1Deployment>(docs, 'Deployment').spec!.template.spec!.containers[0] as V1Container;
  const argv = c.args!.filter((a) => CLUSTER_FLAGS.has(a.replace(/^--/, '').split('=')[0]!));
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (!CLUSTER_VARS.has(e.name)) continue;
    const ref = e.valueFrom?.secretKeyRef;
    const secret = ref && only<V1Secret & KubeObject>(docs, 'Secret', (s) => s.metadata!.name === ref.name);
    env[e.name] = secret ? Buffer.from(secret.data![ref.key]!, 'base64').toString() : e.value!;
  }
  return { argv, env };
}

test('install, an upgrade changing an operator flag, and uninstall: the operator rolls, no database pod changes, the clusters stay', async (t) => {
  const { env, namespace: ns, client } = await testApi(t);
  const dir = mkdtempSync(join(tmpdir(), 'chart-life-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = kubeconfigFile(env.kubeConfig, dir);
  // One namespace holds the release and its clusters, so a real cluster keeps nothing after the test.
  // A real `helm upgrade` keeps the generated password (lookup); `helm template` has no cluster to look in.
  const set = [`watchNamespace=${ns}`, 'orchestrator.topologyPassword=kept-by-lookup'];
  const release = (extra: string[] = []) => render({ namespace: ns, set: [...set, ...extra] });
  let op: RunningOperator | undefined;
  t.after(() => op?.stop());

  const v1 = release();
  const installed = await kubectl(kubeconfig, ['apply', '-n', ns, '-f', '-'], toYaml(v1));
  assert.equal(installed.status, 0, installed.stderr);
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: only(v1, 'Deployment').metadata!.name! };
  const before = await client.get<V1Deployment & KubeObject>(deployment);

  const c1 = clusterConfig(v1);
  op = await startOperator(env.kubeConfig, ns, c1.argv, c1.env);
  for (const obj of manifests(new URL('../../../examples/mysqlcluster.yaml', import.meta.url), ns)) await client.create(obj);
  const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: ns, name: 'my-db-mysql' };
  await op.reconciles.settled([`${ns}/my-db`], op.reconciles.mark(), 2);
  const db = await eventually('the database StatefulSet', () => client.get<V1StatefulSet & KubeObject>(sts));
  await op.stop();

  await t.test("upgrade: the CRDs first, as chart/README.md says (helm does not upgrade crds/)", async () => {
    const r = await kubectl(kubeconfig, ['apply', '--server-side', '--force-conflicts', '-f', `${CHART}/crds/`]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 4, r.stdout);
  });

  await t.test('upgrade: the changed flag changes the operator pod template (a rollout)', async () => {
    const v2 = release(['extraArgs={--workers=8}']);
    const upgraded = await kubectl(kubeconfig, ['apply', '-n', ns, '-f', '-'], toYaml(v2));
    assert.equal(upgraded.status, 0, upgraded.stderr);
    const after = await client.get<V1Deployment & KubeObject>(deployment);
    assert.equal(after.metadata!.generation, before.metadata!.generation! + 1);
    assert.ok(after.spec!.template.spec!.containers[0]!.args!.includes('--workers=8'));
    assert.deepEqual(clusterConfig(v2), c1, 'the flags that shape database pods are the same');

    op = await startOperator(env.kubeConfig, ns, clusterConfig(v2).argv, clusterConfig(v2).env);
    await op.reconciles.settled([`${ns}/my-db`], op.reconciles.mark(), 2);
    const now = await client.get<V1StatefulSet & KubeObject>(sts);
    assert.equal(now.metadata!.generation, db.metadata!.generation, 'the restarted operator renders the same pod template');
    assert.equal(now.metadata!.resourceVersion, db.metadata!.resourceVersion);
    await op.stop();
    op = undefined;
  });

  await t.test('uninstall: the release objects go, the MysqlCluster and its StatefulSet stay', async () => {
    const removed = await kubectl(kubeconfig, ['delete', '-n', ns, '--wait=false', '-f', '-'], toYaml(release(['extraArgs={--workers=8}'])));
    assert.equal(removed.status, 0, removed.stderr);
    await eventually('the operator Deployment deleted', async () => {
      try {
        await client.get(deployment);
        return false;
      } catch {
        return true;
      }
    });
    const cluster = await client.get<KubeObject & { metadata: { deletionTimestamp?: string } }>({ apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: ns, name: 'my-db' });
    assert.equal(cluster.metadata!.deletionTimestamp, undefined);
    assert.equal((await client.get<V1StatefulSet & KubeObject>(sts)).metadata!.uid, db.metadata!.uid);
  });
});
