// `npm test` (scripts/test.ts) is the gate CI runs: a format or lint finding must fail it, after
// the tests have run. Each case runs the real scripts/test.ts, with the repository's biome.json and
// tsconfig.json, over a one-file project in a temporary directory, so the check is the one CI runs
// and the repository's own findings do not enter into it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** scripts/test.ts and what it imports, at the same paths. */
const COPIED = ['scripts/test.ts', 'test/support/mariadb-template.ts', 'biome.json', 'tsconfig.json'];

const CLEAN = `export function sum(xs: number[]): number {
  let total = 0;
  for (const x of xs) total += x;
  return total;
}
`;

function project(t: TestContext, sum: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'test-command-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of COPIED) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(REPO, file), join(dir, file));
  }
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/sum.ts'), sum);
  writeFileSync(
    join(dir, 'test/sum.test.ts'),
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { sum } from '../src/sum.ts';\n\ntest('sums', () => assert.equal(sum([1, 2]), 3));\n",
  );
  return dir;
}

/** Runs scripts/test.ts in `dir` as `npm test` would with no argument. */
function npmTest(dir: string): Promise<{ status: number | null; output: string }> {
  // Without the test runner's context the inner runner reports as a top-level run would.
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['scripts/test.ts'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, output }));
  });
}

// Each case is a whole `npm test` of its own (type-check included): they run side by side.
describe('npm test checks format and lint', { concurrency: true }, () => {
  it('a clean project passes', async (t) => {
    const r = await npmTest(project(t, CLEAN));
    assert.equal(r.status, 0, r.output);
  });

  it('a lint finding fails it, after the tests have run', async (t) => {
    const r = await npmTest(project(t, CLEAN.replace('total += x;', 'void (total += x);')));
    assert.equal(r.status, 1, r.output);
    assert.match(r.output, /lint\/suspicious\/noAssignInExpressions/);
    assert.match(r.output, /ℹ pass 1/, 'the tests still ran');
  });

  it('a lint warning fails it as an error does', async (t) => {
    const r = await npmTest(project(t, CLEAN.replace('xs: number[]', 'xs: any[]')));
    assert.equal(r.status, 1, r.output);
    assert.match(r.output, /lint\/suspicious\/noExplicitAny/);
  });

  it('a formatting difference fails it', async (t) => {
    const r = await npmTest(project(t, CLEAN.replace('let total = 0;', 'let total = 0 ;')));
    assert.equal(r.status, 1, r.output);
    assert.match(r.output, /File content differs from formatting output/);
  });
});
