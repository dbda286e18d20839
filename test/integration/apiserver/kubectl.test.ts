// Real kubectl (v1.33, .tools/bin/kubectl) against the test API server (or TEST_KUBECONFIG):
// apply (client-side and --server-side), get with server-side printing, describe, scale,
// get -w, delete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { startApiServer } from '../../../sandbox/apiserver/index.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { MYSQL_GROUP, raw } from './helpers.ts';
import { eventually } from '../../support/wait.ts';

const KUBECTL = fileURLToPath(new URL('../../../.tools/bin/kubectl', import.meta.url));
const run = promisify(execFile);

async function kubectlFor(t: Parameters<typeof kubeEnv>[0]) {
  const env = await kubeEnv(t);
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = process.env.TEST_KUBECONFIG ?? join(dir, 'kubeconfig');
  if (env.server) env.server.writeKubeconfig(kubeconfig);
  const args = (extra: string[]) => ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--namespace', env.namespace, ...extra];
  const kubectl = async (...extra: string[]) => (await run(KUBECTL, args(extra), { timeout: 30_000 })).stdout;
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  return { env, kubectl, file, args };
}

const CLUSTER = (replicas: number) => `apiVersion: mysql.presslabs.org/v1alpha1
kind: MysqlCluster
metadata:
  name: c1
spec:
  secretName: c1-secret
  replicas: ${replicas}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  my.cnf: "[mysqld]"
`;

const STS = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 1
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: mysql
        image: mysql:8
`;

const SKIP = existsSync(KUBECTL) ? false : 'kubectl not installed (scripts/install-deps.sh)';

test('kubectl apply (client-side, then --server-side), get with printer columns, describe', { skip: SKIP }, async (t) => {
  const { kubectl, file } = await kubectlFor(t);
  const manifest = file('c1.yaml', CLUSTER(2));
  assert.match(await kubectl('apply', '-f', manifest), /mysqlcluster\.mysql\.presslabs\.org\/c1 created\nconfigmap\/cfg created/);
  const table = await kubectl('get', 'mysql');
  assert.match(table, /^NAME\s+READY\s+REPLICAS\s+AGE\nc1\s+2\s+\d+s\n$/);
  assert.match(await kubectl('get', 'mysqlclusters', 'c1', '-o', 'jsonpath={.metadata.annotations}'), /last-applied-configuration/);
  writeFileSync(manifest, CLUSTER(3));
  assert.match(await kubectl('apply', '-f', manifest), /c1 configured/);
  assert.equal(await kubectl('get', 'mysql', 'c1', '-o', 'jsonpath={.spec.replicas}'), '3');
  assert.match(await kubectl('apply', '--server-side', '-f', manifest), /c1 serverside-applied/);
  const managers = await kubectl('get', 'mysql', 'c1', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].manager}');
  assert.match(managers, /kubectl/);
  const described = await kubectl('describe', 'mysql', 'c1');
  assert.match(described, /Name:\s+c1/);
  assert.match(described, /Secret Name:\s+c1-secret/);
  assert.match(await kubectl('get', 'cm', 'cfg'), /^NAME\s+DATA\s+AGE\ncfg\s+1\s+/);
});

test('kubectl scale changes spec.replicas through the scale subresource', { skip: SKIP }, async (t) => {
  const { env, kubectl, file } = await kubectlFor(t);
  await kubectl('apply', '-f', file('c1.yaml', CLUSTER(1)), '-f', file('sts.yaml', STS));
  assert.match(await kubectl('scale', 'mysql', 'c1', '--replicas=4'), /scaled/);
  assert.match(await kubectl('scale', 'statefulset', 'db', '--replicas=3'), /scaled/);
  const co = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const c1 = (await co.getNamespacedCustomObject({ ...MYSQL_GROUP, namespace: env.namespace, name: 'c1' })) as {
    spec: { replicas: number };
  };
  assert.equal(c1.spec.replicas, 4);
  assert.match(await kubectl('get', 'sts', 'db'), /db\s+0\/3\s+/);
  assert.match(await kubectl('describe', 'sts', 'db'), /Replicas:\s+3 desired/);
});

test('kubectl get -w prints the changes, kubectl delete removes the objects', { skip: SKIP }, async (t) => {
  const { kubectl, file, args } = await kubectlFor(t);
  const manifest = file('c1.yaml', CLUSTER(1));
  await kubectl('apply', '-f', manifest);
  const watcher = spawn(KUBECTL, args(['get', 'mysql', '-w', '--output-watch-events']), { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => watcher.kill());
  let out = '';
  watcher.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await eventually('kubectl --watch to print c1', () => out.includes('c1'), 10_000);
  await kubectl('label', 'mysql', 'c1', 'tier=db');
  assert.match(await kubectl('delete', '-f', manifest), /mysqlcluster\.mysql\.presslabs\.org "c1" deleted/);
  await eventually('kubectl --watch to print the deletion of c1', () => /DELETED\s+c1/.test(out), 10_000);
  assert.match(out, /ADDED\s+c1/);
  assert.match(out, /MODIFIED\s+c1/);
  assert.match(await run(KUBECTL, args(['get', 'mysql', '--ignore-not-found'])).then((r) => r.stdout), /^$/);
});

test('kubectl create of built-ins (typed clients sending protobuf): ns, secret generic, configmap, serviceaccount, service', {
  skip: SKIP,
}, async (t) => {
  const { env, kubectl, args } = await kubectlFor(t);
  const mark = env.server?.requestLog.mark();
  const extra = `${env.namespace}-pb`;
  // On a real cluster the namespace outlives the test unless deleted; the test server goes with it.
  t.after(() => run(KUBECTL, args(['delete', 'ns', extra, '--wait=false'])).catch(() => undefined));
  assert.match(await kubectl('create', 'ns', extra), new RegExp(`namespace/${extra} created`));
  await kubectl('create', 'secret', 'generic', 's1', '--from-literal=password=p@ss', '--from-literal=empty=');
  await kubectl('create', 'configmap', 'c1', '--from-literal=my.cnf=[mysqld]');
  await kubectl('create', 'serviceaccount', 'sa1');
  await kubectl('create', 'service', 'clusterip', 'svc1', '--tcp=3306:mysql');
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  assert.equal((await core.readNamespace({ name: extra })).status?.phase, 'Active');
  const secret = await core.readNamespacedSecret({ namespace: env.namespace, name: 's1' });
  assert.deepEqual(secret.data, { empty: '', password: Buffer.from('p@ss').toString('base64') });
  assert.equal(secret.type, 'Opaque');
  assert.deepEqual((await core.readNamespacedConfigMap({ namespace: env.namespace, name: 'c1' })).data, { 'my.cnf': '[mysqld]' });
  assert.equal((await core.readNamespacedServiceAccount({ namespace: env.namespace, name: 'sa1' })).metadata?.name, 'sa1');
  const svc = await core.readNamespacedService({ namespace: env.namespace, name: 'svc1' });
  assert.deepEqual(
    svc.spec?.ports?.map((p) => [p.port, p.targetPort, p.protocol]),
    [[3306, 'mysql', 'TCP']],
  );
  assert.match(svc.spec?.clusterIP ?? '', /^\d+\.\d+\.\d+\.\d+$/);

  await t.test('the bodies were protobuf', { skip: env.server ? false : "needs the test API server's request log" }, () => {
    const creates = env.server!.requestLog.filter({ verb: 'create' }, mark).filter((e) => e.userAgent?.startsWith('kubectl'));
    assert.deepEqual(
      creates.map((e) => [e.resource, e.status, e.contentType]),
      [
        ['namespaces', 201, 'application/vnd.kubernetes.protobuf'],
        ['secrets', 201, 'application/vnd.kubernetes.protobuf'],
        ['configmaps', 201, 'application/vnd.kubernetes.protobuf'],
        ['serviceaccounts', 201, 'application/vnd.kubernetes.protobuf'],
        ['services', 201, 'application/vnd.kubernetes.protobuf'],
      ],
    );
  });

  await t.test(
    'a kind the server cannot decode from protobuf is a 415 naming it',
    { skip: env.server ? false : 'a real server decodes every built-in' },
    async () => {
      const refused = await run(KUBECTL, args(['create', 'deployment', 'd1', '--image=mysql:8'])).then(
        () => assert.fail('kubectl create deployment succeeded'),
        (e: { stderr: string }) => e.stderr,
      );
      assert.match(refused, /cannot decode protobuf bodies of kind "Deployment" \(apiVersion "apps\/v1"\); send it as application\/json/);
    },
  );
});

test('kubectl apply of a built-in merges lists by key in the order of the manifest', { skip: SKIP }, async (t) => {
  const { kubectl, file } = await kubectlFor(t);
  const withEnv = (names: string[]) => `${STS}        env:\n${names.map((n) => `        - {name: ${n}, value: "1"}`).join('\n')}\n`;
  const manifest = file('sts.yaml', withEnv(['A']));
  await kubectl('apply', '-f', manifest);
  writeFileSync(manifest, withEnv(['B', 'A', 'C']));
  assert.match(await kubectl('apply', '-f', manifest), /statefulset\.apps\/db configured/);
  assert.equal(await kubectl('get', 'sts', 'db', '-o', 'jsonpath={.spec.template.spec.containers[0].env[*].name}'), 'B A C');
  writeFileSync(manifest, withEnv(['C']));
  await kubectl('apply', '-f', manifest);
  assert.equal(await kubectl('get', 'sts', 'db', '-o', 'jsonpath={.spec.template.spec.containers[0].env[*].name}'), 'C');
});

test('over TLS (tls: true) client-node and kubectl authenticate with the token; no token is 403', {
  skip: SKIP || (process.env.TEST_KUBECONFIG ? 'own server' : false),
}, async (t) => {
  const server = await startApiServer({ tls: true, allowAnonymous: false });
  t.after(() => server.stop());
  assert.match(server.url, /^https:\/\//);
  const kc = server.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const list = await core.listNamespace();
  assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  server.writeKubeconfig(join(dir, 'kubeconfig'));
  const { stdout } = await run(
    KUBECTL,
    ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), 'get', 'ns', 'default', '-o', 'name'],
    { timeout: 30_000 },
  );
  assert.equal(stdout, 'namespace/default\n');
  const anonymous = await raw(kc, 'GET', '/api/v1/namespaces', { token: null });
  assert.equal(anonymous.status, 403);
});

test('main.ts runs the server as a process: one JSON line with the URL, a kubeconfig, exit 0 on SIGTERM', {
  skip: SKIP || (process.env.TEST_KUBECONFIG ? 'own server' : false),
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiserver-main-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const main = fileURLToPath(new URL('../../../sandbox/apiserver/main.ts', import.meta.url));
  const crds = fileURLToPath(new URL('../../../crds', import.meta.url));
  const child = spawn(process.execPath, [main, '--port', '0', '--kubeconfig-out', join(dir, 'kubeconfig'), '--crds', crds], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const line = await eventually('the first line of output', () => (out.includes('\n') ? out.split('\n')[0]! : undefined), 20_000);
  assert.match(JSON.parse(line).url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const { stdout } = await run(
    KUBECTL,
    ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), 'get', 'crd', '-o', 'name'],
    { timeout: 30_000 },
  );
  assert.match(stdout, /customresourcedefinition\.apiextensions\.k8s\.io\/mysqlclusters\.mysql\.presslabs\.org/);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});
