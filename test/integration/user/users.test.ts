// MysqlUser and MysqlDatabase against a real MariaDB 10.11 server and the test API server (or
// TEST_KUBECONFIG): accounts on two client hosts doing exactly what was granted, revocation, host
// removal, password rotation through the Secret watch, deletion policies, hostile names, and the
// wait while the master is read-only. Client hosts are loopback source addresses (127.0.0.2,
// 127.0.0.3): MariaDB sees them as the client host.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { binlogText } from '../../support/mariadb.ts';
import { secretData } from '../../support/secrets.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER } from '../mysql-node/node-cluster.ts';
import type { MysqlUserSpec } from '../../../src/api/index.ts';
import { decideAccount } from '../../../src/controllers/user/decide-account.ts';
import { desiredUser } from '../../../src/controllers/user/desired-user.ts';
import { rbacAcrossTests } from '../../support/rbac.ts';
import { login, PROVISION_OPERATOR_AGENT, provisionEnv, ROOT, tryAs, type ProvisionEnv } from './provision-env.ts';

const HOST_A = '127.0.0.2';
const HOST_B = '127.0.0.3';
const ER_ACCESS_DENIED = 1045;
const ER_TABLEACCESS_DENIED = 1142;
const ER_DBACCESS_DENIED = 1044;

/** The chart's RBAC rules against the requests of this file's tests (the last test checks). */
const rbac = rbacAcrossTests(PROVISION_OPERATOR_AGENT, ['user controller', 'database controller']);

async function setup(
  t: TestContext,
  ...rest: Parameters<typeof provisionEnv> extends [unknown, ...infer R] ? R : never
): Promise<ProvisionEnv> {
  const env = await provisionEnv(t, ...rest);
  t.after(() => rbac.record(env.apiServer));
  return env;
}

async function createPasswordSecret(env: ProvisionEnv, name: string, password: string): Promise<void> {
  await env.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: env.ns },
    data: secretData({ PASSWORD: password }),
  } as never);
}

async function createObject(
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

const createUser = (env: ProvisionEnv, name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) =>
  createObject(env, 'MysqlUser', name, spec, annotations);
const createDatabase = (env: ProvisionEnv, name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) =>
  createObject(env, 'MysqlDatabase', name, spec, annotations);

async function hostsOf(env: ProvisionEnv, user: string): Promise<string[]> {
  return (await env.root('SELECT Host FROM mysql.user WHERE User = ? ORDER BY Host', [user])).map((r) => String(r.Host));
}

async function databaseExists(env: ProvisionEnv, name: string): Promise<boolean> {
  return (await env.root('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name])).length === 1;
}

test('a user on two hosts does exactly what was granted; a removed permission is revoked, a removed host dropped', async (t) => {
  const env = await setup(t);
  await env.root(
    'CREATE DATABASE shop; CREATE TABLE shop.items (id INT PRIMARY KEY); CREATE DATABASE audit; ' +
      'CREATE TABLE audit.log (id INT); CREATE TABLE audit.secret (id INT)',
  );
  await createPasswordSecret(env, 'app-pw', 'app-secret-1');
  await createUser(env, 'app', {
    user: 'app',
    password: { name: 'app-pw', key: 'PASSWORD' },
    allowedHosts: [HOST_A, HOST_B],
    permissions: [
      { schema: 'shop', tables: ['*'], permissions: ['SELECT', 'INSERT'] },
      { schema: 'audit', tables: ['log'], permissions: ['SELECT'] },
    ],
    resourceLimits: { MAX_USER_CONNECTIONS: 5 },
  });
  await env.waitReady('MysqlUser', 'app', 'True', 'ProvisionSucceeded');
  assert.deepEqual(await hostsOf(env, 'app'), [HOST_A, HOST_B]);
  const user = await env.client.get<KubeObject & { status?: { allowedHosts?: string[] } }>(env.ref('MysqlUser', 'app'));
  assert.deepEqual(user.status?.allowedHosts, [HOST_A, HOST_B]);

  for (const from of [HOST_A, HOST_B]) {
    const as = { user: 'app', password: 'app-secret-1', from };
    assert.equal(await tryAs(env.server, as, `INSERT INTO shop.items VALUES (${from === HOST_A ? 1 : 2})`), 0, `insert from ${from}`);
    assert.equal(await tryAs(env.server, as, 'SELECT * FROM shop.items'), 0);
    assert.equal(await tryAs(env.server, as, 'SELECT * FROM audit.log'), 0);
    assert.equal(await tryAs(env.server, as, 'DELETE FROM shop.items'), ER_TABLEACCESS_DENIED, 'DELETE was not granted');
    assert.equal(await tryAs(env.server, as, 'SELECT * FROM audit.secret'), ER_TABLEACCESS_DENIED, 'only audit.log was granted');
    assert.equal(await tryAs(env.server, as, 'CREATE DATABASE other'), ER_DBACCESS_DENIED);
  }
  const limits = await env.root("SELECT max_user_connections AS n FROM mysql.user WHERE User = 'app' AND Host = ?", [HOST_A]);
  assert.equal(Number(limits[0]?.n), 5);
  // Steady state: what the server now holds needs no change (its password hash, patterns and
  // privilege names read back as the operator wrote them), so a later pass writes nothing.
  const obj = await env.client.get<KubeObject & { spec: MysqlUserSpec }>(env.ref('MysqlUser', 'app'));
  const node = await env.server.node({ ...env.server.rootParams(), password: ROOT.password });
  const desired = desiredUser(obj.spec, node.flavour);
  assert.ok(!('refused' in desired));
  assert.deepEqual(decideAccount(desired, 'app-secret-1', await node.accounts('app'), [HOST_A, HOST_B]), []);
  // From a host that is not allowed, nobody gets in.
  assert.equal(await tryAs(env.server, { user: 'app', password: 'app-secret-1', from: '127.0.0.4' }, 'SELECT 1'), ER_ACCESS_DENIED);

  await env.client.patch(env.ref('MysqlUser', 'app'), {
    spec: { allowedHosts: [HOST_A], permissions: [{ schema: 'shop', tables: ['*'], permissions: ['SELECT'] }] },
  });
  const asA = { user: 'app', password: 'app-secret-1', from: HOST_A };
  await eventually(
    'INSERT to be revoked',
    async () => (await tryAs(env.server, asA, 'INSERT INTO shop.items VALUES (3)')) === ER_TABLEACCESS_DENIED,
    30_000,
  );
  await eventually('the account of the removed host to be dropped', async () => (await hostsOf(env, 'app')).join() === HOST_A, 30_000);
  assert.equal(await tryAs(env.server, asA, 'SELECT * FROM shop.items'), 0, 'SELECT is still granted');
  assert.equal(await tryAs(env.server, asA, 'SELECT * FROM audit.log'), ER_TABLEACCESS_DENIED, 'the removed entry is revoked');
  assert.equal(await tryAs(env.server, { ...asA, from: HOST_B }, 'SELECT 1'), ER_ACCESS_DENIED);
  await eventually('status.allowedHosts to follow', async () => {
    const u = await env.client.get<KubeObject & { status?: { allowedHosts?: string[] } }>(env.ref('MysqlUser', 'app'));
    return u.status?.allowedHosts?.join() === HOST_A;
  });
});

test('rotating the password in the Secret lets the new one in and the old one out within 10 s; the binlog holds neither password', async (t) => {
  const env = await setup(t);
  await createPasswordSecret(env, 'rot-pw', 'old-Password-7');
  await createUser(env, 'rot', { user: 'rot', password: { name: 'rot-pw', key: 'PASSWORD' }, allowedHosts: [HOST_A] });
  await env.waitReady('MysqlUser', 'rot', 'True');
  assert.equal(await tryAs(env.server, { user: 'rot', password: 'old-Password-7', from: HOST_A }, 'SELECT 1'), 0);

  // The resync period is 10 minutes here: only the Secret watch can bring the change in time.
  await env.client.patch(env.ref('Secret', 'rot-pw'), { data: secretData({ PASSWORD: "new'Password-8" }) });
  await eventually(
    'the new password to work and the old one to fail',
    async () =>
      (await tryAs(env.server, { user: 'rot', password: "new'Password-8", from: HOST_A }, 'SELECT 1')) === 0 &&
      (await tryAs(env.server, { user: 'rot', password: 'old-Password-7', from: HOST_A }, 'SELECT 1')) === ER_ACCESS_DENIED,
    10_000,
  );

  // What replicas replay, backups keep and error logs quote (flavour live: MariaDB 10.11).
  const binlog = binlogText(env.server);
  for (const pw of ['old-Password-7', 'Password-8']) assert.ok(!binlog.includes(pw), `the binlog holds ${pw}`);
  assert.match(binlog, /CREATE USER rot@'127\.0\.0\.2' IDENTIFIED BY PASSWORD '\*[0-9A-F]{40}'/);
  assert.match(binlog, /ALTER USER rot@'127\.0\.0\.2' IDENTIFIED BY PASSWORD '\*[0-9A-F]{40}'/);
});

test('deleting drops the user and the database by default, and keeps them with the retain policy', async (t) => {
  const env = await setup(t);
  await createPasswordSecret(env, 'pw', 'x-password');
  const retain = { 'mysql-operator.presslabs.org/resourceDeletionPolicy': 'retain' };
  await createUser(env, 'gone', { user: 'gone', password: { name: 'pw', key: 'PASSWORD' }, allowedHosts: [HOST_A, '%'] });
  await createUser(env, 'kept', { user: 'kept', password: { name: 'pw', key: 'PASSWORD' }, allowedHosts: [HOST_A] }, retain);
  await createDatabase(env, 'gone-db', { database: 'gone_db', characterSet: 'utf8mb4', collation: 'utf8mb4_bin' });
  await createDatabase(env, 'kept-db', { database: 'kept_db' }, retain);
  for (const [kind, name] of [
    ['MysqlUser', 'gone'],
    ['MysqlUser', 'kept'],
    ['MysqlDatabase', 'gone-db'],
    ['MysqlDatabase', 'kept-db'],
  ] as const) {
    await env.waitReady(kind, name, 'True');
  }
  const cs = await env.root(
    "SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'gone_db'",
  );
  assert.deepEqual(cs[0], { cs: 'utf8mb4', co: 'utf8mb4_bin' });

  await env.deleteAndWait('MysqlUser', 'gone');
  await env.deleteAndWait('MysqlUser', 'kept');
  await env.deleteAndWait('MysqlDatabase', 'gone-db');
  await env.deleteAndWait('MysqlDatabase', 'kept-db');
  assert.deepEqual(await hostsOf(env, 'gone'), [], 'every host of the default policy dropped');
  assert.deepEqual(await hostsOf(env, 'kept'), [HOST_A]);
  assert.equal(await databaseExists(env, 'gone_db'), false);
  assert.equal(await databaseExists(env, 'kept_db'), true);
});

test('hostile names are escaped (a schema named % grants nothing else) or refused with a condition naming the field', async (t) => {
  const env = await setup(t);
  const schema = "we'ird`db%_x; DROP DATABASE mysql; --";
  const user = `o'ne"il\`x%\\`;
  await env.root('CREATE DATABASE other; CREATE TABLE other.t (id INT)');
  await createPasswordSecret(env, 'h-pw', "pa'ss\\word");
  await createDatabase(env, 'weird', { database: schema });
  await createUser(env, 'hostile', {
    user,
    password: { name: 'h-pw', key: 'PASSWORD' },
    allowedHosts: [HOST_A],
    permissions: [{ schema, tables: ['*'], permissions: ['ALL'] }],
  });
  await env.waitReady('MysqlDatabase', 'weird', 'True');
  await env.waitReady('MysqlUser', 'hostile', 'True');
  assert.equal(await databaseExists(env, schema), true);
  assert.equal(await databaseExists(env, 'mysql'), true);
  const who = { user, password: "pa'ss\\word", from: HOST_A };
  const quoted = `\`${schema.replaceAll('`', '``')}\``;
  assert.equal(await tryAs(env.server, who, `CREATE TABLE ${quoted}.t (id INT)`), 0, 'ALL on its schema');
  assert.equal(await tryAs(env.server, who, 'SELECT * FROM other.t'), ER_TABLEACCESS_DENIED, '% in the schema name is no wildcard');

  // MariaDB's longest user name is accepted; one more character is refused before anything runs,
  // as is a privilege that is SQL.
  await createUser(env, 'longest', { user: 'v'.repeat(80), password: { name: 'h-pw', key: 'PASSWORD' }, allowedHosts: [HOST_A] });
  await env.waitReady('MysqlUser', 'longest', 'True');
  assert.deepEqual(await hostsOf(env, 'v'.repeat(80)), [HOST_A]);
  await createUser(env, 'too-long', { user: 'u'.repeat(81), password: { name: 'h-pw', key: 'PASSWORD' }, allowedHosts: [HOST_A] });
  const long = await env.waitReady('MysqlUser', 'too-long', 'False', 'InvalidSpec');
  assert.match(long.message ?? '', /^spec\.user "u+" is longer than 80 characters$/);
  await createUser(env, 'injection', {
    user: 'inj',
    password: { name: 'h-pw', key: 'PASSWORD' },
    allowedHosts: [HOST_A],
    permissions: [{ schema: 'other', tables: ['*'], permissions: ['SELECT ON *.* TO inj; --'] }],
  });
  const inj = await env.waitReady('MysqlUser', 'injection', 'False', 'InvalidSpec');
  assert.match(inj.message ?? '', /^spec\.permissions\[0\]\.permissions\[0\] /);
  assert.deepEqual(await hostsOf(env, 'inj'), [], 'nothing ran for a refused spec');
  assert.deepEqual(await hostsOf(env, 'u'.repeat(80)), []);
});

test('while the master is read-only nothing is written and the condition says why; then it applies', async (t) => {
  const env = await setup(t);
  await env.root('SET GLOBAL read_only = 1');
  await createPasswordSecret(env, 'w-pw', 'w-password');
  await createUser(env, 'waiting', { user: 'waiting', password: { name: 'w-pw', key: 'PASSWORD' }, allowedHosts: [HOST_A] });
  await createDatabase(env, 'waiting-db', { database: 'waiting_db' });
  const c = await env.waitReady('MysqlUser', 'waiting', 'False', 'MasterReadOnly');
  assert.match(c.message ?? '', /read-only/);
  await env.waitReady('MysqlDatabase', 'waiting-db', 'False', 'MasterReadOnly');
  assert.deepEqual(await hostsOf(env, 'waiting'), []);
  assert.equal(await databaseExists(env, 'waiting_db'), false);

  await env.root('SET GLOBAL read_only = 0');
  await env.waitReady('MysqlUser', 'waiting', 'True');
  await env.waitReady('MysqlDatabase', 'waiting-db', 'True');
  assert.equal(await databaseExists(env, 'waiting_db'), true);
  const conn = await login(env.server, 'waiting', 'w-password', HOST_A);
  await conn.end();
});

test('a clusterRef to another namespace is refused unless the flag allows it', async (t) => {
  const env = await setup(t);
  await createPasswordSecret(env, 'x-pw', 'x-password');
  await env.client.create({
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlUser',
    metadata: { name: 'elsewhere', namespace: env.ns },
    spec: {
      clusterRef: { name: CLUSTER, namespace: 'kube-system' },
      user: 'elsewhere',
      password: { name: 'x-pw', key: 'PASSWORD' },
      allowedHosts: ['%'],
    },
  } as never);
  const c = await env.waitReady('MysqlUser', 'elsewhere', 'False', 'CrossNamespaceRefused');
  assert.match(c.message ?? '', /--allow-cross-namespace-user/);
  const obj = await env.client.get(env.ref('MysqlUser', 'elsewhere'));
  assert.deepEqual(obj.metadata?.finalizers ?? [], [], 'no finalizer for an object the operator will not act on');
});

test('with --allow-cross-namespace-user, a MysqlUser in another namespace provisions the cluster its clusterRef names, and deleting it drops the account', async (t) => {
  const env = await setup(t, ['--allow-cross-namespace-user'], { WATCH_NAMESPACE: '' });
  const apps = `${env.ns}-apps`;
  await env.client.create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: apps, labels: { 'mysql-operator-test': 'true' } },
  } as never);
  // Deleted here, not in an after hook: those run once the test API server has stopped.
  try {
    await env.client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'x-pw', namespace: apps },
      data: secretData({ PASSWORD: 'x-password' }),
    } as never);
    const ref = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlUser', namespace: apps, name: 'elsewhere' };
    await env.client.create({
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, namespace: apps },
      spec: {
        clusterRef: { name: CLUSTER, namespace: env.ns },
        user: 'elsewhere',
        password: { name: 'x-pw', key: 'PASSWORD' },
        allowedHosts: [HOST_A],
      },
    } as never);
    await eventually(
      'the MysqlUser Ready',
      async () => {
        const u = await env.client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(ref);
        return u.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      },
      60_000,
    );
    assert.equal(await tryAs(env.server, { user: 'elsewhere', password: 'x-password', from: HOST_A }, 'SELECT 1'), 0);
    await env.client.delete(ref);
    await eventually('the MysqlUser gone', async () => (await env.client.getIfExists(ref)) === undefined, 60_000);
    assert.deepEqual(await hostsOf(env, 'elsewhere'), []);
  } finally {
    await env.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: apps });
  }
});

test("the chart's RBAC rules allow every request of the tests above, and the user and database controllers use each of their grants", (t) =>
  rbac.check(t));
