// The /xbackup server with a stand-in backup tool (a shell command), so the queue and trailer
// rules are checked without MariaDB; the real tool is covered in test/integration/sidecar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/runtime/logger.ts';
import { loadConfig } from '../../../src/sidecar/config.ts';
import { startServer } from '../../../src/sidecar/serve.ts';
import { eventually } from '../../support/wait.ts';

const AUTH = { user: 'sys_backups', password: 'pw-1' };

async function server(t: { after(fn: () => unknown): void }, script: string) {
  const cfg = loadConfig({ BACKUP_USER: AUTH.user, BACKUP_PASSWORD: AUTH.password, MY_MYSQL_VERSION: 'mariadb-10.11' }, ['--http-host=127.0.0.1', '--http-port=0'], ['backup-http']);
  let spawned = 0;
  const lines: string[] = [];
  const log = createLogger({ stream: new Writable({ write: (c, _e, cb) => { lines.push(String(c)); cb(); } }) });
  const srv = await startServer({
    cfg,
    log,
    spawnBackup: (_cfg, stdout) => {
      spawned++;
      return spawn('sh', ['-c', script], { stdio: ['ignore', stdout, 'pipe'] });
    },
  });
  t.after(() => srv.close());
  return { url: `http://127.0.0.1:${srv.port}`, spawned: () => spawned, logs: () => lines.join('') };
}

/** A reader that stops for `ms` once it has `afterBytes` of the body. */
interface Stall {
  afterBytes: number;
  ms: number;
}

function get(url: string, auth = AUTH, stall?: Stall): Promise<{ status: number; body: string; raw: Buffer; trailer: string | undefined; declared: string | undefined }> {
  return new Promise((resolve, reject) => {
    http.get(`${url}/xbackup`, { agent: false, auth: `${auth.user}:${auth.password}` }, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      let stalled = false;
      const take = (c: Buffer): void => {
        chunks.push(c);
        received += c.length;
        if (stall && !stalled && received >= stall.afterBytes) {
          stalled = true;
          res.pause();
          setTimeout(() => res.resume(), stall.ms);
        }
      };
      res.on('data', take);
      if (stall?.afterBytes === 0) take(Buffer.alloc(0));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, body: raw.toString('utf8'), raw, trailer: res.trailers['x-backup-status'], declared: res.headers['trailer'] });
      });
    }).on('error', reject);
  });
}

test('the tool output is the body, declared and followed by the Success trailer', async (t) => {
  const s = await server(t, 'printf stream-bytes');
  const { status, body, trailer, declared } = await get(s.url);
  assert.deepEqual({ status, body, trailer, declared }, { status: 200, body: 'stream-bytes', trailer: 'Success', declared: 'X-Backup-Status' });
});

/** A server whose tool writes 9 MiB and a bit of random bytes (nine times its relay buffer). */
async function bigOutputServer(t: { after(fn: () => unknown): void }) {
  const dir = await mkdtemp(join(tmpdir(), 'serve-queue-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const data = randomBytes(9 * (1 << 20) + 12345);
  await writeFile(join(dir, 'backup'), data);
  return { ...(await server(t, `cat ${join(dir, 'backup')}`)), data };
}

test('an output many times the relay buffer arrives byte for byte', async (t) => {
  const s = await bigOutputServer(t);
  // A client that reads late makes the response queue pieces while the relay reads on.
  const r = await get(s.url, AUTH, { afterBytes: 0, ms: 300 });
  assert.equal(r.trailer, 'Success');
  assert.equal(r.raw.length, s.data.length);
  assert.ok(r.raw.equals(s.data), 'the body differs from the tool output');
});

test('a tool exiting non-zero ends the stream with the Failed trailer and its stderr in the log', async (t) => {
  const s = await server(t, 'printf partial; echo "disk on fire" >&2; exit 3');
  const r = await get(s.url);
  assert.equal(r.body, 'partial');
  assert.equal(r.trailer, 'Failed');
  assert.match(s.logs(), /backup tool failed.*exit 3.*disk on fire/);
});

test('wrong credentials get 403 and no tool is started', async (t) => {
  const s = await server(t, 'printf x');
  const r = await get(s.url, { user: AUTH.user, password: 'nope' });
  assert.equal(r.status, 403);
  assert.equal(s.spawned(), 0);
  assert.ok(!s.logs().includes('nope') && !s.logs().includes(AUTH.password));
});

test('concurrent requests are served one at a time, each by its own tool run', async (t) => {
  const s = await server(t, 'printf "$$ start;"; sleep 0.2; printf "$$ end"');
  const bodies = await Promise.all([get(s.url), get(s.url), get(s.url)]);
  for (const b of bodies) assert.equal(b.trailer, 'Success');
  assert.equal(s.spawned(), 3);
  // Each body is one tool run: start and end of the same pid, never interleaved with another.
  for (const b of bodies) assert.match(b.body, /^(\d+) start;\1 end$/);
});

test('a client that leaves while waiting for its turn never starts a tool', async (t) => {
  const s = await server(t, 'sleep 1; printf done');
  const first = get(s.url);
  const waiting = http.get(`${s.url}/xbackup`, { agent: false, auth: `${AUTH.user}:${AUTH.password}` });
  waiting.on('error', () => undefined);
  await eventually('the second request to wait for its turn', () => s.logs().includes('backup request waits for the stream in progress'));
  waiting.destroy();
  assert.equal((await first).trailer, 'Success');
  assert.equal((await get(s.url)).trailer, 'Success');
  assert.equal(s.spawned(), 2);
});
