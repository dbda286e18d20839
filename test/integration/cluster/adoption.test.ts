// Adoption of a cluster the anchor (bitpoke mysql-operator v0.6.3) created: its objects, as the
// anchor fixtures give them, are loaded into the API before the operator starts. The operator,
// with every flag at its default, must take them over without changing a Secret value, the
// ConfigMap or the pod template (which would roll every database), and then make no writes at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { V1ConfigMap, V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controllers } from '../../../src/controllers/index.ts';
import { buildManager } from '../../../src/main.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import { quietLogger } from '../../support/in-process-operator.ts';
import { NEEDS_REQUEST_LOG, OPERATOR_AGENT, startOperator, testApi } from './operator.ts';
import { eventually } from '../../support/wait.ts';
import { requestsNotAllowed } from '../../support/rbac.ts';

const ANCHOR = new URL('../../fixtures/anchor-v0.6.3/', import.meta.url);
const ANCHOR_UID = '11111111-2222-3333-4444-555555555555';
const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };

/** A fixture object placed in the test namespace, owned by the real cluster uid. */
function fixture<T extends KubeObject>(file: string, ns: string, uid: string, vars: Record<string, string> = {}): T {
  let text = readFileSync(new URL(file, ANCHOR), 'utf8')
    .replaceAll(ANCHOR_UID, uid)
    .replaceAll('my-db.default', `my-db.${ns}`)
    .replaceAll('namespace: default', `namespace: ${ns}`);
  for (const [k, v] of Object.entries(vars)) text = text.replaceAll(k, v);
  return parse(text) as T;
}

interface AnchorObjects {
  cm: V1ConfigMap & KubeObject;
  secret: V1Secret & KubeObject;
  sts: V1StatefulSet & KubeObject;
  /** resourceVersions of the Services (by name). */
  created: Map<string, string>;
  /** The PDB as created: its status is the disruption controller's to write, so only its metadata and spec are compared. */
  pdb: KubeObject;
}

/** The anchor's sample cluster and every object the anchor made for it, as the anchor left them. */
async function loadAnchorObjects(client: KubeClient, ns: string): Promise<AnchorObjects> {
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-db-secret', namespace: ns },
    stringData: { ROOT_PASSWORD: 'r' },
  } as KubeObject);
  const { metadata: _m, ...clusterBody } = parse(readFileSync(new URL('mysqlcluster.yaml', ANCHOR), 'utf8')) as MysqlCluster & KubeObject;
  const cluster = await client.create<MysqlCluster & KubeObject>({ ...clusterBody, metadata: { name: 'my-db', namespace: ns } });
  const uid = cluster.metadata!.uid!;

  const cm = await client.create(fixture<V1ConfigMap & KubeObject>('configmap.yaml', ns, uid));
  const secret = await client.create(fixture<V1Secret & KubeObject>('secret-operated.yaml', ns, uid));
  const created = new Map<string, string>();
  for (const f of ['service-mysql.yaml', 'service-master.yaml', 'service-healthy-nodes.yaml', 'service-healthy-replicas.yaml']) {
    const o = await client.create(fixture(f, ns, uid));
    created.set(o.metadata!.name!, o.metadata!.resourceVersion!);
  }
  const pdb = await client.create(fixture('pdb.yaml', ns, uid));
  const sts = await client.create(
    fixture<V1StatefulSet & KubeObject>('statefulset.yaml', ns, uid, {
      '<CONFIGMAP_RESOURCE_VERSION>': cm.metadata!.resourceVersion!,
      '<OPERATED_SECRET_RESOURCE_VERSION>': secret.metadata!.resourceVersion!,
    }),
  );
  return { cm, secret, sts, created, pdb };
}

async function synced(client: KubeClient, ns: string): Promise<boolean | undefined> {
  const c = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: ns, name: 'my-db' });
  return c.status?.conditions?.some((x) => x.type === 'Synced' && x.status === 'True');
}

test('a cluster created by the anchor is adopted without a rollout and without changing a Secret', async (t) => {
  const { env, namespace: ns, client } = await testApi(t);

  const { cm, secret, sts, created, pdb: pdbBefore } = await loadAnchorObjects(client, ns);
  const get = <T extends KubeObject>(kind: string, apiVersion: string, name: string) =>
    client.get<T>({ kind, apiVersion, namespace: ns, name });

  // The anchor's chart install: every flag at its default, the chart's Orchestrator credentials in the variables.
  const op = await startOperator(env.kubeConfig, ns, [], { ORC_TOPOLOGY_USER: 'orchestrator', ORC_TOPOLOGY_PASSWORD: 'PlaceOrc10' });
  t.after(() => op.stop());
  await eventually('synced', () => synced(client, ns));

  await t.test('no Secret value changes, the ConfigMap is not rewritten', async () => {
    const after = await get<V1Secret & KubeObject>('Secret', 'v1', 'my-db-mysql-operated');
    assert.deepEqual(after.data, secret.data);
    assert.equal(after.metadata?.resourceVersion, secret.metadata?.resourceVersion, 'not written at all');
    const cmAfter = await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql');
    assert.equal(cmAfter.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  });

  await t.test('the pod template is unchanged (no rollout); only our bookkeeping annotation is added', async () => {
    const after = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
    assert.deepEqual(after.spec?.template, sts.spec?.template);
    assert.equal(after.metadata?.generation, sts.metadata?.generation, 'spec unchanged: no new revision');
    assert.ok(after.metadata?.annotations?.['mysql.presslabs.org/spec-hash']);
  });

  await t.test('the Services and the PDB are not written', async () => {
    for (const name of ['mysql', 'my-db-mysql', 'my-db-mysql-master', 'my-db-mysql-replicas']) {
      const s = await get<V1Service & KubeObject>('Service', 'v1', name);
      assert.equal(s.metadata?.resourceVersion, created.get(name), name);
    }
    // A real cluster's disruption controller writes the PDB's status (its resourceVersion moves):
    // what the operator would write is the object itself, which no manager but its creator owns.
    const pdb = await get('PodDisruptionBudget', 'policy/v1', 'my-db-mysql');
    type Entry = { manager?: string; subresource?: string };
    const mainOwners = (o: KubeObject) =>
      ((o.metadata as { managedFields?: Entry[] } | undefined)?.managedFields ?? []).filter((e) => e.subresource !== 'status');
    assert.deepEqual(mainOwners(pdb), mainOwners(pdbBefore), 'no write of the PDB itself');
    assert.equal(pdb.metadata?.generation, pdbBefore.metadata?.generation);
    assert.deepEqual((pdb as { spec?: unknown }).spec, (pdbBefore as { spec?: unknown }).spec);
  });

  await t.test('after adoption, steady state makes no writes', { skip: env.server ? false : NEEDS_REQUEST_LOG }, async () => {
    const log = env.server!.requestLog;
    const mark = log.mark();
    // Three finished resyncs: at least two ran wholly inside the window.
    await op.reconciles.settled([`${ns}/my-db`], op.reconciles.mark(), 3, 15_000);
    assert.deepEqual(
      log
        .writes(mark)
        .filter((e) => e.userAgent === OPERATOR_AGENT)
        .map((e) => `${e.verb} ${e.resource}/${e.name}`),
      [],
    );
  });

  await t.test('the first real config change switches the template from config_rev/secret_rev to the config hash', async () => {
    await client.patch(
      { ...CLUSTER, namespace: ns, name: 'my-db' },
      { spec: { mysqlConf: { 'max-connections': 600 } } },
      { type: 'merge' },
    );
    const after = await eventually('template switched', async () => {
      const s = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
      return s.spec?.template.metadata?.annotations?.['mysql.presslabs.org/config-hash'] ? s : undefined;
    });
    const a = after.spec!.template.metadata!.annotations!;
    assert.equal(a.config_rev, undefined);
    assert.equal(a.secret_rev, undefined);
    assert.equal(a['prometheus.io/port'], '9125');
    const secretAfter = await get<V1Secret & KubeObject>('Secret', 'v1', 'my-db-mysql-operated');
    assert.deepEqual(secretAfter.data, secret.data);
  });
});

// A default install: the operator as main builds it (loadConfig of an empty argv, buildManager,
// every controller), with only what a deployment must say: where the API is, the namespace, a free
// metrics port. No ORC_TOPOLOGY_* either: the Secret keeps the values it has.
test('a default install adopts the anchor cluster: no pod restarts, no Secret changes', async (t) => {
  const { env, namespace: ns, client } = await testApi(t);
  const { cm, secret, sts } = await loadAnchorObjects(client, ns);
  let kubeconfig = process.env.TEST_KUBECONFIG ?? '';
  if (env.server) {
    const dir = mkdtempSync(join(tmpdir(), 'adoption-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    kubeconfig = join(dir, 'kubeconfig');
    env.server.writeKubeconfig(kubeconfig);
  }
  const mark = env.server?.requestLog.mark() ?? 0;
  const loaded = loadConfig([], { KUBECONFIG: kubeconfig, WATCH_NAMESPACE: ns, METRICS_ADDR: '127.0.0.1:0' }, controllers);
  const manager = buildManager(loaded, quietLogger());
  t.after(async () => {
    await manager.stop();
    manager.client.close();
  });
  await manager.start();
  await eventually('synced', () => synced(client, ns));
  const get = <T extends KubeObject>(kind: string, apiVersion: string, name: string) =>
    client.get<T>({ kind, apiVersion, namespace: ns, name });

  const stsAfter = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
  assert.deepEqual(stsAfter.spec?.template, sts.spec?.template, "the pod template is the anchor's: no pod restarts");
  assert.equal(stsAfter.metadata?.generation, sts.metadata?.generation);
  const secretAfter = await get<V1Secret & KubeObject>('Secret', 'v1', 'my-db-mysql-operated');
  assert.deepEqual(secretAfter.data, secret.data);
  assert.equal(secretAfter.metadata?.resourceVersion, secret.metadata?.resourceVersion, 'the operated Secret is not written');
  const cmAfter = await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql');
  assert.equal(cmAfter.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  await t.test(
    "every request the operator made is allowed by the chart's generated RBAC rules",
    { skip: env.server ? false : NEEDS_REQUEST_LOG },
    () => {
      assert.deepEqual(requestsNotAllowed(env.server!, manager.client.userAgent, mark), []);
    },
  );
});

// This project's chart gives the operator Orchestrator's API credentials (docs/security.md): an
// adopted cluster gets its Secret `<c>-mysql-orc-api`, and still no rollout; its template takes
// the credentials' mount with the first real change, which rolls the pods anyway.
test("with Orchestrator's API credentials: the cluster's Secret is made, the adopted template is left alone until a real change", async (t) => {
  const { env, namespace: ns, client } = await testApi(t);
  const { cm, secret, sts } = await loadAnchorObjects(client, ns);
  const get = <T extends KubeObject>(kind: string, apiVersion: string, name: string) =>
    client.get<T>({ kind, apiVersion, namespace: ns, name });
  const dir = mkdtempSync(join(tmpdir(), 'adopt-orc-api-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'user'), 'orc-operator');
  writeFileSync(join(dir, 'password'), 'api-pw-1');
  const op = await startOperator(env.kubeConfig, ns, [`--orchestrator-credentials-dir=${dir}`], {
    ORC_TOPOLOGY_USER: 'orchestrator',
    ORC_TOPOLOGY_PASSWORD: 'PlaceOrc10',
  });
  t.after(() => op.stop());
  await eventually('synced', () => synced(client, ns));
  const apiSecret = await eventually('the API Secret', () =>
    get<V1Secret & KubeObject>('Secret', 'v1', 'my-db-mysql-orc-api').catch(() => undefined),
  );
  assert.equal(Buffer.from(apiSecret.data!.curlrc!, 'base64').toString(), 'user = "orc-operator:api-pw-1"\n');
  const after = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
  assert.deepEqual(after.spec?.template, sts.spec?.template);
  assert.equal(after.metadata?.generation, sts.metadata?.generation, 'no new revision');
  assert.equal(
    (await get<V1Secret & KubeObject>('Secret', 'v1', 'my-db-mysql-operated')).metadata?.resourceVersion,
    secret.metadata?.resourceVersion,
  );
  assert.equal(
    (await get<V1ConfigMap & KubeObject>('ConfigMap', 'v1', 'my-db-mysql')).metadata?.resourceVersion,
    cm.metadata?.resourceVersion,
  );

  await client.patch({ ...CLUSTER, namespace: ns, name: 'my-db' }, { spec: { mysqlConf: { 'max-connections': 600 } } }, { type: 'merge' });
  const rolled = await eventually('the template to take the mount', async () => {
    const s = await get<V1StatefulSet & KubeObject>('StatefulSet', 'apps/v1', 'my-db-mysql');
    return s.spec?.template.spec?.volumes?.some((v) => v.name === 'orchestrator-api') ? s : undefined;
  });
  const mysql = rolled.spec!.template.spec!.containers.find((c) => c.name === 'mysql')!;
  assert.equal(mysql.env!.find((e) => e.name === 'CURL_HOME')?.value, '/etc/mysql/orchestrator-api');
});
