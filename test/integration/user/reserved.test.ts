// What a MysqlUser or MysqlDatabase may not touch, against a real MariaDB 10.11 server and the
// test API server (or TEST_KUBECONFIG): a MysqlUser named root leaves root's password and grants
// as they were, and deleting it drops nothing; a MysqlDatabase named mysql drops nothing when
// deleted; a schema that existed before its MysqlDatabase is kept when the object is deleted;
// a second MysqlUser claiming one account is refused and its deletion drops nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { secretData } from '../../support/secrets.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER } from '../mysql-node/node-cluster.ts';
import { provisionEnv, ROOT, tryAs, type ProvisionEnv } from './provision-env.ts';

const HOST_A = '127.0.0.2';

async function create(
  env: ProvisionEnv,
  kind: 'MysqlUser' | 'MysqlDatabase',
  name: string,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
): Promise<void> {
  await env.client.create({
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind,
    metadata: { name, namespace: env.ns, ...(annotations ? { annotations } : {}) },
    spec: { clusterRef: { name: CLUSTER }, ...spec },
  } as never);
}

async function passwordSecret(env: ProvisionEnv, name: string, password: string): Promise<void> {
  await env.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: env.ns },
    data: secretData({ PASSWORD: password }),
  } as never);
}

/** Every account of `user` with its password hash, global privileges (MariaDB's mysql.global_priv) and schema/table grants: what must not change. */
async function accountState(env: ProvisionEnv, user: string): Promise<string> {
  const accounts = await env.root('SELECT Host, Priv FROM mysql.global_priv WHERE User = ? ORDER BY Host', [user]);
  const db = await env.root('SELECT * FROM mysql.db WHERE User = ? ORDER BY Host, Db', [user]);
  const tables = await env.root(
    'SELECT Host, Db, Table_name, Table_priv FROM mysql.tables_priv WHERE User = ? ORDER BY Host, Db, Table_name',
    [user],
  );
  assert.ok(accounts.length > 0, `${user} has accounts`);
  return JSON.stringify({ accounts, db, tables });
}

/** The reasons of the Events about one object. */
async function eventReasons(env: ProvisionEnv, kind: string, name: string): Promise<string[]> {
  const events = await env.client.list<KubeObject & { reason?: string; involvedObject?: { kind?: string; name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: env.ns },
  );
  return events.items.filter((e) => e.involvedObject?.kind === kind && e.involvedObject?.name === name).map((e) => e.reason ?? '');
}

async function schemaExists(env: ProvisionEnv, name: string): Promise<boolean> {
  return (await env.root('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name])).length === 1;
}

test('a MysqlUser named root is refused naming spec.user: root keeps its password and grants, and deleting the object drops nothing', async (t) => {
  const env = await provisionEnv(t);
  await env.root('CREATE DATABASE shop');
  const before = await accountState(env, 'root');
  await passwordSecret(env, 'root-pw', 'Taken-Over-1');
  await create(env, 'MysqlUser', 'root', {
    user: 'root',
    password: { name: 'root-pw', key: 'PASSWORD' },
    allowedHosts: ['127.0.0.1', 'localhost', '%'],
    permissions: [{ schema: 'shop', tables: ['*'], permissions: ['SELECT'] }],
  });
  const c = await env.waitReady('MysqlUser', 'root', 'False', 'ReservedName');
  assert.match(c.message ?? '', /^spec\.user "root" is the server's administrator account/);
  await eventually('the ReservedName Event', async () => (await eventReasons(env, 'MysqlUser', 'root')).includes('ReservedName'), 30_000);

  await env.deleteAndWait('MysqlUser', 'root');
  assert.equal(await accountState(env, 'root'), before, "root's accounts, password hashes and grants are as they were");
  assert.equal(
    await tryAs(env.server, { user: 'root', password: ROOT.password, from: '127.0.0.1' }, 'SELECT 1'),
    0,
    "root's password still logs in",
  );
  assert.notEqual(await tryAs(env.server, { user: 'root', password: 'Taken-Over-1', from: '127.0.0.1' }, 'SELECT 1'), 0);
  assert.ok((await eventReasons(env, 'MysqlUser', 'root')).includes('Retained'), 'the deletion says it kept everything');
});

test('a MysqlDatabase named mysql is refused and deleting it drops nothing; a schema that existed before is adopted and kept, one the object made is dropped', async (t) => {
  const env = await provisionEnv(t);
  await env.root('CREATE DATABASE legacy; CREATE TABLE legacy.orders (id INT PRIMARY KEY); INSERT INTO legacy.orders VALUES (1)');
  await create(env, 'MysqlDatabase', 'system', { database: 'mysql' });
  await create(env, 'MysqlDatabase', 'legacy', { database: 'legacy' });
  await create(env, 'MysqlDatabase', 'fresh', { database: 'fresh' });
  const c = await env.waitReady('MysqlDatabase', 'system', 'False', 'ReservedName');
  assert.match(c.message ?? '', /^spec\.database "mysql" is a schema of the server or of the operator/);
  await env.waitReady('MysqlDatabase', 'legacy', 'True');
  await env.waitReady('MysqlDatabase', 'fresh', 'True');
  const adopted = async (name: string) =>
    (await env.client.get<KubeObject & { status?: { adopted?: boolean } }>(env.ref('MysqlDatabase', name))).status?.adopted;
  assert.equal(await adopted('legacy'), true);
  assert.equal(await adopted('fresh'), false);

  await env.deleteAndWait('MysqlDatabase', 'system');
  await env.deleteAndWait('MysqlDatabase', 'legacy');
  await env.deleteAndWait('MysqlDatabase', 'fresh');
  assert.equal(await schemaExists(env, 'mysql'), true);
  assert.ok(((await env.root('SELECT COUNT(*) AS n FROM mysql.user'))[0]!.n as number) > 0, 'the grant tables are still there');
  assert.deepEqual(await env.root('SELECT id FROM legacy.orders'), [{ id: 1 }], 'the adopted schema is kept, with its data');
  assert.equal(await schemaExists(env, 'fresh'), false, 'the schema the object made is dropped (default policy)');
});

test('a second MysqlUser claiming one account is refused, and deleting it drops nothing; the first keeps the account', async (t) => {
  const env = await provisionEnv(t);
  // Named against the order of creation: the creation time decides, not the name.
  await passwordSecret(env, 'pw', 'First-Pw-1');
  await passwordSecret(env, 'pw2', 'Second-Pw-2');
  const spec = (secret: string) => ({ user: 'app', password: { name: secret, key: 'PASSWORD' }, allowedHosts: [HOST_A] });
  await create(env, 'MysqlUser', 'zz-first', spec('pw'));
  await env.waitReady('MysqlUser', 'zz-first', 'True');
  // creationTimestamp has whole seconds: the second object must come in a later one, or the name decides.
  const created = (await env.client.get<KubeObject & { metadata: { creationTimestamp?: string } }>(env.ref('MysqlUser', 'zz-first')))
    .metadata.creationTimestamp!;
  await eventually("a second after the first object's creation", async () => Date.now() >= Date.parse(created) + 1000, 5000);
  await create(env, 'MysqlUser', 'aa-second', spec('pw2'));
  const c = await env.waitReady('MysqlUser', 'aa-second', 'False', 'AlreadyClaimed');
  assert.match(
    c.message ?? '',
    new RegExp(
      `^account app@${HOST_A.replaceAll('.', '\\.')} of MysqlCluster ${env.ns}/${CLUSTER} is already claimed by ${env.ns}/zz-first`,
    ),
  );
  await env.deleteAndWait('MysqlUser', 'aa-second');
  assert.equal(
    await tryAs(env.server, { user: 'app', password: 'First-Pw-1', from: HOST_A }, 'SELECT 1'),
    0,
    "the first object's account and password stand",
  );
  await env.deleteAndWait('MysqlUser', 'zz-first');
  assert.deepEqual(
    await env.root("SELECT Host FROM mysql.user WHERE User = 'app'"),
    [],
    'the account the first object made is dropped with it',
  );
});
