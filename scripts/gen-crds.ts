// Writes crds/*.yaml and src/api/types.generated.ts from the kind schemas (src/api/schemas/), and
// docs/flags.md and chart/rbac/rules.yaml from the settings and permissions the runtime and the
// controllers declare (src/operator-files.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from '../src/api/generate.ts';
import { operatorFiles } from '../src/operator-files.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [path, content] of [...generatedFiles(), ...operatorFiles()]) {
  const target = join(root, path);
  let current: string | undefined;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  console.log(`wrote ${path}`);
}
