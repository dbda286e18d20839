// What the build ships (`npm run build`, scripts/build.ts: tsc with tsconfig.build.json into dist/,
// which the operator and sidecar images copy): tsc compiles the config's root files and every file
// they import, so the list below is the config's root files followed through their relative imports
// (static and dynamic), as tsc resolves them. Compiling for real takes tens of seconds on a shared
// machine; test/integration/build/ runs the built form.
//
// The images must hold only what their entry points run: no sandbox code (the test API server's
// admission engine once lived in src/api/structural/ and shipped with CEL), no scripts, no code
// that nothing the images start imports. Their production dependencies are exactly the packages
// that shipped code imports, and the lock marks every other package `dev`, which is what
// `npm ci --omit=dev` (the images' deps stage) leaves out.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { DIST } from '../../../scripts/build.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const rel = (file: string) => relative(ROOT, file);

/**
 * The production dependencies, on purpose spelled out: adding one is a decision for the images,
 * made here too. @marcbachmann/cel-js (CEL, for the test API server) and yaml (for `npm run gen`'s
 * CRD files, the sandbox and tests) are devDependencies.
 */
// gs:// and azure:// backups (issue 25): the two cloud SDKs and Google's auth library, loaded only when a URL names them (src/storage/index.ts).
const PRODUCTION_DEPENDENCIES = [
  '@aws-sdk/client-s3',
  '@azure/storage-blob',
  '@google-cloud/storage',
  '@kubernetes/client-node',
  'axios',
  'google-auth-library',
  'mysql2',
  'node-cron',
  'prom-client',
  'winston',
];

const BUILTINS = new Set(builtinModules);

/** The module specifiers a file imports: static, dynamic and re-exports. */
function specifiers(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

/** The npm package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a builtin. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0]!)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** `from` and every file it reaches through relative imports; bare imports are collected apart. */
function closure(from: readonly string[]): { files: Set<string>; packages: Map<string, string[]> } {
  const files = new Set<string>();
  const packages = new Map<string, string[]>();
  const stack = [...from];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of specifiers(file)) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        assert.ok(existsSync(target), `${rel(file)} imports ${spec}, which does not exist`);
        stack.push(target);
        continue;
      }
      const pkg = packageOf(spec);
      if (pkg) packages.set(pkg, [...(packages.get(pkg) ?? []), rel(file)]);
    }
  }
  return { files, packages };
}

/** The root files of tsconfig.build.json, as tsc reads them (`extends`, `include`/`files`). */
function buildRootFiles(): string[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.build.json'), ts.sys.readFile);
  assert.equal(config.error, undefined, 'tsconfig.build.json reads');
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  assert.deepEqual(parsed.errors, [], 'tsconfig.build.json parses');
  return parsed.fileNames.map((f) => resolve(f));
}

const shipped = closure(buildRootFiles());
/** What the images start: their ENTRYPOINTs are DIST's files (test/unit/images/), built from these sources. */
const entryPoints = Object.values(DIST).map((js) => join(ROOT, 'src', relative(join(ROOT, 'dist'), js).replace(/\.js$/, '.ts')));
const run = closure(entryPoints);

test("the build ships the sources of the images' entry points and nothing else", () => {
  for (const entry of entryPoints) assert.ok(shipped.files.has(entry), `${rel(entry)} is built`);
  const outside = [...shipped.files].filter((f) => !f.startsWith(join(ROOT, 'src/'))).map(rel);
  assert.deepEqual(outside, [], 'shipped files from outside src/ (sandbox/, scripts/, test/)');
  const notRun = [...shipped.files]
    .filter((f) => !run.files.has(f))
    .map(rel)
    .sort();
  assert.deepEqual(notRun, [], "shipped files that neither image's entry point imports");
});

test('no shipped file imports sandbox/, scripts/ or anything else outside src/', () => {
  const imports = [...shipped.files].flatMap((file) =>
    specifiers(file)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => rel(resolve(dirname(file), spec)))
      .filter((target) => !target.startsWith('src/'))
      .map((target) => `${rel(file)} → ${target}`),
  );
  assert.deepEqual(imports, []);
});

test('the production dependencies are exactly the packages the shipped code imports', (t) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const imported = [...shipped.packages.keys()].sort();
  t.diagnostic(`production dependencies: ${Object.keys(pkg.dependencies).join(', ')}`);
  for (const [name, files] of shipped.packages) {
    const by = [...new Set(files)];
    t.diagnostic(`${name} ← ${by.slice(0, 3).join(', ')}${by.length > 3 ? ', ...' : ''}`);
  }
  assert.deepEqual(imported, PRODUCTION_DEPENDENCIES, 'packages the shipped code imports');
  assert.deepEqual(Object.keys(pkg.dependencies).sort(), PRODUCTION_DEPENDENCIES, 'package.json dependencies');
});

interface LockEntry {
  dev?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

test('the lock marks dev exactly the packages the production dependencies do not need', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as LockEntry;
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const rootEntry = lock.packages['']!;
  assert.deepEqual(rootEntry.dependencies, pkg.dependencies, "the lock's root dependencies are package.json's");
  assert.deepEqual(rootEntry.devDependencies, pkg.devDependencies, "the lock's root devDependencies are package.json's");
  // Node's lookup: node_modules/<name> beside the requiring package, then in each folder above.
  const locate = (from: string, name: string): string | undefined => {
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
      const path = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock.packages[path]) return path;
      if (!base) return undefined;
    }
  };
  const needed = new Set<string>();
  const stack: [from: string, name: string][] = Object.keys(pkg.dependencies ?? {}).map((name) => ['', name]);
  while (stack.length > 0) {
    const [from, name] = stack.pop()!;
    const path = locate(from, name);
    if (!path || needed.has(path)) continue;
    needed.add(path);
    const entry = lock.packages[path]!;
    for (const deps of [entry.dependencies, entry.optionalDependencies, entry.peerDependencies]) {
      for (const dep of Object.keys(deps ?? {})) stack.push([path, dep]);
    }
  }
  const wrong = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && needed.has(path) === Boolean(entry.dev))
    .map(([path, entry]) => `${path}: ${entry.dev ? 'dev but needed in production' : 'needed only in development but not dev'}`);
  assert.deepEqual(wrong, []);
  assert.ok(!needed.has('node_modules/@marcbachmann/cel-js'), 'CEL is not installed in the images');
});
