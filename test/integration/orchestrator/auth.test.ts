// Orchestrator's API authentication end to end between processes: the stand-in runs as its own
// process (sandbox/orchestrator/main.ts) with AuthenticationMethod multi, as the chart configures
// Orchestrator, and answers as 3.2.6 does (test/fixtures/orchestrator/auth/). The client without
// credentials is refused, with the credentials of a directory (a mounted Secret) it reads and
// writes, as multi's `readonly` it reads and is refused the writes; no password reaches an error
// message or a log line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { credentialsFrom, orchestratorClient, OrchestratorError } from '../../../src/orchestrator/index.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const USER = 'orc-operator';
const PASSWORD = 'pw-Zq8-never-logged';
const KEY = { host: '127.0.0.99', port: 3306 };

let dir: string;
let proc: ChildProcess;
let baseUrl: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orc-auth-'));
  writeFileSync(
    join(dir, 'orchestrator.conf.json'),
    JSON.stringify({
      MySQLTopologyUser: 'orchestrator',
      MySQLTopologyPassword: 'x',
      ReplicationCredentialsQuery: 'SELECT 1',
      AuthenticationMethod: 'multi',
      HTTPAuthUser: USER,
      HTTPAuthPassword: PASSWORD,
    }),
  );
  writeFileSync(join(dir, 'user'), `${USER}\n`);
  writeFileSync(join(dir, 'password'), PASSWORD);
  proc = spawn(
    process.execPath,
    [
      new URL('../../../sandbox/orchestrator/main.ts', import.meta.url).pathname,
      '--listen',
      '127.0.0.1:0',
      '--config',
      join(dir, 'orchestrator.conf.json'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += String(c);
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) resolve(`${m[1]}/api`);
    });
    proc.once('exit', (code) => reject(new Error(`the stand-in exited (${code}) before listening`)));
  });
});

after(async () => {
  if (proc.exitCode === null) {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<OrchestratorError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof OrchestratorError, `not an OrchestratorError: ${String(e)}`);
    return e;
  }
  assert.fail('the call succeeded');
}

test('without credentials every call is refused with 401, before any route', async () => {
  const c = orchestratorClient({ baseUrl, readRetries: 0 });
  const e = await refusal(c.clustersInfo());
  assert.deepEqual([e.kind, e.status], ['unauthorized', 401]);
  assert.match(e.message, /GET \/clusters-info: HTTP 401: Orchestrator refused the credentials/);
  assert.equal((await refusal(c.beginDowntime(KEY, { owner: 'o', reason: 'r', seconds: 60 }))).kind, 'unauthorized');
});

test('with a wrong password too, and the password is in no message', async () => {
  const c = orchestratorClient({ baseUrl, readRetries: 0, credentials: () => ({ user: USER, password: 'wrong-pw-xyz' }) });
  const e = await refusal(c.clustersInfo());
  assert.equal(e.kind, 'unauthorized');
  assert.ok(!e.message.includes('wrong-pw-xyz') && !JSON.stringify(e).includes('wrong-pw-xyz'));
});

test('with the credentials of the directory, reads and writes succeed', async () => {
  const c = orchestratorClient({ baseUrl, credentials: credentialsFrom(dir) });
  assert.deepEqual(await c.clustersInfo(), []);
  // Orchestrator downtimes an instance it does not know (recorded): a write that needs no server.
  await c.beginDowntime(KEY, { owner: 'test', reason: 'auth', seconds: 60 });
  await c.endDowntime(KEY);
});

test("multi's readonly user reads, and a write is refused as unauthorized", async () => {
  const c = orchestratorClient({ baseUrl, credentials: () => ({ user: 'readonly', password: 'anything' }) });
  assert.deepEqual(await c.replicationAnalysis(), []);
  const e = await refusal(c.setWriteable(KEY));
  assert.deepEqual([e.kind, e.status, e.message], ['unauthorized', 500, 'orchestrator GET /set-writeable/127.0.0.99/3306: Unauthorized']);
});

test('a missing credentials file is an unauthorized error naming the file', async () => {
  const c = orchestratorClient({ baseUrl, credentials: credentialsFrom(join(dir, 'nowhere')) });
  const e = await refusal(c.clustersInfo());
  assert.equal(e.kind, 'unauthorized');
  assert.match(e.message, /cannot read .*nowhere\/user: ENOENT/);
});

test('errors logged by the operator carry no password', async () => {
  const lines: string[] = [];
  const log = createLogger({
    stream: new Writable({
      write: (chunk, _e, cb) => {
        lines.push(String(chunk));
        cb();
      },
    }),
  });
  const c = orchestratorClient({ baseUrl, readRetries: 0, credentials: () => ({ user: USER, password: `${PASSWORD}-old` }) });
  const e = await refusal(c.master('nosuch.ns'));
  log.error('orchestrator call failed', { error: e });
  const good = orchestratorClient({ baseUrl, credentials: credentialsFrom(dir) });
  const e2 = await refusal(good.master('nosuch.ns'));
  log.error('orchestrator call failed', { error: e2, message: e2.message });
  assert.equal(e2.kind, 'unknown-cluster');
  const text = lines.join('');
  assert.match(text, /orchestrator call failed/);
  assert.ok(!text.includes(PASSWORD), text);
});
