// The README's first command: `npm run sandbox` installs chart/ with helm, brings the example cluster to Ready, says how to
// reach it, and Ctrl-C removes everything it made (no network namespace, link, mount, process or
// file). `--check` (CI's first step, .ci/run) is the same run ending at Ready.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { REPO } from '../../../sandbox/index.ts';
import { sandboxLeftovers, sandboxSkip } from '../../support/sandbox.ts';

test('npm run sandbox reaches Ready, prints how to connect, and Ctrl-C leaves nothing behind', { skip: sandboxSkip() }, async () => {
  const child = spawn(process.execPath, ['scripts/sandbox.ts'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  await new Promise<void>((running, failed) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      out += `${line}\n`;
      if (line.includes('running; Ctrl-C stops everything')) running();
    });
    void exited.then((code) => failed(new Error(`npm run sandbox exited (${code}) before running:\n${out}`)));
  });
  const bridge = /network: bridge (\S+),/.exec(out)?.[1];
  assert.ok(bridge, `the progress names the bridge:\n${out}`);
  assert.match(out, /chart: helm install mysql-operator chart\/ --namespace mysql-operator/, 'the chart is installed with the real helm');
  assert.match(out, /s3: http:\/\/10\.213\.\d+\.1:\d+, bucket my-bucket/, 'the S3 server on the gateway');
  assert.match(out, /operator: Ready/);
  assert.match(out, /Orchestrator runs as /);
  assert.match(out, /MysqlCluster maria-db is Ready; master maria-db-mysql-\d/);
  assert.match(
    out,
    /connect: +mysql -h 10\.214\.\d+\.\d+ -u root -p"\$\(/,
    'a client command through the master Service, the password read from its Secret',
  );
  assert.doesNotMatch(out, /change-me/, "the example's password is not printed");

  child.kill('SIGINT');
  assert.equal(await exited, 0, out);
  assert.deepEqual(sandboxLeftovers(join(REPO, '.sandbox'), bridge), []);
});
