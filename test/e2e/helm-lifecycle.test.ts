// End to end on the sandbox (issue 15): the chart installed with the real `helm install` runs the
// operator from its own Deployment, and the example cluster becomes Ready; `helm upgrade` changing
// an operator flag replaces the operator's pod and no database pod; `helm uninstall` leaves the
// clusters running and serving. Flavour: MariaDB (the local mariadbd). One sandbox for the file.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { LABEL_APP_COMPONENT, LABEL_APP_INSTANCE, LABEL_CLUSTER } from '../../src/api/constants.ts';
import { names } from '../../src/api/names.ts';
import type { KubeObject } from '../../src/runtime/kube/types.ts';
import { waitForClusterReady } from '../../sandbox/cluster-view.ts';
import { chartInstallArgs, podReady, RELEASE, SANDBOX_CHART_VALUES, startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { applyMariaDBExample, printSandboxOnFailure, sandboxSkip, sqlThroughService, type ExampleCluster } from '../support/sandbox.ts';
import { eventually } from '../support/wait.ts';

const OPERATOR_PODS = `${LABEL_APP_INSTANCE}=${RELEASE.name},${LABEL_APP_COMPONENT}=operator`;

describe('helm install, upgrade and uninstall of chart/ on the sandbox', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-helm-'));
  let sb: Sandbox;
  let c: ExampleCluster;

  const operatorPods = async (): Promise<V1Pod[]> =>
    (
      await sb.client.list<V1Pod & KubeObject>(
        { apiVersion: 'v1', kind: 'Pod' },
        { namespace: RELEASE.namespace, labelSelector: OPERATOR_PODS },
      )
    ).items;
  const databasePods = async (): Promise<{ name: string; uid: string; restarts: number[]; ready: boolean }[]> => {
    const pods = await sb.client.list<V1Pod & KubeObject>(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: c.namespace, labelSelector: `${LABEL_CLUSTER}=${c.name}` },
    );
    return pods.items
      .map((p) => ({
        name: p.metadata!.name!,
        uid: p.metadata!.uid!,
        restarts: (p.status?.containerStatuses ?? []).map((s) => s.restartCount),
        ready: podReady(p),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  };
  const deployment = () =>
    sb.client.get<V1Deployment & KubeObject>({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: RELEASE.namespace,
      name: RELEASE.name,
    });
  /** The cluster controller's successful reconciles, from the operator pod's own /metrics. */
  const clusterReconciles = async (pod: V1Pod): Promise<number> => {
    const text = await (await fetch(`http://${pod.status!.podIP}:8080/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('controller_reconcile_total{') && l.includes('controller="cluster"') && l.includes('result="success"'));
    return Number(line?.split(' ').pop() ?? 0);
  };

  before(async () => {
    sb = await startSandbox({ workDir });
    await sb.ready;
    c = await applyMariaDBExample(sb, 2);
  });
  after(() => sb?.stop());
  printSandboxOnFailure(() => sb);

  it("helm install: the operator runs from the chart's Deployment as rendered, and the example cluster becomes Ready", async () => {
    const listed = await sb.helm(['list', '--namespace', RELEASE.namespace, '--output', 'json']);
    assert.ok(listed.ok, listed.out);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { name: string; status: string }[]).map((r) => [r.name, r.status]),
      [[RELEASE.name, 'deployed']],
    );
    const rendered = (await deployment()).spec!.template.spec!;
    const [pod] = (await operatorPods()).filter(podReady);
    assert.ok(pod, 'a Ready operator pod');
    assert.equal(pod.spec!.serviceAccountName, rendered.serviceAccountName);
    assert.deepEqual(pod.spec!.containers[0]!.args, rendered.containers[0]!.args);
    assert.deepEqual(pod.spec!.containers[0]!.readinessProbe, rendered.containers[0]!.readinessProbe);
    const view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: 300_000 });
    assert.equal(view.pods.length, 2);
  });

  it('helm upgrade with a changed operator flag replaces the operator pod and restarts no database pod', async () => {
    const [old] = (await operatorPods()).filter(podReady);
    const databases = await databasePods();
    assert.ok(
      databases.every((p) => p.ready),
      JSON.stringify(databases),
    );
    const generation = (await deployment()).metadata!.generation!;

    const upgraded = await sb.helm(chartInstallArgs('upgrade', [...SANDBOX_CHART_VALUES, 'extraArgs={--workers=8}']));
    assert.ok(upgraded.ok, upgraded.out);
    assert.equal((await deployment()).metadata!.generation, generation + 1, "the flag changed the operator's pod template");

    const replacement = await eventually(
      'a new operator pod with --workers=8, Ready, the old one gone',
      async () => {
        const pods = await operatorPods();
        const now = pods.find((p) => p.metadata!.uid !== old!.metadata!.uid && podReady(p));
        return now && !pods.some((p) => p.metadata!.uid === old!.metadata!.uid) && now.spec!.containers[0]!.args!.includes('--workers=8')
          ? now
          : undefined;
      },
      180_000,
    );
    // The new operator has taken the Lease and reconciled the cluster: had it rendered another pod
    // template, the StatefulSet would now be rolling.
    await eventually('the new operator reconciled the cluster', async () => (await clusterReconciles(replacement)) > 0, 120_000);
    assert.deepEqual(await databasePods(), databases, 'the same database pods (uids), not restarted, still Ready');
  });

  it('helm uninstall removes the operator and leaves the cluster running and serving', async () => {
    const databases = await databasePods();
    const removed = await sb.helm(['uninstall', RELEASE.name, '--namespace', RELEASE.namespace]);
    assert.ok(removed.ok, removed.out);
    await eventually("the operator's pods gone", async () => (await operatorPods()).length === 0, 120_000);
    assert.deepEqual(await databasePods(), databases, 'the database pods keep running');
    await sqlThroughService(
      sb,
      c,
      names.masterService(c.name),
      'CREATE DATABASE helm_gone; CREATE TABLE helm_gone.t (id INT PRIMARY KEY); INSERT INTO helm_gone.t VALUES (1)',
    );
    await eventually('the row read through the replicas Service', async () => {
      const rows = await sqlThroughService(sb, c, names.replicasService(c.name), 'SELECT COUNT(*) AS n FROM helm_gone.t');
      return Number(rows[0]?.n) === 1;
    });
  });
});
