// The sandbox stands beside the operator, not inside it: it may use the operator's libraries (the
// rooms of docs/development.md whose modules other rooms import: src/api, src/runtime, src/mysql,
// src/storage, src/orchestrator, src/topology), never a controller's or the sidecar's internals,
// the entry points, or scripts/, test/ and bench/. Then a controller can be reshaped without the
// sandbox noticing, and the operator's build never needs a file the sandbox needs.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PUBLIC = ['src/api/', 'src/runtime/', 'src/mysql/', 'src/storage/', 'src/orchestrator/', 'src/topology/'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

test("the sandbox imports only the operator's libraries, never controllers, the sidecar or scripts", () => {
  const wrong: string[] = [];
  for (const file of sources(join(ROOT, 'sandbox'))) {
    for (const { fileName: spec } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = relative(ROOT, resolve(dirname(file), spec));
      if (target.startsWith('sandbox/') || PUBLIC.some((p) => target.startsWith(p))) continue;
      wrong.push(`${relative(ROOT, file)} → ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});
