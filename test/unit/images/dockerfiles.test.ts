// The Dockerfiles cannot be built here (no container runtime) and no well-kept Dockerfile linter
// installs from the registries this machine reaches (hadolint is a GitHub binary): these checks
// hold them to what the repository and the chart expect.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST } from '../../../scripts/build.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${REPO}${path}`, 'utf8');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** Each instruction of a Dockerfile with its line continuations joined. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.trim().split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** Each stage's text by its name (`FROM ... AS name`; the unnamed final stage under 'undefined'). */
const stages = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/^FROM /m)
      .slice(1)
      .map((stage) => [String(/ AS (\S+)/i.exec(stage.split('\n')[0]!)?.[1]), stage]),
  );

const entrypoint = (text: string) =>
  JSON.parse(
    instructions(text)
      .filter((i) => i.op === 'ENTRYPOINT')
      .at(-1)!.args,
  ) as string[];

describe('images/', () => {
  const dockerfiles = ['images/operator/Dockerfile', 'images/sidecar/Dockerfile', 'images/orchestrator/Dockerfile'];

  for (const file of dockerfiles) {
    it(`${file}: runs as a non-root user, pins its base images' major versions, cleans apt lists`, () => {
      const ins = instructions(read(file));
      const users = ins.filter((i) => i.op === 'USER').map((i) => i.args);
      assert.ok(users.length > 0 && users.every((u) => !/^(0|root)(:|$)/.test(u)), `${file}: USER ${users.join(', ')}`);
      const stages = new Set<string>();
      for (const from of ins.filter((i) => i.op === 'FROM')) {
        const [image, as, stage] = from.args.split(/\s+/);
        if (!stages.has(image!)) assert.match(image!, /^[^:]+:(?!latest$)\S+$/, `${file}: FROM ${image} names a tag`);
        if (as?.toUpperCase() === 'AS') stages.add(stage!);
      }
      for (const run of ins.filter((i) => i.op === 'RUN' && i.args.includes('apt-get install'))) {
        assert.match(run.args, /--no-install-recommends/, run.args);
        assert.match(run.args, /rm -rf \/var\/lib\/apt\/lists/, run.args);
      }
    });
  }

  it('the operator and sidecar images start the built form of npm start and npm run sidecar, on Node 24, with production dependencies only', () => {
    const operator = read('images/operator/Dockerfile');
    assert.deepEqual(entrypoint(operator), ['node', relative(REPO, DIST.operator)]);
    assert.ok(scripts.start!.endsWith(' src/main.ts'));
    const sidecar = read('images/sidecar/Dockerfile');
    assert.deepEqual(entrypoint(sidecar), ['node', `/app/${relative(REPO, DIST.sidecar)}`]);
    assert.equal(scripts.sidecar, 'node src/sidecar/main.ts');
    for (const text of [operator, sidecar]) {
      assert.match(text, /^FROM node:24-/m);
      const ins = instructions(text);
      const runs = ins.filter((i) => i.op === 'RUN').map((i) => i.args);
      // The build stage compiles with tsconfig.build.json, as npm run build does; the image takes
      // only its dist/ next to the production dependencies.
      assert.ok(
        runs.some((r) => r.includes('npm ci --omit=dev')),
        'production dependencies',
      );
      assert.ok(
        runs.some((r) => r.includes('node_modules/typescript/bin/tsc -p tsconfig.build.json')),
        'a tsc build with tsconfig.build.json',
      );
      const copies = ins.filter((i) => i.op === 'COPY').map((i) => i.args);
      assert.ok(copies.includes('--from=build /app/dist ./dist'), 'dist/ from the build stage');
      for (const [stage, body] of Object.entries(stages(text))) {
        if (stage !== 'build') assert.doesNotMatch(body, /^COPY src /m, `stage ${stage} copies no sources`);
      }
    }
  });

  it('the sidecar has a target per server line, each with its backup tool, and a parallel gzip', () => {
    const targets = stages(read('images/sidecar/Dockerfile'));
    assert.match(targets.mariadb!, /mariadb-backup/);
    assert.match(targets['mysql-8.0']!, /percona-xtrabackup-80/);
    assert.match(targets['mysql-8.4']!, /percona-xtrabackup-84/);
    assert.match(targets.base!, /\bpigz\b/);
  });

  it("Orchestrator's image has curl (the failover hooks) and the orchestrator binary as its entrypoint", () => {
    const text = read('images/orchestrator/Dockerfile');
    assert.match(text, /install -y --no-install-recommends [^\n]*\bcurl\b/);
    assert.deepEqual(entrypoint(text), ['/usr/local/bin/orchestrator']);
  });

  it('.dockerignore lets in exactly what the images copy from the repository root', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1).replace(/\/$/, ''));
    const copied = new Set<string>();
    for (const file of ['images/operator/Dockerfile', 'images/sidecar/Dockerfile']) {
      for (const i of instructions(read(file)).filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
        for (const src of i.args.split(/\s+/).slice(0, -1)) copied.add(src);
      }
    }
    assert.deepEqual([...copied].sort(), allowed.sort());
    for (const path of copied) assert.ok(existsSync(`${REPO}${path}`), path);
  });
});
