// `npm run build`: compiles the operator's and the sidecar's entry points and what they import to
// JavaScript in dist/ (tsconfig.build.json; test/unit/build/shipped.test.ts lists it), what the
// operator and sidecar images run. Shipping JavaScript spares each process Node's TypeScript
// stripper (~30 MB of peak RSS for take-backup-to, docs/backups.md). Incremental: a build with
// nothing changed only checks; it deletes nothing, so a dist/ built before a module was dropped
// keeps that module's file, which nothing loads (the images build from a clean tree). The bench and the test of the built form call `build()` so they measure fresh output.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Where the built entry points land; the images' ENTRYPOINTs name the same paths under /app. */
export const DIST = {
  sidecar: join(ROOT, 'dist/sidecar/main.js'),
  operator: join(ROOT, 'dist/main.js'),
} as const;

export function build(): void {
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
}

if (import.meta.main) build();
