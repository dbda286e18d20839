// The project's test command (after `pretest` installed what the tests need): type-checks,
// then runs every test file under test/ with node's test runner. Arguments name test files to run
// alone, without the type-check; `--golden` names the tests that compare with golden files (those
// importing test/support/golden.ts), which `npm run golden` runs with UPDATE_GOLDEN=1.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`test: '${cmd} ${args.join(' ')}' failed with status ${r.status ?? r.signal}`);
    process.exit(r.status ?? 1);
  }
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
const only = golden
  ? testFiles('test').filter((f) => readFileSync(f, 'utf8').includes('/support/golden.ts'))
  : process.argv.slice(2);
if (only.length === 0) {
  run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json']);
}
const files = only.length > 0 ? only : testFiles('test');
run(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=600000', ...files]);
