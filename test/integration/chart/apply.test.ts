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
import { kubeconfigFile, kubectl, served } from '../../support/kubectl.ts';
import { ALL_ON, render, toYaml, type RenderOptions } from './helm.ts';

const VARIANTS: Record<string, RenderOptions> = { 'default values': {}, 'every option on': { values: [ALL_ON] } };

for (const [name, opts] of Object.entries(VARIANTS)) {
  test(`the chart with ${name} applies to the API server without errors (server dry run, strict)`, async (t) => {
    const env = await kubeEnv(t);
    const dir = mkdtempSync(join(tmpdir(), 'chart-apply-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = kubeconfigFile(env.kubeConfig, dir);
    // The watched namespace must exist on the server: the test's own.
    const docs = render({ ...opts, namespace: env.namespace, set: [...(opts.set ?? []), ...(opts.values ? [`watchNamespace=${env.namespace}`] : [])] });
    const kinds = new Map<string, boolean>();
    for (const d of docs) kinds.set(`${d.apiVersion} ${d.kind}`, await served(kubeconfig, d.apiVersion!, d.kind!));
    const applied = docs.filter((d) => kinds.get(`${d.apiVersion} ${d.kind}`));
    for (const [kind, isServed] of kinds) {
      if (!isServed) await t.test(`${kind}`, { skip: `the API server does not serve ${kind}` }, () => {});
    }
    const r = await kubectl(kubeconfig, ['apply', '--dry-run=server', '--validate=strict', '-n', env.namespace, '-f', '-'], toYaml(applied));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, applied.length, r.stdout);
    for (const d of applied) assert.match(r.stdout, new RegExp(`/${d.metadata!.name} (created|configured|unchanged) \\(server dry run\\)`));
    assert.equal(r.stderr, '', 'no warning (unknown or duplicate fields)');
  });
}
