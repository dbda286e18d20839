// The project's test command (after `pretest` installed what the tests need): checks format and
// lint (`biome ci`, every finding an error, warnings too), type-checks, then runs every test file
// under test/ with node's test runner. A lint or format finding fails the run at its end, after the
// tests have run, so one stray space does not hide their results; a type error stops it at once.
// Arguments name test files to run alone, without the checks; `--golden` names the tests that
// compare with golden files (those importing test/support/golden.ts), which `npm run golden` runs
// with UPDATE_GOLDEN=1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canInstall, installDataDir, TEMPLATE_ENV } from '../test/support/mariadb-template.ts';

/** Runs a command; its failure is reported and returned, and ends this run when `fatal`. */
function run(cmd: string, args: string[], fatal = true): boolean {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status === 0) return true;
  console.error(`test: '${cmd} ${args.join(' ')}' failed with status ${r.status ?? r.signal}`);
  if (fatal) process.exit(r.status ?? 1);
  return false;
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const golden = process.argv.includes('--golden');
const only = golden ? testFiles('test').filter((f) => readFileSync(f, 'utf8').includes('/support/golden.ts')) : process.argv.slice(2);
// The files biome.json's `files.includes` names; `npm run lint` is the same check.
const linted = only.length > 0 || run(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings'], false);
if (only.length === 0) {
  run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json']);
}
const files = only.length > 0 ? only : testFiles('test');
// The end-to-end files (each a whole sandbox: a dozen processes per pod) run side by side with each
// other, two at a time and the longest first, so the slowest does not start last (three at a time
// saturated the 2 cores: the group took 734 and 830 s against 654 s); then the rest, three at a time
// (most wait on MariaDB and on timers). Mixed with the sandboxes, they starved the timing-sensitive
// integration tests of the 2 cores.
const E2E_LONGEST_FIRST = ['chaos', 'no-loss', 'self-healing', 'failover', 'switchover', 'scale'];
const e2eRank = (f: string): number => {
  const i = E2E_LONGEST_FIRST.findIndex((name) => f.endsWith(`/${name}.test.ts`));
  return i < 0 ? E2E_LONGEST_FIRST.length : i;
};
const e2e = files.filter((f) => f.startsWith('test/e2e/')).sort((a, b) => e2eRank(a) - e2eRank(b));
const groups = [
  { files: e2e, concurrency: 2 },
  { files: files.filter((f) => !f.startsWith('test/e2e/')), concurrency: 3 },
].filter((g) => g.files.length > 0);
// One installed MariaDB data directory for the whole run, copied by every test server
// (test/support/mariadb-template.ts); removed when the run ends, however it ends. One file alone
// gains nothing from it: its process installs its own at its first server, if it starts one.
const templateDir = files.length > 1 && canInstall() ? mkdtempSync(join(tmpdir(), 'mdb-run-template-')) : null;
if (templateDir) {
  process.on('exit', () => rmSync(templateDir, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
  installDataDir(join(templateDir, 'data'), templateDir);
  process.env[TEMPLATE_ENV] = join(templateDir, 'data');
}
// One compile cache for every test process and what they start with their environment (Node's
// NODE_COMPILE_CACHE; the sandbox's containers use the same directory, CHECKOUT_NODE_ENV in
// sandbox/kubelet/images.ts): each of the ~250 test files is a process that loads the sources again.
// Named from this file, not imported: the test command runs in projects without the sandbox.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url));
let passed = linted;
for (const group of groups)
  passed =
    run(process.execPath, ['--test', `--test-concurrency=${group.concurrency}`, '--test-timeout=600000', ...group.files], false) && passed;
if (!passed) process.exit(1);
