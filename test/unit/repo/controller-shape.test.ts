// Every controller has one shape (docs/architecture.md, "How a controller is shaped"): a folder
// src/controllers/<name>/ with controller.ts (its definition) and reconcile.ts (the pass, as named
// steps), pure decide-*.ts and render-*.ts beside them. What two controllers use lives in
// src/controllers/shared/; a controller reads no other controller's files. src/api is plain data
// and imports nothing from src/runtime. This test reads the source and names each breach.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CONTROLLERS = join(REPO, 'src', 'controllers');
const SHARED = 'shared';
/** Words that name several things in the repository, never enough alone for a controller's folder. */
const AMBIGUOUS = ['node', 'orchestrator'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative specifiers a module imports or re-exports: static, type-only, side-effect, dynamic. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)].map((m) => m[1]!);
}

/** The files a module imports or re-exports (relative specifiers only), as absolute paths. */
function importsOf(file: string): string[] {
  return specifiers(readFileSync(file, 'utf8')).map((s) => resolve(dirname(file), s));
}

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + sep);
}

function controllerFolders(): string[] {
  return readdirSync(CONTROLLERS).filter((name) => name !== SHARED && statSync(join(CONTROLLERS, name)).isDirectory());
}

describe('controller shape', () => {
  it('each controller folder has controller.ts and reconcile.ts, and its controller.ts takes the pass from reconcile.ts', () => {
    const problems: string[] = [];
    for (const name of controllerFolders()) {
      const dir = join(CONTROLLERS, name);
      for (const file of ['controller.ts', 'reconcile.ts']) {
        if (!existsSync(join(dir, file))) problems.push(`src/controllers/${name}/ has no ${file}`);
      }
      const controller = join(dir, 'controller.ts');
      if (existsSync(controller) && !importsOf(controller).includes(join(dir, 'reconcile.ts'))) {
        problems.push(`src/controllers/${name}/controller.ts does not import its reconcile.ts`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('src/controllers/index.ts lists every controller folder through its controller.ts', () => {
    const listed = importsOf(join(CONTROLLERS, 'index.ts')).filter((p) => under(p, CONTROLLERS));
    const expected = controllerFolders().map((name) => join(CONTROLLERS, name, 'controller.ts'));
    assert.deepEqual(listed.sort(), expected.sort());
  });

  it('controller folders have names that say which node and which orchestrator', () => {
    assert.deepEqual(
      controllerFolders().filter((name) => AMBIGUOUS.includes(name)),
      [],
    );
  });

  it('a controller imports no other controller, and shared/ imports none', () => {
    const problems: string[] = [];
    for (const file of tsFiles(CONTROLLERS)) {
      const own = relative(CONTROLLERS, file).split(sep)[0]!;
      if (own === 'index.ts') continue;
      for (const target of importsOf(file)) {
        if (!under(target, CONTROLLERS)) continue;
        const theirs = relative(CONTROLLERS, target).split(sep)[0]!;
        if (theirs === own || theirs === SHARED) continue;
        problems.push(`${relative(REPO, file)} imports ${relative(REPO, target)}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('src/api imports nothing from src/runtime', () => {
    const runtime = join(REPO, 'src', 'runtime');
    const problems = tsFiles(join(REPO, 'src', 'api')).flatMap((file) =>
      importsOf(file)
        .filter((target) => under(target, runtime))
        .map((target) => `${relative(REPO, file)} imports ${relative(REPO, target)}`),
    );
    assert.deepEqual(problems, []);
  });

  it('the import reader sees static, type-only, multi-line, re-export, side-effect and dynamic imports', () => {
    // Guards the reader itself: a pattern that matched nothing would make every check above pass.
    const text = [
      "import { a } from '../a.ts';",
      "import type { B } from './b.ts';",
      'import {',
      '  c,',
      "} from '../../c.ts';",
      "export * from './d.ts';",
      "import './e.ts';",
      "const f = await import('../f.ts');",
      "import x from 'node:fs';",
    ].join('\n');
    assert.deepEqual(specifiers(text), ['../a.ts', './b.ts', '../../c.ts', './d.ts', './e.ts', '../f.ts']);
  });
});
