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
import { startServer, type StreamLimits } from '../../../src/sidecar/serve.ts';
import { requestBackup, retryAfterSeconds } from '../../../src/sidecar/clone.ts';
import { eventually } from '../../support/wait.ts';

const AUTH = { user: 'sys_backups', password: 'pw-1' };

async function server(t: { after(fn: () => unknown): void }, script: string, limits?: Partial<StreamLimits>) {
  const cfg = loadConfig(
    { BACKUP_USER: AUTH.user, BACKUP_PASSWORD: AUTH.password, MY_MYSQL_VERSION: 'mariadb-10.11' },
    ['--http-host=127.0.0.1', '--http-port=0'],
    ['backup-http'],
  );
  let spawned = 0;
  const lines: string[] = [];
  const log = createLogger({
    stream: new Writable({
      write: (c, _e, cb) => {
        lines.push(String(c));
        cb();
      },
    }),
  });
  const srv = await startServer({
    cfg,
    log,
    spawnBackup: (_cfg, stdout) => {
      spawned++;
      return spawn('sh', ['-c', script], { stdio: ['ignore', stdout, 'pipe'] });
    },
    ...(limits ? { limits } : {}),
  });
  t.after(() => srv.close());
  return { url: `http://127.0.0.1:${srv.port}`, spawned: () => spawned, logs: () => lines.join('') };
}

/** A reader that stops for `ms` once it has `afterBytes` of the body. */
interface Stall {
  afterBytes: number;
  ms: number;
}

function get(
  url: string,
  auth = AUTH,
  stall?: Stall,
): Promise<{ status: number; body: string; raw: Buffer; trailer: string | undefined; declared: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/xbackup`, { agent: false, auth: `${auth.user}:${auth.password}` }, (res) => {
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
          resolve({
            status: res.statusCode ?? 0,
            body: raw.toString('utf8'),
            raw,
            trailer: res.trailers['x-backup-status'],
            declared: res.headers.trailer,
          });
        });
      })
      .on('error', reject);
  });
}

test('the tool output is the body, declared and followed by the Success trailer', async (t) => {
  const s = await server(t, 'printf stream-bytes');
  const { status, body, trailer, declared } = await get(s.url);
  assert.deepEqual(
    { status, body, trailer, declared },
    { status: 200, body: 'stream-bytes', trailer: 'Success', declared: 'X-Backup-Status' },
  );
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
  const bodies = await Promise.all([get(s.url), get(s.url)]);
  for (const b of bodies) assert.equal(b.trailer, 'Success');
  assert.equal(s.spawned(), 2);
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

/** A request whose response is kept open: its status and headers, and how it ended. */
function open(url: string, opts: { read?: boolean } = {}) {
  const req = http.get(`${url}/xbackup`, { agent: false, auth: `${AUTH.user}:${AUTH.password}` });
  const state = {
    status: 0,
    headers: {} as http.IncomingHttpHeaders,
    body: '',
    ended: false,
    broken: false,
    trailer: undefined as string | undefined,
  };
  req.on('error', () => (state.broken = true));
  req.on('response', (res) => {
    state.status = res.statusCode ?? 0;
    state.headers = res.headers;
    if (opts.read === false) res.pause();
    else res.on('data', (c: Buffer) => (state.body += c.toString('utf8')));
    res.on('end', () => {
      state.ended = true;
      state.trailer = res.trailers['x-backup-status'];
    });
    res.on('aborted', () => (state.broken = true));
    res.on('error', () => (state.broken = true));
  });
  return { state, destroy: () => req.destroy() };
}

test('with one stream running and one waiting, a third request gets 503 with Retry-After and starts nothing', async (t) => {
  const s = await server(t, 'printf "$$;"; exec sleep 30');
  const running = open(s.url);
  t.after(() => running.destroy());
  await eventually('the first stream to run', () => running.state.status === 200);
  const waiting = open(s.url);
  t.after(() => waiting.destroy());
  await eventually('the second request to wait', () => s.logs().includes('backup request waits for the stream in progress'));
  const third = await fetch(`${s.url}/xbackup`, {
    headers: { authorization: `Basic ${Buffer.from(`${AUTH.user}:${AUTH.password}`).toString('base64')}` },
  });
  assert.equal(third.status, 503);
  assert.equal(third.headers.get('retry-after'), '15');
  assert.match(await third.text(), /a stream is running and 1 request\(s\) wait for it already/);
  assert.equal(s.spawned(), 1);
  assert.equal(waiting.state.status, 0, 'the waiting request is still waiting');
});

test('a waiting request that leaves frees its place for another', async (t) => {
  const s = await server(t, 'printf "$$;"; exec sleep 30');
  const running = open(s.url);
  t.after(() => running.destroy());
  await eventually('the first stream to run', () => running.state.status === 200);
  const leaving = open(s.url);
  await eventually('the second request to wait', () => s.logs().includes('backup request waits for the stream in progress'));
  leaving.destroy();
  const waits = () => s.logs().split('backup request waits').length - 1;
  // Until the server has seen the client leave, a new request may still be refused; once it
  // has, a new request waits in the freed place.
  await eventually('a new request to take the freed place', async () => {
    const before = waits();
    const next = open(s.url);
    t.after(() => next.destroy());
    await eventually('the new request to be refused or queued', () => next.state.status === 503 || waits() > before);
    return next.state.status !== 503;
  });
});

test('a request whose stream has not started within the start limit gets 503 with Retry-After', async (t) => {
  const s = await server(t, 'printf "$$;"; exec sleep 30', { startMs: 300, retryAfterSeconds: 7 });
  const running = open(s.url);
  t.after(() => running.destroy());
  await eventually('the first stream to run', () => running.state.status === 200);
  const late = await fetch(`${s.url}/xbackup`, {
    headers: { authorization: `Basic ${Buffer.from(`${AUTH.user}:${AUTH.password}`).toString('base64')}` },
  });
  assert.equal(late.status, 503);
  assert.equal(late.headers.get('retry-after'), '7');
  assert.match(await late.text(), /no stream could start within 0.3 s/);
  assert.equal(s.spawned(), 1);
  // The refused request left the line: the next one waits again rather than being refused as a third.
  const next = open(s.url);
  t.after(() => next.destroy());
  await eventually('the next request to wait', () => s.logs().split('backup request waits').length === 3);
});

test('a stream whose tool goes quiet is cut after the idle limit, without a trailer, and the next stream runs', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'serve-idle-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // The first run goes quiet; later runs finish.
  const s = await server(t, `if mkdir ${join(dir, 'first')} 2>/dev/null; then printf begun; exec sleep 30; fi; printf whole`, {
    idleMs: 300,
  });
  const quiet = open(s.url);
  await eventually('the quiet stream to be cut', () => quiet.state.broken || quiet.state.ended);
  assert.equal(quiet.state.trailer, undefined);
  assert.equal(quiet.state.body, 'begun');
  await eventually('the cut to be logged', () => /backup stream cut: no byte moved for 0.3 s/.test(s.logs()));
  const r = await get(s.url);
  assert.deepEqual({ body: r.body, trailer: r.trailer }, { body: 'whole', trailer: 'Success' });
});

test('a stream whose client stops reading is cut after the idle limit', async (t) => {
  const srv = await server(t, `exec head -c ${256 << 20} /dev/zero`, { idleMs: 300 });
  const stalled = open(srv.url, { read: false });
  t.after(() => stalled.destroy());
  await eventually('the stalled stream to be cut', () => srv.logs().includes('backup stream cut'));
  assert.equal(stalled.state.trailer, undefined);
});

test('the client asks a busy source (503) again after its Retry-After and gets the stream', async (t) => {
  const s = await server(t, 'printf "$$;"; exec sleep 30', { maxWaiting: 0, retryAfterSeconds: 1 });
  const running = open(s.url);
  await eventually('the first stream to run', () => running.state.status === 200);
  const busy: string[] = [];
  const ac = new AbortController();
  t.after(() => ac.abort());
  const second = requestBackup(s.url, AUTH, ac.signal, (m) => busy.push(m));
  await eventually('the second request to be refused as busy', () => busy.length > 0);
  assert.match(busy[0]!, /is busy \(HTTP 503, retry after 1 s\)/);
  running.destroy();
  const res = await second;
  assert.equal(res.statusCode, 200);
  res.resume();
  assert.equal(s.spawned(), 2);
});

test('Retry-After: seconds within 1..300, the default for a date or garbage', () => {
  assert.deepEqual(
    ['7', ' 2 ', '0', '100000', undefined, 'Wed, 21 Oct 2015 07:28:00 GMT', '-3'].map(retryAfterSeconds),
    [7, 2, 1, 300, 15, 15, 15],
  );
});
