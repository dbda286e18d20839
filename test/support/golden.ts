// Golden files: a test compares what it renders with a file under test/golden/. A missing file
// fails like a different one, in CI and locally; only `npm run golden` (UPDATE_GOLDEN=1) writes
// them, and the diff is reviewed like code.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

const HOW = 'after an intended change, run `npm run golden` and review the diff';

/** Asserts `actual` equals the golden file at `path`; with UPDATE_GOLDEN=1 in `env`, writes it instead. */
export function assertGolden(path: string, actual: string, env: NodeJS.ProcessEnv = process.env): void {
  const name = relative(process.cwd(), path);
  if (env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') assert.fail(`golden file ${name} is missing; ${HOW}`);
    throw err;
  }
  assert.equal(actual, expected, `${name} differs from its golden file; ${HOW}`);
}
