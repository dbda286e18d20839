// A clone of this repository, alone on a machine, must hold everything its code, tests and docs
// point at: no document of a team folder beside it, no recorded data read from a sibling
// directory, no absolute path of one developer's machine. This test reads every tracked file
// (git ls-files; a walk of the tree when there is no git) and names each line that points outside.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SELF = relative(REPO, fileURLToPath(import.meta.url));

/** One line of a file that names something outside the repository. */
interface Finding {
  line: number;
  text: string;
  why: string;
}

// The patterns are assembled from pieces so that this file does not match them itself.
const TEAM_DOCS = ['DESIGN', 'COMPAT', 'FIELD-NOTES', 'STYLE'];
const RULES: Array<{ re: RegExp; why: string }> = [
  {
    re: new RegExp(`\\b${'shared'}/(fixtures|hooks|${TEAM_DOCS.join('|')})|\\.\\./${'shared'}(?!/[\\w.-]+\\.ts\\b)`),
    why: 'a team folder beside the repository (use test/fixtures/ or docs/)',
  },
  {
    re: new RegExp(`\\b(${['DESIGN\\.md', 'COMPAT(\\.md)?', 'FIELD-NOTES(\\.md)?', 'STYLE\\.md'].join('|')})(?![\\w-])`),
    why: 'a team document outside the repository (its facts are in docs/architecture.md, docs/compatibility.md, docs/field-notes.md)',
  },
  { re: new RegExp(`(^|[^\\w.~-])/${'work'}/`), why: 'an absolute path of the development machine' },
  { re: /(^|[^\w.~-])\/(home|Users)\/[\w.-]+/, why: 'an absolute home directory' },
  { re: new RegExp(`(^|[^\\w.~-])/${'root'}/`), why: "an absolute path in root's home directory" },
  { re: new RegExp(`/${'opt'}/orc-bin`), why: 'a binary installed on one machine only' },
];

/** Markdown link targets, and in other files every `../` chain: where they lead from the file's folder. */
function relativeTargets(path: string, line: string): string[] {
  if (path.endsWith('.md'))
    return [...line.matchAll(/\]\(([^)\s#]+)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('/'));
  return [...line.matchAll(/(?:\.\.\/)+[\w.@-]*/g)].map((m) => m[0]);
}

function escapes(fromFile: string, target: string): boolean {
  const to = normalize(join(dirname(fromFile), target));
  return to === '..' || to.startsWith(`..${sep}`);
}

/** Every line of `text` (the file at `path`, relative to the repository) that points outside it. */
export function outsideReferences(path: string, text: string): Finding[] {
  const out: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { re, why } of RULES) if (re.test(line)) out.push({ line: i + 1, text: line.trim(), why });
    for (const target of relativeTargets(path, line)) {
      if (escapes(path, target)) out.push({ line: i + 1, text: line.trim(), why: `${target} leads out of the repository` });
    }
  });
  return out;
}

function trackedFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0')
      .filter(Boolean);
  } catch {
    return walk('');
  }
}

const UNTRACKED = new Set(['.git', 'node_modules', '.tools', 'dist', '.sandbox', '.tsbuildinfo']);

function walk(dir: string): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    if (UNTRACKED.has(e.name)) return [];
    const rel = join(dir, e.name);
    return e.isDirectory() ? walk(rel) : [rel];
  });
}

describe('the repository stands on its own', () => {
  it('finds each kind of outside reference (the detector itself)', () => {
    const cases: Array<[string, string]> = [
      ['test/unit/x/a.test.ts', `new URL('../../../../${'shared'}/fixtures/x/', import.meta.url)`],
      ['docs/a.md', `the architecture is in ${'DESIGN'}.md §2`],
      ['src/a.ts', `// a quirk (${'FIELD-NOTES'})`],
      ['src/b.ts', `// the anchor's names (${'COMPAT'}.md "Storage")`],
      ['test/unit/y.test.ts', `const DIR = '/${'work'}/x/fixtures';`],
      ['docs/b.md', 'see [the notes](../../elsewhere/notes.md)'],
      ['scripts/a.ts', `const home = '/${'home'}/someone/repo';`],
      ['test/support/a.ts', `// recordings (a copy of ../${'shared'}'s)`],
    ];
    for (const [path, text] of cases) assert.ok(outsideReferences(path, text).length > 0, `not found: ${path}: ${text}`);
    const fine: Array<[string, string]> = [
      ['test/unit/x/a.test.ts', "new URL('../../../test/fixtures/x/', import.meta.url)"],
      ['docs/a.md', 'see [the API](api.md) and [the chart](../chart/README.md), `/var/lib/mysql`, `~/.kube/config`'],
      ['src/controllers/a/b.ts', "import { KINDS } from '../shared/kinds.ts';"],
      ['test/integration/a.test.ts', "volumeMounts: [{ name: 'shared', mountPath: '/shared' }]"],
    ];
    for (const [path, text] of fine) assert.deepEqual(outsideReferences(path, text), [], `${path}: ${text}`);
  });

  it('no tracked file names a path outside the repository', () => {
    const problems: string[] = [];
    for (const path of trackedFiles()) {
      if (path === SELF) continue;
      const stat = lstatSync(join(REPO, path), { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isSymbolicLink()) {
        const target = readlinkSync(join(REPO, path));
        if (target.startsWith('/') || escapes(path, target)) problems.push(`${path}: a symbolic link to ${target}, outside the repository`);
        continue;
      }
      if (!stat.isFile()) continue;
      const bytes = readFileSync(join(REPO, path));
      if (bytes.includes(0)) continue; // binary
      for (const f of outsideReferences(path, bytes.toString('utf8')))
        problems.push(`${path}:${f.line}: ${f.why}\n    ${f.text.slice(0, 160)}`);
    }
    if (problems.length > 0) assert.fail(`${problems.length} references outside the repository:\n${problems.join('\n')}`);
  });
});
