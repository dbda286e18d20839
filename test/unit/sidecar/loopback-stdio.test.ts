// The loopback connection the sidecar gives the backup tool as stdout: every byte arrives in
// order, the child's writes block (never EAGAIN) while nobody reads, and the end of the child's
// output is the end of the stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopbackConnection } from '../../../src/sidecar/loopback-stdio.ts';
import { eventually } from '../../support/wait.ts';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The number of write(2), to see in /proc/<pid>/syscall that a process is blocked in it. */
const WRITE_SYSCALL = ({ x64: 1, arm64: 64 } as Record<string, number>)[process.arch];

/** True while `pid` is blocked in write(2) (the kernel reports a sleeping task's syscall). */
function blockedInWrite(pid: number): boolean {
  return readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0] === String(WRITE_SYSCALL);
}

const SKIP = WRITE_SYSCALL === undefined ? `the number of write(2) is known here for x64 and arm64, not ${process.arch}` : false;

test('a child writing 24 MiB into the connection while the reader pauses delivers every byte, in order', { skip: SKIP }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'loopback-stdio-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // More than the kernel buffers hold, so the child must block in write() (a non-blocking fd
  // would make cat fail with EAGAIN).
  const data = randomBytes(24 << 20);
  await writeFile(join(dir, 'data'), data);
  const { childEnd, ourEnd } = await loopbackConnection();
  t.after(() => ourEnd.destroy());
  const child = spawn('cat', [join(dir, 'data')], { stdio: ['ignore', childEnd, 'pipe'] });
  childEnd.destroy();
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += String(c)));
  ourEnd.pause();
  await eventually('the child to block writing into the full connection', () => blockedInWrite(child.pid!));
  const chunks: Buffer[] = [];
  ourEnd.on('data', (c: Buffer) => chunks.push(c));
  ourEnd.resume();
  const [code] = (await once(child, 'exit')) as [number | null];
  if (!ourEnd.closed) await once(ourEnd, 'close');
  assert.equal(stderr, '');
  assert.equal(code, 0);
  const received = Buffer.concat(chunks);
  assert.equal(received.length, data.length);
  assert.equal(sha256(received), sha256(data));
});

test('the connection ends when the child exits, also when it is killed mid-stream', async (t) => {
  const { childEnd, ourEnd } = await loopbackConnection();
  t.after(() => ourEnd.destroy());
  const child = spawn('bash', ['-c', 'head -c 100000 /dev/zero; exec sleep 60'], { stdio: ['ignore', childEnd, 'ignore'] });
  childEnd.destroy();
  let bytes = 0;
  ourEnd.on('data', (c: Buffer) => {
    bytes += c.length;
    if (bytes === 100000) child.kill('SIGKILL');
  });
  await once(ourEnd, 'close');
  assert.equal(bytes, 100000);
  assert.equal(child.signalCode ?? (await once(child, 'exit'))[1], 'SIGKILL');
});

test('each call is its own connection', async (t) => {
  const a = await loopbackConnection();
  const b = await loopbackConnection();
  t.after(() => {
    for (const c of [a, b]) {
      c.childEnd.destroy();
      c.ourEnd.destroy();
    }
  });
  a.childEnd.write('to-a');
  b.childEnd.write('to-b');
  const [fromA] = (await once(a.ourEnd, 'data')) as [Buffer];
  const [fromB] = (await once(b.ourEnd, 'data')) as [Buffer];
  assert.equal(String(fromA), 'to-a');
  assert.equal(String(fromB), 'to-b');
  assert.equal(a.childEnd.remotePort, a.ourEnd.localPort);
});
