// The MySQL images' entrypoint as the sandbox kubelet plays it (sandbox/kubelet/mysql-entrypoint.sh):
// a first start killed in the middle of initialising the data directory, as the kubelet kills a
// container, is restarted and comes up initialised, with the root password and the app account;
// a start killed while moving a complete initialisation into place is finished by the next one.
// Run directly on the host with a data directory and config of the test's own (the kubelet runs
// the same script inside the container's mount namespace with the container's paths).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { MARIADBD } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

// The kubelet runs every container as root, and the entrypoint passes --user=root to mariadbd and
// mariadb-install-db, which only root may do.
const SKIP = process.getuid?.() !== 0 ? 'needs root (the entrypoint runs mariadbd with --user=root, as the sandbox kubelet does)' : false;
const ENTRYPOINT = fileURLToPath(new URL('../../../sandbox/kubelet/mysql-entrypoint.sh', import.meta.url));
const ROOT_PASSWORD = "r00t'pw";
const WORK = '.entrypoint-init';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

interface Layout {
  dir: string;
  dataDir: string;
  conf: string;
  port: number;
}

async function layout(t: TestContext): Promise<Layout> {
  const dir = mkdtempSync(join(tmpdir(), 'mysql-entrypoint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const port = await freePort();
  const conf = join(dir, 'my.cnf');
  // The rendered config's options that matter here: the binary log inside the data directory
  // (an absolute path, as the operator renders it) and the InnoDB sizes.
  writeFileSync(
    conf,
    [
      '[mysqld]',
      `datadir=${dataDir}`,
      `socket=${join(dir, 'mysqld.sock')}`,
      `pid-file=${join(dir, 'mysqld.pid')}`,
      `port=${port}`,
      'bind-address=127.0.0.1',
      'skip-name-resolve',
      `log-bin=${join(dataDir, 'mysql-bin')}`,
      'innodb-buffer-pool-size=64M',
      'innodb-log-file-size=48M',
      '',
    ].join('\n'),
  );
  return { dir, dataDir, conf, port };
}

/** The entrypoint as the kubelet starts it: its own process group, killed as a whole. */
type Entrypoint = ChildProcess & { output: string; exited: Promise<number | null> };

function entrypoint(t: TestContext, l: Layout, env: NodeJS.ProcessEnv = {}): Entrypoint {
  const child = spawn('bash', [ENTRYPOINT, 'mysqld', `--defaults-file=${l.conf}`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      MYSQL_ROOT_PASSWORD: ROOT_PASSWORD,
      MYSQL_DATABASE: 'shop',
      MYSQL_USER: 'app',
      MYSQL_PASSWORD: 'app-pw',
      ...env,
    },
  }) as Entrypoint;
  child.exited = new Promise((resolve) => child.once('exit', resolve));
  child.output = '';
  child.stdout!.on('data', (d: Buffer) => (child.output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (child.output += d.toString()));
  t.after(() => killGroup(child));
  return child;
}

async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    return;
  }
  await exited;
}

/** The server the entrypoint exec'd answers the root password, and the app account its database. */
async function assertInitialised(l: Layout, child: Entrypoint): Promise<void> {
  const root = await Promise.race([
    eventually(
      'mysqld started by the entrypoint to accept root',
      () => mysql.createConnection({ host: '127.0.0.1', port: l.port, user: 'root', password: ROOT_PASSWORD }),
      60_000,
    ),
    child.exited.then((code): never => {
      throw new Error(`the entrypoint exited ${code}: ${child.output.slice(-1500)}`);
    }),
  ]);
  try {
    const [dbs] = await root.query<mysql.RowDataPacket[]>('SHOW DATABASES');
    assert.ok(
      dbs.some((r) => r.Database === 'shop'),
      'MYSQL_DATABASE made',
    );
  } finally {
    await root.end();
  }
  const app = await mysql.createConnection({ host: '127.0.0.1', port: l.port, user: 'app', password: 'app-pw', database: 'shop' });
  await app.query('CREATE TABLE t (id INT PRIMARY KEY)');
  await app.end();
  assert.equal(existsSync(join(l.dataDir, WORK)), false, 'no work directory is left');
}

test('a first start killed while initialising the data directory is redone by the next start', { skip: SKIP }, async (t) => {
  const l = await layout(t);
  // mariadb-install-db runs its bootstrap through MYSQLD_BOOTSTRAP: this one lets mariadbd create
  // part of the system tables, then holds the rest of its input, so the kill lands mid-initialisation.
  const reached = join(l.dir, 'bootstrap-half-done');
  const hold = join(l.dir, 'hold-bootstrap.sh');
  writeFileSync(hold, `#!/bin/bash\n{ head -n 200; touch '${reached}'; exec sleep infinity; } | exec '${MARIADBD}' "$@"\n`);
  chmodSync(hold, 0o755);
  const first = entrypoint(t, l, { MYSQLD_BOOTSTRAP: hold });
  await eventually(
    'the bootstrap to have created part of the system tables',
    () => existsSync(reached) && readdirSync(l.dataDir, { recursive: true }).some((f) => String(f).endsWith('.frm')),
    60_000,
  );
  await killGroup(first);

  const second = entrypoint(t, l);
  await assertInitialised(l, second);
  assert.match(second.output, /discarding an initialisation an earlier start left unfinished/);
});

test('a start killed while moving a complete initialisation into place is finished by the next start', { skip: SKIP }, async (t) => {
  const l = await layout(t);
  const init = entrypoint(t, l, { MYSQL_INIT_ONLY: '1' });
  assert.equal(await init.exited, 0, init.output);
  // What a kill between two renames leaves: the complete work directory still holding `mysql/`
  // and some other entries, the rest already in the data directory.
  const work = join(l.dataDir, WORK);
  mkdirSync(work);
  writeFileSync(join(work, '.complete'), '');
  for (const entry of ['mysql', 'ibdata1', 'shop']) renameSync(join(l.dataDir, entry), join(work, entry));

  const restarted = entrypoint(t, l);
  await assertInitialised(l, restarted);
  assert.match(restarted.output, /finishing the move of an initialisation an earlier start completed/);
});
