// Acceptance of the cluster controller through the real manager against the test API server (or
// a real cluster with TEST_KUBECONFIG): the examples become every object of docs/compatibility.md; changes
// flow into them; steady state makes no writes; deletion collects what the cluster owned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap, V1PersistentVolumeClaim, V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../../src/api/index.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { AlreadyExistsError } from '../../../src/runtime/kube/errors.ts';
import { manifests, NEEDS_REQUEST_LOG, OPERATOR_AGENT, operatorTest } from './operator.ts';
import { eventually } from '../../support/wait.ts';
import { requestsNotAllowed } from '../../support/rbac.ts';

const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const ref = (kind: string, apiVersion: string, namespace: string, name: string) => ({ kind, apiVersion, namespace, name });

async function synced(client: KubeClient, namespace: string, name: string): Promise<MysqlCluster | undefined> {
  const c = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace, name });
  const cond = c.status?.conditions?.find((x) => x.type === 'Synced');
  return cond?.status === 'True' && c.status?.observedGeneration === c.metadata?.generation ? c : undefined;
}

test('the examples become their StatefulSets, Services, ConfigMaps, Secrets and PDBs; changes, steady state and deletion behave', async (t) => {
  const { env, namespace: ns, client, op } = await operatorTest(t);

  for (const file of ['mysqlcluster.yaml', 'mysqlcluster-mariadb.yaml']) {
    for (const obj of manifests(new URL(`../../../examples/${file}`, import.meta.url), ns)) await client.create(obj);
  }
  const myDb = await eventually('my-db synced', () => synced(client, ns, 'my-db'));
  await eventually('maria-db synced', () => synced(client, ns, 'maria-db'));

  await t.test('every object exists with the names of docs/compatibility.md, labels, selectors, ports and owners', async () => {
    const uid = myDb.metadata!.uid!;
    const sts = await client.get<V1StatefulSet & KubeObject>(ref('StatefulSet', 'apps/v1', ns, 'my-db-mysql'));
    assert.equal(sts.spec?.replicas, 3);
    assert.equal(sts.spec?.serviceName, 'mysql');
    assert.deepEqual(sts.spec?.selector?.matchLabels, {
      'mysql.presslabs.org/cluster': 'my-db',
      'app.kubernetes.io/name': 'mysql',
      'app.kubernetes.io/managed-by': 'mysql.presslabs.org',
    });
    assert.deepEqual(
      sts.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [['MysqlCluster', 'my-db', uid, true]],
    );
    const pod = sts.spec!.template;
    assert.equal(pod.metadata?.labels?.['app.kubernetes.io/version'], '8.0.32');
    assert.deepEqual(
      pod.spec?.initContainers?.map((c) => c.name),
      ['init', 'mysql-init-only'],
    );
    assert.deepEqual(
      pod.spec?.containers.map((c) => c.name),
      ['mysql', 'sidecar', 'metrics-exporter', 'pt-heartbeat'],
    );
    assert.equal(sts.spec?.volumeClaimTemplates?.[0]?.metadata?.name, 'data');
    assert.equal(sts.spec?.volumeClaimTemplates?.[0]?.metadata?.ownerReferences?.[0]?.uid, uid);

    const services = Object.fromEntries(
      await Promise.all(
        ['mysql', 'my-db-mysql', 'my-db-mysql-master', 'my-db-mysql-replicas'].map(
          async (n) => [n, await client.get<V1Service & KubeObject>(ref('Service', 'v1', ns, n))] as const,
        ),
      ),
    );
    assert.equal(services.mysql!.spec?.clusterIP, 'None');
    assert.equal(services.mysql!.spec?.publishNotReadyAddresses, true);
    assert.deepEqual(
      services.mysql!.spec?.ports?.map((p) => p.port),
      [3306, 9125],
    );
    assert.equal(services.mysql!.metadata?.ownerReferences, undefined, 'shared: owned by no cluster');
    assert.equal(services['my-db-mysql-master']!.spec?.selector?.role, 'master');
    assert.deepEqual(
      services['my-db-mysql-master']!.spec?.ports?.map((p) => [p.name, p.port]),
      [
        ['mysql', 3306],
        ['sidecar-http', 8080],
      ],
    );
    assert.equal(services['my-db-mysql']!.spec?.selector?.healthy, 'yes');
    assert.equal(services['my-db-mysql']!.metadata?.labels?.['mysql.presslabs.org/service-type'], 'ready-nodes');
    assert.deepEqual(
      [services['my-db-mysql-replicas']!.spec?.selector?.role, services['my-db-mysql-replicas']!.spec?.selector?.healthy],
      ['replica', 'yes'],
    );

    const cm = await client.get<V1ConfigMap & KubeObject>(ref('ConfigMap', 'v1', ns, 'my-db-mysql'));
    assert.match(cm.data?.['my.cnf'] ?? '', /^innodb_buffer_pool_size += 512M$/m);
    assert.match(cm.data?.['my.cnf'] ?? '', /^max_connections += 500$/m);
    assert.ok(cm.data?.['pre-shutdown-ha.sh']);
    const secret = await client.get<V1Secret & KubeObject>(ref('Secret', 'v1', ns, 'my-db-mysql-operated'));
    assert.equal(Object.keys(secret.data ?? {}).length, 10);
    assert.match(Buffer.from(secret.data!.OPERATOR_PASSWORD!, 'base64').toString(), /^[A-Za-z0-9]{18}$/);
    const pdb = await client.get(ref('PodDisruptionBudget', 'policy/v1', ns, 'my-db-mysql'));
    assert.equal((pdb as { spec?: { minAvailable?: string } }).spec?.minAvailable, '50%');
    const maria = await client.get<V1StatefulSet & KubeObject>(ref('StatefulSet', 'apps/v1', ns, 'maria-db-mysql'));
    assert.deepEqual(
      maria.spec?.template.spec?.initContainers?.map((c) => c.name),
      ['init'],
    );
  });

  await t.test(
    'steady state: reconciles keep running and make zero write requests',
    { skip: env.server ? false : NEEDS_REQUEST_LOG },
    async () => {
      const log = env.server!.requestLog;
      const mark = log.mark();
      // Three finished resyncs of each cluster: at least two ran wholly inside the window.
      await op.reconciles.settled([`${ns}/my-db`, `${ns}/maria-db`], op.reconciles.mark(), 3, 15_000);
      const writes = log.writes(mark).filter((e) => e.userAgent === OPERATOR_AGENT);
      assert.deepEqual(
        writes.map((w) => `${w.verb} ${w.resource}/${w.name}`),
        [],
      );
    },
  );

  await t.test('a deleted shared Service is put back', async () => {
    await client.delete(ref('Service', 'v1', ns, 'mysql'));
    await eventually('recreated', async () => (await client.getIfExists(ref('Service', 'v1', ns, 'mysql'))) !== undefined);
  });

  const stsOf = () => client.get<V1StatefulSet & KubeObject>(ref('StatefulSet', 'apps/v1', ns, 'my-db-mysql'));
  const cmOf = () => client.get<V1ConfigMap & KubeObject>(ref('ConfigMap', 'v1', ns, 'my-db-mysql'));
  const patchCluster = (spec: Record<string, unknown>) =>
    client.patch({ ...CLUSTER, namespace: ns, name: 'my-db' }, { spec }, { type: 'merge' });

  await t.test('replicas, mysqlConf, resources and podSpec changes reach the objects', async () => {
    const hashBefore = (await stsOf()).spec?.template.metadata?.annotations?.['mysql.presslabs.org/config-hash'];
    await patchCluster({ replicas: 5 });
    await eventually('replicas 5', async () => (await stsOf()).spec?.replicas === 5);
    assert.equal(
      (await stsOf()).spec?.template.metadata?.annotations?.['mysql.presslabs.org/config-hash'],
      hashBefore,
      'scaling does not roll pods',
    );

    await patchCluster({ mysqlConf: { max_connections: 900 } });
    await eventually('my.cnf updated', async () => /^max_connections += 900$/m.test((await cmOf()).data?.['my.cnf'] ?? ''));
    await eventually(
      'template hash changed',
      async () => (await stsOf()).spec?.template.metadata?.annotations?.['mysql.presslabs.org/config-hash'] !== hashBefore,
    );

    await patchCluster({ podSpec: { resources: { requests: { cpu: '1', memory: '4Gi' }, limits: { cpu: '2' } } } });
    await eventually(
      'mysql resources',
      async () => (await stsOf()).spec?.template.spec?.containers[0]?.resources?.requests?.memory === '4Gi',
    );
    const cnf = (await cmOf()).data?.['my.cnf'] ?? '';
    assert.match(cnf, /^innodb-log-file-size += 128M$/m);
    assert.match(cnf, /^innodb-buffer-pool-instances += 2$/m, 'from the CPU limit');

    await patchCluster({
      podSpec: { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'db', operator: 'Exists' }], priorityClassName: 'db' },
    });
    await eventually('scheduling fields', async () => {
      const p = (await stsOf()).spec?.template.spec;
      return p?.nodeSelector?.disk === 'ssd' && p.tolerations?.[0]?.key === 'db' && p.priorityClassName === 'db';
    });
    await patchCluster({ podSpec: { nodeSelector: null, tolerations: null } });
    await eventually('removed fields are removed', async () => {
      const p = (await stsOf()).spec?.template.spec;
      return p?.nodeSelector === undefined && p?.tolerations === undefined;
    });

    await patchCluster({ minAvailable: 2 });
    await eventually('PDB follows minAvailable', async () => {
      const pdb = await client.get(ref('PodDisruptionBudget', 'policy/v1', ns, 'my-db-mysql'));
      return (pdb as { spec?: { minAvailable?: unknown } }).spec?.minAvailable === 2;
    });
    await eventually('synced again', () => synced(client, ns, 'my-db'));
  });

  await t.test('deleting a cluster collects its objects but not the shared Service nor kept PVCs', async () => {
    const maria = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: ns, name: 'maria-db' });
    const my = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: ns, name: 'my-db' });
    const pvc = (cluster: MysqlCluster & KubeObject, i: number): V1PersistentVolumeClaim & KubeObject => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: `data-${cluster.metadata!.name}-mysql-${i}`,
        namespace: ns,
        labels: {
          'mysql.presslabs.org/cluster': cluster.metadata!.name!,
          'app.kubernetes.io/name': 'mysql',
          'app.kubernetes.io/managed-by': 'mysql.presslabs.org',
        },
        // As the StatefulSet controller copies it from the claim template.
        ownerReferences: [
          {
            apiVersion: CLUSTER.apiVersion,
            kind: 'MysqlCluster',
            name: cluster.metadata!.name!,
            uid: cluster.metadata!.uid!,
            controller: true,
          },
        ],
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    // A real StatefulSet controller may have made these claims already (no owner references in v1.26).
    const ensure = (claim: V1PersistentVolumeClaim & KubeObject) =>
      client.create(claim).catch((e: unknown) => {
        if (!(e instanceof AlreadyExistsError)) throw e;
      });
    await ensure(pvc(my, 0));
    await ensure(pvc(maria, 0));
    // my-db keeps its data after deletion; its existing PVC loses the owner reference.
    await patchCluster({ volumeSpec: { keepAfterDelete: true } });
    await eventually('PVC released', async () => {
      const p = await client.get<V1PersistentVolumeClaim & KubeObject>(ref('PersistentVolumeClaim', 'v1', ns, 'data-my-db-mysql-0'));
      return !p.metadata?.ownerReferences?.length;
    });

    const shared = await client.get(ref('Service', 'v1', ns, 'mysql'));
    const mark = op.reconciles.mark();
    await client.delete({ ...CLUSTER, namespace: ns, name: 'my-db' });
    for (const [kind, apiVersion, name] of [
      ['StatefulSet', 'apps/v1', 'my-db-mysql'],
      ['ConfigMap', 'v1', 'my-db-mysql'],
      ['Secret', 'v1', 'my-db-mysql-operated'],
      ['Service', 'v1', 'my-db-mysql'],
      ['Service', 'v1', 'my-db-mysql-master'],
      ['Service', 'v1', 'my-db-mysql-replicas'],
      ['PodDisruptionBudget', 'policy/v1', 'my-db-mysql'],
    ] as const) {
      await eventually(`${kind} ${name} collected`, async () => (await client.getIfExists(ref(kind, apiVersion, ns, name))) === undefined);
    }
    // The reconcile of the deleted cluster, the one that removes the shared Service when unused.
    await eventually('the reconcile of the deleted my-db', () =>
      op.reconciles.of(`${ns}/my-db`, mark).some((r) => r.generation === null && !r.failed),
    );
    // The same object: not deleted and put back by maria-db's next reconcile.
    const still = await client.getIfExists(ref('Service', 'v1', ns, 'mysql'));
    assert.equal(still?.metadata?.uid, shared.metadata?.uid, 'maria-db still uses the shared Service');
    assert.ok(await client.getIfExists(ref('PersistentVolumeClaim', 'v1', ns, 'data-my-db-mysql-0')), 'keepAfterDelete');

    await client.delete({ ...CLUSTER, namespace: ns, name: 'maria-db' });
    await eventually(
      'shared Service collected with the last cluster',
      async () => (await client.getIfExists(ref('Service', 'v1', ns, 'mysql'))) === undefined,
    );
    await eventually(
      'owned PVC collected',
      async () => (await client.getIfExists(ref('PersistentVolumeClaim', 'v1', ns, 'data-maria-db-mysql-0'))) === undefined,
    );
    assert.ok(await client.getIfExists(ref('PersistentVolumeClaim', 'v1', ns, 'data-my-db-mysql-0')));
  });

  await t.test(
    "every request the operator made is allowed by the chart's generated RBAC rules",
    { skip: !env.server && 'no request log on a real cluster' },
    () => {
      assert.deepEqual(requestsNotAllowed(env.server!, OPERATOR_AGENT), []);
    },
  );
});
