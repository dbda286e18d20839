// A pod's hosts file is rewritten in place (a bind mount holds its inode) whenever a pod or
// Service comes or goes. A lookup that reads it meanwhile must still find every name that stays:
// an empty read sends the lookup to DNS, which the sandbox does not answer, and the operator's
// connections to running servers then time out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeInPlace } from '../../../sandbox/network/pods.ts';

const line = (i: number) => `10.213.0.${i}\tmy-db-mysql-${i}.mysql.default.svc.cluster.local my-db-mysql-${i}.mysql.default\n`;
const hostsWith = (n: number) => `127.0.0.1\tlocalhost\n${Array.from({ length: n }, (_, i) => line(i + 2)).join('')}`;

test('a reader of a hosts file being rewritten always finds the names that stay in it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hosts-rewrite-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'hosts');
  await writeInPlace(path, hostsWith(3));
  const inode = statSync(path).ino;

  // A reader on every turn of the event loop while pods come and go (5 names, then 3, ...): the
  // writes' file operations run on the thread pool, so reads land between them.
  let reads = 0;
  const missed: string[] = [];
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const text = readFileSync(path, 'utf8');
      reads++;
      if (!text.includes(line(2)) || !text.includes(line(4))) missed.push(JSON.stringify(text.slice(0, 80)));
      await new Promise((r) => setImmediate(r));
    }
  })();
  for (let i = 0; i < 200; i++) assert.equal(await writeInPlace(path, hostsWith(i % 2 === 0 ? 5 : 3)), true);
  reading = false;
  await reader;

  assert.ok(reads > 200, `the reader ran between the writes (${reads} reads)`);
  assert.deepEqual(missed.slice(0, 3), [], `${missed.length} of ${reads} reads missed names that stayed`);
  assert.equal(readFileSync(path, 'utf8'), hostsWith(3), 'the last text, without a tail of the longer one before it');
  assert.equal(statSync(path).ino, inode, 'the same file: a bind mount of it sees the change');
  assert.equal(await writeInPlace(path, hostsWith(3)), false, 'an unchanged text is not written');
});
