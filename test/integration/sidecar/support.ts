// Running the real sidecar binary (`node src/sidecar/main.ts <command>`) against real MariaDB
// servers, as a pod would, with the container paths and peer URLs overridden. Children get a
// controlled environment (nothing of the test runner's), and are killed by the test's cleanup.
import { after } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { CONF_FILE } from '../../../src/api/pod-contract.ts';
import type { Credentials } from '../../../src/mysql/index.ts';
import { renderBackupToolConf } from '../../../src/sidecar/render-pod-files.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
export const SIDECAR_MAIN = join(ROOT, 'src/sidecar/main.ts');

export interface After {
  after(fn: () => unknown): void;
}

/** Cleanups for what a whole test file shares (its `before`), run in reverse order in `after`. */
export function fileCleanups(): After {
  const cleanups: Array<() => unknown> = [];
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  return { after: (fn) => cleanups.push(fn) };
}

export const BACKUP = { user: 'sys_backups', password: 'Back-Secret-7f3a9' };

/** The operated Secret's keys, as envFrom gives them to the init and sidecar containers. */
export function podEnv(over: Record<string, string | undefined> = {}): Record<string, string> {
  const u = TEST_SYSTEM_USERS;
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    MY_NAMESPACE: 'default',
    MY_CLUSTER_NAME: 'c',
    MY_SERVICE_NAME: 'mysql',
    MY_MYSQL_VERSION: 'mariadb-10.11',
    // Far from the harness's server ids, so a clone never shares the source's.
    MY_SERVER_ID_OFFSET: '5000',
    OPERATOR_USER: u.operator.user,
    OPERATOR_PASSWORD: u.operator.password,
    REPLICATION_USER: u.replication.user,
    REPLICATION_PASSWORD: u.replication.password,
    METRICS_EXPORTER_USER: u.exporter.user,
    METRICS_EXPORTER_PASSWORD: u.exporter.password,
    ORC_TOPOLOGY_USER: u.orchestrator.user,
    ORC_TOPOLOGY_PASSWORD: u.orchestrator.password,
    BACKUP_USER: BACKUP.user,
    BACKUP_PASSWORD: BACKUP.password,
    ...over,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export async function tempDir(t: After, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export interface SidecarExit {
  code: number | null;
  output: string;
}

export interface StartedSidecar {
  proc: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves when it exited and its output ended. */
  done: Promise<SidecarExit>;
}

/** Starts the sidecar binary with `args` (`[command, ...]`); `main` picks the form (the built one: bench/backup). */
export function startSidecar(args: string[], env: Record<string, string>, main = SIDECAR_MAIN): StartedSidecar {
  const proc = spawn(process.execPath, [main, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return { proc, output: () => output, done: new Promise((resolve) => proc.once('close', (code) => resolve({ code, output }))) };
}

export interface RunningSidecar {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `config-and-serve` for `server`, on a free port of 127.0.0.1; resolves once it listens. */
/**
 * Starts `config-and-serve` for `server`. Its conf directory holds the xtrabackup.cnf that
 * clone-and-init would have written, for `backupTool` (default: the test users'); null: none, as
 * in a pod whose files an earlier sidecar wrote.
 */
export async function startServeSidecar(
  t: After,
  server: MariaDBServer,
  over: Record<string, string | undefined> = {},
  backupTool: Credentials | null = TEST_SYSTEM_USERS.backupTool,
): Promise<RunningSidecar> {
  const target = await tempDir(t, 'sidecar-xtrabackup-');
  const conf = await tempDir(t, 'sidecar-conf-');
  if (backupTool !== null) await writeFile(join(conf, CONF_FILE.backupTool), renderBackupToolConf(backupTool), { mode: 0o600 });
  // Its temporary files (the backup tool's option file) go with the test, even when it is killed mid-stream.
  const tmp = await tempDir(t, 'sidecar-tmp-');
  const env = podEnv({ XTRABACKUP_TARGET_DIR: target, TMPDIR: tmp, MY_POD_NAME: 'c-mysql-0', ...over });
  const { proc, output, done } = startSidecar(
    [
      'config-and-serve',
      '--http-host=127.0.0.1',
      '--http-port=0',
      `--mysql-host=${server.host}`,
      `--mysql-port=${server.port}`,
      `--config-dir=${conf}`,
    ],
    env,
  );
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    await done;
  };
  t.after(() => kill());
  const port = await new Promise<number>((resolve, reject) => {
    // Registered after startSidecar's own listeners, so output() already holds the chunk.
    const onData = (): void => {
      const complete = output().split('\n').slice(0, -1);
      for (const line of complete) {
        if (!line.includes('sidecar listening')) continue;
        resolve(Number((JSON.parse(line) as { port: number }).port));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void done.then(({ code }) => reject(new Error(`sidecar exited (${code}) before listening:\n${output()}`)));
  });
  return { url: `http://127.0.0.1:${port}`, port, proc, output, kill };
}

/** Starts `clone-and-init`. */
export function startCloneAndInit(args: string[], env: Record<string, string>): StartedSidecar {
  return startSidecar(['clone-and-init', ...args], env);
}

/** Runs `clone-and-init` to completion. */
export function runCloneAndInit(args: string[], env: Record<string, string>): Promise<SidecarExit> {
  return startCloneAndInit(args, env).done;
}

/** A directory standing in for the ConfigMap mount: a my.cnf for MariaDB and a script. */
export async function configMapDir(t: After): Promise<string> {
  const dir = await tempDir(t, 'sidecar-mnt-conf-');
  await writeFile(join(dir, 'my.cnf'), '[mysqld]\nbinlog-format = ROW\n!includedir /etc/mysql/conf.d\n');
  await writeFile(join(dir, 'pre-shutdown-ha.sh'), '#!/bin/bash\n');
  return dir;
}

/**
 * The pod's `conf` directory for a harness server: its conf.d is included last in the server's
 * my.cnf, so the identity and init-file written by clone-and-init take effect as in a pod.
 */
export async function confDirFor(t: After): Promise<string> {
  const dir = await tempDir(t, 'sidecar-etc-mysql-');
  await mkdir(join(dir, 'conf.d'));
  return dir;
}

export interface BackupResponse {
  status: number;
  bytes: number;
  trailer: string | undefined;
  body?: Buffer;
  /** When the response headers arrived and when the body ended (process.hrtime, ms). */
  headersAt: number;
  endedAt: number;
}

/** GET /xbackup, counting (or keeping, with `keep`) the body. */
export function getBackup(
  url: string,
  auth: { user: string; password: string },
  opts: { keep?: boolean; sink?: (r: Readable) => Promise<void> } = {},
): Promise<BackupResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/xbackup`, { agent: false, auth: `${auth.user}:${auth.password}` }, (res) => {
      const headersAt = performance.now();
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (opts.keep) chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          trailer: res.trailers['x-backup-status'],
          ...(opts.keep ? { body: Buffer.concat(chunks) } : {}),
          headersAt,
          endedAt: performance.now(),
        }),
      );
    });
    req.on('error', reject);
  });
}

/** Fills `app.rows` on `server` with about `mb` MB of rows. */
export async function fillData(server: MariaDBServer, mb: number): Promise<number> {
  await server.sql('CREATE DATABASE IF NOT EXISTS app');
  await server.sql('CREATE TABLE IF NOT EXISTS app.rows (id INT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(1000) NOT NULL) ENGINE=InnoDB');
  const perInsert = 1000;
  const inserts = Math.max(1, Math.round((mb * 1024 * 1024) / (perInsert * 1000)));
  const values = Array.from({ length: perInsert }, () => '(REPEAT(MD5(RAND()), 31))').join(',');
  for (let i = 0; i < inserts; i++) await server.sql(`INSERT INTO app.rows (payload) VALUES ${values}`);
  return inserts * perInsert;
}

export async function rowCount(server: MariaDBServer): Promise<number> {
  const rows = await server.sql('SELECT COUNT(*) AS n FROM app.rows');
  return Number(rows[0]?.n);
}
