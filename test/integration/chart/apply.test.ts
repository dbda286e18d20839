// What the chart renders, applied with the real kubectl to the test API server (or a real cluster
// with TEST_KUBECONFIG), as `--dry-run=server --validate=strict`: every object is accepted as
// written, no field unknown or dropped. Objects of kinds the server does not serve (the test API
// server has no Ingress; ServiceMonitor is prometheus-operator's CRD) are reported as skips.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { kubeEnv } from '../../support/kube-env.ts';
import { KUBECTL, kubeconfigFile, kubectl, runCommand, served } from '../../support/kubectl.ts';
import { ALL_ON, CHART, HELM, only, render, run, toYaml, type RenderOptions } from './helm.ts';

const VARIANTS: Record<string, RenderOptions> = { 'default values': {}, 'every option on': { values: [ALL_ON] } };

for (const [name, opts] of Object.entries(VARIANTS)) {
  test(`the chart with ${name} applies to the API server without errors (server dry run, strict)`, async (t) => {
    const env = await kubeEnv(t);
    const dir = mkdtempSync(join(tmpdir(), 'chart-apply-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = kubeconfigFile(env.kubeConfig, dir);
    // The watched namespace must exist on the server: the test's own.
    const docs = render({
      ...opts,
      namespace: env.namespace,
      set: [...(opts.set ?? []), ...(opts.values ? [`watchNamespace=${env.namespace}`] : [])],
    });
    const kinds = new Map<string, boolean>();
    for (const d of docs) kinds.set(`${d.apiVersion} ${d.kind}`, await served(kubeconfig, d.apiVersion!, d.kind!));
    const applied = docs.filter((d) => kinds.get(`${d.apiVersion} ${d.kind}`));
    for (const [kind, isServed] of kinds) {
      if (!isServed) await t.test(`${kind}`, { skip: `the API server does not serve ${kind}` }, () => {});
    }
    const r = await kubectl(
      kubeconfig,
      ['apply', '--dry-run=server', '--validate=strict', '-n', env.namespace, '-f', '-'],
      toYaml(applied),
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, applied.length, r.stdout);
    for (const d of applied) assert.match(r.stdout, new RegExp(`/${d.metadata!.name} (created|configured|unchanged) \\(server dry run\\)`));
    assert.equal(r.stderr, '', 'no warning (unknown or duplicate fields)');
  });
}

test("NOTES.txt's first-cluster commands, run as helm prints them, make the Secret and the MysqlCluster; the Orchestrator Service it names exists", async (t) => {
  const env = await kubeEnv(t);
  const dir = mkdtempSync(join(tmpdir(), 'chart-notes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const printed = run(HELM, ['install', 'mysql-operator', CHART, '--dry-run=client', '--namespace', env.namespace]);
  assert.equal(printed.status, 0, printed.stderr);
  const notes = printed.stdout.slice(printed.stdout.indexOf('\nNOTES:\n'));
  const commands = /Create a first cluster:\n([\s\S]*?)\nWatch it become Ready:/.exec(notes)?.[1];
  assert.ok(commands, notes);
  // As a user runs them in a shell whose kubectl points at the namespace, with a password of their own.
  const script = `kubectl() { "${KUBECTL}" --kubeconfig "${kubeconfigFile(env.kubeConfig, dir)}" -n ${env.namespace} "$@"; }\n${commands.replaceAll('<a password>', "'s3cret pw'")}`;
  const r = await runCommand('sh', ['-e', '-c', script]);
  assert.equal(r.status, 0, r.stderr);
  const cluster = await kubectl(kubeconfigFile(env.kubeConfig, dir), ['get', '-n', env.namespace, 'mysqlcluster', 'my-db', '-o', 'json']);
  assert.equal(cluster.status, 0, cluster.stderr);
  assert.deepEqual((JSON.parse(cluster.stdout) as { spec: { replicas: number; secretName: string } }).spec.secretName, 'my-db-secret');
  const secret = await kubectl(kubeconfigFile(env.kubeConfig, dir), [
    'get',
    '-n',
    env.namespace,
    'secret',
    'my-db-secret',
    '-o',
    'jsonpath={.data.ROOT_PASSWORD}',
  ]);
  assert.equal(Buffer.from(secret.stdout, 'base64').toString(), 's3cret pw');

  const forward = /port-forward svc\/(\S+) 3000:(\d+)/.exec(notes);
  assert.ok(forward, notes);
  const svc = only<{ spec: { ports: { port: number }[] } }>(
    render({ namespace: env.namespace }),
    'Service',
    (o) => o.metadata!.name === forward[1],
  );
  assert.ok(
    svc.spec.ports.some((p) => p.port === Number(forward[2])),
    `Service ${forward[1]} has port ${forward[2]}`,
  );
});
