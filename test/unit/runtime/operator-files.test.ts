// The files generated from the runtime's and the controllers' declarations (docs/flags.md,
// chart/rbac/rules.yaml, chart/files/failover-hooks.json): fresh, faithful to the declarations, and the declarations themselves
// consistent with the controllers and with every flag the docs and comments mention.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { controllers } from '../../../src/controllers/index.ts';
import { operatorFiles, RBAC_RULES } from '../../../src/operator-files.ts';
import { permissionSections, settingSections } from '../../../src/runtime/config.ts';
import { allows, policyRules } from '../../../src/runtime/permissions.ts';
import { distinctSettings } from '../../../src/runtime/settings.ts';
import type { WatchTarget } from '../../../src/runtime/controller.ts';
import { DEFAULT_CLUSTER_OPTIONS } from '../../../src/controllers/cluster/options.ts';
import { DEFAULT_ORCHESTRATOR_OPTIONS } from '../../../src/controllers/orchestrator-controller/options.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

function files(dir: string, ext: string): string[] {
  return readdirSync(join(REPO, dir)).flatMap((name) => {
    const rel = join(dir, name);
    return statSync(join(REPO, rel)).isDirectory() ? files(rel, ext) : rel.endsWith(ext) ? [rel] : [];
  });
}

describe('generated operator files', () => {
  it('docs/flags.md, chart/rbac/rules.yaml and chart/files/failover-hooks.json match the declarations (run `npm run gen` when this fails)', () => {
    for (const [path, content] of operatorFiles()) {
      let onDisk = '';
      try {
        onDisk = readFileSync(join(REPO, path), 'utf8');
      } catch {
        assert.fail(`${path} is missing: run npm run gen`);
      }
      assert.ok(onDisk === content, `${path} is stale: run npm run gen`);
    }
  });

  it('the RBAC file reads back as exactly the merged PolicyRules', () => {
    const rules = policyRules(permissionSections(controllers)).map(({ neededBy: _n, ...rule }) => rule);
    assert.deepEqual(parse(operatorFiles().get(RBAC_RULES)!), rules);
    for (const r of rules) assert.equal(new Set(r.verbs).size, r.verbs.length);
  });

  it('every flag and variable is declared once across the runtime and the controllers', () => {
    const settings = distinctSettings(settingSections(controllers)); // throws on a clash
    assert.equal(new Set(settings.map((s) => s.flag)).size, settings.length);
  });
});

describe('declared permissions', () => {
  // Resource names of the kinds the controllers watch: the plural is the lower-cased kind + s (a
  // final y becomes ies: NetworkPolicy → networkpolicies).
  const resourceOf = (t: WatchTarget) => ({
    group: t.apiVersion.includes('/') ? t.apiVersion.split('/')[0]! : '',
    resource: `${t.kind.toLowerCase().replace(/y$/, 'ie')}s`,
  });
  const optionsOf: Record<string, object> = { cluster: DEFAULT_CLUSTER_OPTIONS, orchestrator: DEFAULT_ORCHESTRATOR_OPTIONS };

  for (const def of controllers) {
    it(`${def.name}: list and watch of every kind its spec watches (for, owns, watches)`, () => {
      const spec = def.build(optionsOf[def.name] ?? {});
      assert.equal(spec.name, def.name);
      const rules = policyRules(permissionSections([def]));
      for (const t of [spec.for, ...(spec.owns ?? []), ...(spec.watches ?? []).map((w) => w.target)]) {
        for (const verb of ['list', 'watch']) assert.ok(allows(rules, { ...resourceOf(t), verb }), `${verb} ${t.kind}`);
      }
    });
  }

  it('the runtime may hold the Lease and record Events', () => {
    const rules = policyRules(permissionSections([]));
    for (const verb of ['get', 'create', 'update']) assert.ok(allows(rules, { group: 'coordination.k8s.io', resource: 'leases', verb }));
    for (const verb of ['create', 'patch']) assert.ok(allows(rules, { group: '', resource: 'events', verb }));
  });
});

describe('flags mentioned in docs and comments', () => {
  // Where the operator's flags are discussed; render-*.ts are left out (they write other
  // programs' command lines: pt-kill, pt-heartbeat, mysql).
  const places = [
    'README.md',
    'chart/README.md',
    'docs/runtime.md',
    'docs/cluster-controller.md',
    'docs/node-controller.md',
    'docs/adoption-from-anchor.md',
    'src/main.ts',
    ...files('src/runtime', '.ts'),
    ...files('src/controllers', '.ts').filter((f) => !/\/render-[^/]+\.ts$/.test(f)),
  ];
  // Not operator flags: `--help`, the benchmarks' `--quick`, the sandbox's `--check` and `--example`, kubectl's
  // `--from-literal`, node's own heap and GC-tracing flags, the placeholders of settings.ts, curl's
  // flags in the failover hook's command line, helm's and kubectl's in the chart's README.
  const nodeFlags = ['max-semi-space-size', 'max-old-space-size', 'trace-gc', 'trace-gc-verbose'];
  const curlFlags = ['data-urlencode', 'max-time'];
  const helmFlags = ['create-namespace', 'reuse-values', 'server-side', 'force-conflicts'];
  const others = new Set([
    'help',
    'quick',
    'check',
    'example',
    'controllers',
    'from-literal',
    ...nodeFlags,
    'flag',
    'name',
    ...curlFlags,
    ...helmFlags,
  ]);
  // The anchor's flags docs/adoption-from-anchor.md lists as not taken by this operator.
  const notTaken = new Set(['debug', 'orchestrator-concurrent-reconciles', 'allow-cross-namespace-user', 'allow-cross-namespace-database']);

  it('every one exists (with the anchor name where the anchor had it)', () => {
    const flags = new Set(distinctSettings(settingSections(controllers)).map((s) => s.flag));
    const missing: string[] = [];
    for (const file of places) {
      const text = readFileSync(join(REPO, file), 'utf8');
      for (const m of text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)) {
        const flag = m[1]!;
        if (flags.has(flag) || others.has(flag)) continue;
        if (notTaken.has(flag) && file === 'docs/adoption-from-anchor.md') continue;
        missing.push(`${file}: --${flag}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
