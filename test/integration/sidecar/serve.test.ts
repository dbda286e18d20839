// config-and-serve on real MariaDB 10.11 (the sidecar of a replica, as the backup Job and new
// pods use it): /health, one backup stream at a time, the trailer, the client going away, and the
// replica's replication state untouched.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startReplicationPair, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import { BACKUP, fileCleanups, getBackup, startServeSidecar, tempDir, type RunningSidecar } from './support.ts';

const suite = fileCleanups();

let master: MariaDBServer;
let replica: MariaDBServer;
let sidecar: RunningSidecar;

before(async () => {
  ({ master, replica } = await startReplicationPair({ t: suite }));
  await master.sql('CREATE DATABASE app');
  await master.sql('CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(200))');
  await master.sql("INSERT INTO app.t VALUES (1, REPEAT('x', 200)), (2, REPEAT('y', 200))");
  sidecar = await startServeSidecar(suite, replica);
});

test('/health answers 200 without credentials', async () => {
  const res = await fetch(`${sidecar.url}/health`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'OK');
});

test('two concurrent /xbackup requests both succeed, one after the other', async () => {
  const [a, b] = await Promise.all([getBackup(sidecar.url, BACKUP), getBackup(sidecar.url, BACKUP)]);
  for (const r of [a, b]) {
    assert.equal(r.status, 200);
    assert.equal(r.trailer, 'Success');
    assert.ok(r.bytes > 1 << 20, `a full backup, got ${r.bytes} bytes`);
  }
  const [first, second] = a.headersAt < b.headersAt ? [a, b] : [b, a];
  assert.ok(second.headersAt >= first.endedAt, 'the second stream starts only after the first ended');
});

test('taking a backup of a replica leaves its replication running as it was', async () => {
  const node = await replica.node();
  const before = await node.replicationStatus();
  assert.equal(before?.ioRunning, true);
  assert.equal(before?.sqlRunning, true);
  const r = await getBackup(sidecar.url, BACKUP);
  assert.equal(r.trailer, 'Success');
  const after = await node.replicationStatus();
  assert.equal(after?.ioRunning, true);
  assert.equal(after?.sqlRunning, true);
  assert.equal(after?.masterHost, before?.masterHost);
  assert.equal(await node.isReadOnly(), true);
  await master.sql("INSERT INTO app.t VALUES (3, 'after the backup')");
  await eventually('replication to continue', async () => (await replica.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n === 3);
});

function backupChildren(of: RunningSidecar = sidecar): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(of.proc.pid), '-f', 'mariabackup'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

test("the backup tool account's password is on no command line while a stream runs, and the stream succeeds", async (t) => {
  const password = TEST_SYSTEM_USERS.backupTool.password;
  // mariabackup overwrites the value of --password in its own argv once it has parsed it, so in
  // /proc/<pid>/cmdline a password given there shows only for a moment after exec. A stand-in
  // first on PATH records the arguments the sidecar executed, then execs the real tool (same pid).
  const bin = await tempDir(t, 'sidecar-path-');
  const argvFile = join(bin, 'argv');
  const real = execFileSync('sh', ['-c', 'command -v mariabackup'], { encoding: 'utf8' }).trim();
  await writeFile(join(bin, 'mariabackup'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\nexec '${real}' "$@"\n`);
  await chmod(join(bin, 'mariabackup'), 0o755);
  const watched = await startServeSidecar(t, replica, { PATH: `${bin}:${process.env.PATH}` });

  // Read at the first bytes, while the tool streams: what any process of the machine can read about it.
  const inspect = () => {
    const [pid] = backupChildren(watched);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const defaultsFile = /^--defaults-extra-file=(.+)$/.exec(cmdline[1] ?? '')?.[1];
    const mode = (path: string) => statSync(path).mode & 0o777;
    return { cmdline, defaultsFile, modes: defaultsFile ? [mode(defaultsFile), mode(dirname(defaultsFile))] : [] };
  };
  let seen: ReturnType<typeof inspect> | undefined;
  const r = await new Promise<{ status: number; bytes: number; trailer: string | undefined }>((resolve, reject) => {
    const req = http.get(`${watched.url}/xbackup`, { agent: false, auth: `${BACKUP.user}:${BACKUP.password}` }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        if (bytes === 0) {
          try {
            seen = inspect();
          } catch (err) {
            reject(err as Error);
          }
        }
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, trailer: res.trailers['x-backup-status'] }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  assert.equal(r.status, 200);
  assert.equal(r.trailer, 'Success');
  assert.ok(r.bytes > 1 << 20, `a full backup, got ${r.bytes} bytes`);

  assert.ok(seen, 'the tool was seen while streaming');
  assert.equal(seen.cmdline[0], real);
  assert.ok(!seen.cmdline.join(' ').includes(password), seen.cmdline.join(' '));
  assert.ok(!readFileSync(argvFile, 'utf8').includes(password), 'nor in the arguments it was started with');
  assert.ok(!seen.cmdline.some((a) => a.startsWith('--password')), 'no --password argument, masked or not');
  // The password is in an option file the tool is given first, 0600 in a 0700 directory of its own.
  assert.ok(seen.defaultsFile, seen.cmdline.join(' '));
  assert.ok(readFileSync(argvFile, 'utf8').startsWith(`--defaults-extra-file=${seen.defaultsFile}\n--backup\n`));
  assert.deepEqual(seen.modes, [0o600, 0o700]);
  await eventually('the option file to be removed', async () => {
    try {
      statSync(dirname(seen!.defaultsFile!));
      return false;
    } catch {
      return true;
    }
  });
  assert.ok(!watched.output().includes(password), 'no password in the log');
});

test('a client that goes away mid-stream gets its mariabackup killed, and the next request is served', async () => {
  await new Promise<void>((resolve, reject) => {
    const req = http.get(`${sidecar.url}/xbackup`, { agent: false, auth: `${BACKUP.user}:${BACKUP.password}` }, (res) => {
      res.once('data', () => {
        assert.equal(backupChildren().length, 1, 'mariabackup runs while streaming');
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => undefined);
    req.setTimeout(30000, () => reject(new Error('no data')));
  });
  await eventually('mariabackup to be killed', async () => backupChildren().length === 0);
  await eventually('the stop to be logged', async () => /backup stream stopped: the client went away/.test(sidecar.output()));
  const next = await getBackup(sidecar.url, BACKUP);
  assert.equal(next.trailer, 'Success');
});

test('a backup tool failure is reported in the trailer as Failed', async (t) => {
  // The server's backup tool account cannot log in with this password: mariabackup exits non-zero.
  const broken = await startServeSidecar(t, replica, {}, { ...TEST_SYSTEM_USERS.backupTool, password: 'not-the-password' });
  const r = await getBackup(broken.url, BACKUP);
  assert.equal(r.status, 200);
  assert.equal(r.trailer, 'Failed');
  await eventually('the failure to be logged', async () => /backup tool failed/.test(broken.output()));
  assert.ok(!broken.output().includes('not-the-password'), 'no password in the log');
});

test('unknown paths answer 404', async () => {
  const res = await fetch(`${sidecar.url}/nope`);
  assert.equal(res.status, 404);
  await res.arrayBuffer();
});
