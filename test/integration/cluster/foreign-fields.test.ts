// What other tools put on the objects the operator updates stays there. The informer caches hold
// projections without the `kubectl apply` annotation (docs/runtime.md, "What the caches hold"), so
// the operator must send its updates from the server's whole object, never from a cached copy.
// Objects made with real kubectl (client-side apply) before and after the operator took them over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { V1ConfigMap, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { LAST_APPLIED_ANNOTATION } from '../../../src/runtime/projection.ts';
import { startOperator, testApi } from './operator.ts';
import { eventually } from '../../support/wait.ts';

const KUBECTL = fileURLToPath(new URL('../../../.tools/bin/kubectl', import.meta.url));
const SKIP = existsSync(KUBECTL) ? false : 'kubectl not installed (scripts/install-deps.sh)';
const run = promisify(execFile);
const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const TEAM = 'team.example.com/owner';

// The cluster's ConfigMap and master Service as someone applied them before the cluster existed.
const PRE_APPLIED = `apiVersion: v1
kind: ConfigMap
metadata:
  name: my-db-mysql
  labels: {${TEAM}: dba}
data:
  my.cnf: "[mysqld]"
---
apiVersion: v1
kind: Service
metadata:
  name: my-db-mysql-master
  labels: {${TEAM}: dba}
spec:
  selector: {app: other}
  ports:
  - {name: mysql, port: 3306}
`;

// Applied to the operator's StatefulSet afterwards: only a label (kubectl merges it in).
const STS_LABEL = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: my-db-mysql
  labels: {${TEAM}: dba}
`;

test('a kubectl-applied object keeps its last-applied annotation and a foreign label through the operator updates', {
  skip: SKIP,
}, async (t) => {
  const { env, namespace: ns, client } = await testApi(t);
  const dir = mkdtempSync(join(tmpdir(), 'foreign-fields-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = process.env.TEST_KUBECONFIG ?? join(dir, 'kubeconfig');
  if (env.server) env.server.writeKubeconfig(kubeconfig);
  const kubectl = async (...args: string[]) =>
    (await run(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--namespace', ns, ...args], { timeout: 30_000 }))
      .stdout;
  const apply = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return kubectl('apply', '--validate=false', '-f', join(dir, name));
  };
  const get = <T extends KubeObject>(kind: string, apiVersion: string, name: string) =>
    client.get<T>({ kind, apiVersion, namespace: ns, name });
  const foreignKept = (o: KubeObject, what: string) => {
    assert.ok(o.metadata?.annotations?.[LAST_APPLIED_ANNOTATION], `${what}: kubectl's last-applied annotation kept`);
    assert.equal(o.metadata?.labels?.[TEAM], 'dba', `${what}: foreign label kept`);
  };

  await apply('pre.yaml', PRE_APPLIED);
  const cmBefore = await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql');
  const svcBefore = await get<V1Service & KubeObject>('Service', 'v1', 'my-db-mysql-master');
  foreignKept(cmBefore, 'applied ConfigMap');
  foreignKept(svcBefore, 'applied Service');

  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-db-secret', namespace: ns },
    stringData: { ROOT_PASSWORD: 'r' },
  } as KubeObject);
  const cluster = await client.create<MysqlCluster & KubeObject>({
    ...CLUSTER,
    metadata: { name: 'my-db', namespace: ns },
    spec: { replicas: 1, secretName: 'my-db-secret' },
  });
  const op = await startOperator(env.kubeConfig, ns);
  t.after(() => op.stop());
  const owned = (o: KubeObject) => o.metadata?.ownerReferences?.some((r) => r.uid === cluster.metadata?.uid);

  await t.test('taking over the applied ConfigMap and Service: our data, selector and owner; their annotation and label', async () => {
    const cm = await eventually('ConfigMap taken over', async () => {
      const o = await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql');
      return owned(o) ? o : undefined;
    });
    assert.notEqual(cm.data?.['my.cnf'], '[mysqld]', 'the operator wrote its my.cnf');
    foreignKept(cm, 'ConfigMap');
    const svc = await eventually('Service taken over', async () => {
      const o = await get<V1Service & KubeObject>('Service', 'v1', 'my-db-mysql-master');
      return owned(o) ? o : undefined;
    });
    assert.equal(svc.spec?.selector?.role, 'master');
    assert.equal(svc.spec?.selector?.app, undefined);
    assert.equal(svc.spec?.clusterIP, svcBefore.spec?.clusterIP, 'server-assigned clusterIP kept');
    foreignKept(svc, 'Service');
  });

  await t.test('later updates of the StatefulSet and ConfigMap keep what kubectl added', async () => {
    await eventually('StatefulSet created', () => get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql'));
    await apply('sts.yaml', STS_LABEL);
    const stsBefore = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
    foreignKept(stsBefore, 'applied StatefulSet');
    const cmBefore = await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql');

    const cur = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: ns, name: 'my-db' });
    await client.update({ ...cur, spec: { ...cur.spec, replicas: 2, mysqlConf: { max_connections: 321 } } });

    const sts = await eventually('StatefulSet updated', async () => {
      const o = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
      return o.spec?.replicas === 2 ? o : undefined;
    });
    foreignKept(sts, 'StatefulSet');
    assert.deepEqual(sts.spec?.volumeClaimTemplates, stsBefore.spec?.volumeClaimTemplates);
    const cm = await eventually('ConfigMap updated', async () => {
      const o = await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql');
      return /max_connections += 321/.test(o.data?.['my.cnf'] ?? '') ? o : undefined;
    });
    assert.notEqual(cm.metadata?.resourceVersion, cmBefore.metadata?.resourceVersion);
    foreignKept(cm, 'ConfigMap');
  });
});
