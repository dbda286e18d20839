// Real MariaDB servers for tests. Each server has its own temp directory (datadir, my.cnf, socket,
// error log) and listens on port 3306 of its own loopback address 127.x.y.z, as pods do on their
// own IPs; addresses are drawn at random and probed, so test files running in parallel do not
// collide. Clients reach every server from 127.0.0.1 (the kernel's source address on lo), which
// is what the `@'127.0.0.1'` system users need.
//
// Cleanup: `cleanup()` (register it with `t.after`), plus a process 'exit' hook that SIGKILLs
// whatever is left, plus `setpriv --pdeathsig KILL` so a server dies with its test process even
// when that process is killed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import {
  connectNode,
  flavourFromVersionSpec,
  renderInitFile,
  nativePasswordHash,
  type ConnectParams,
  type Credentials,
  type MysqlNode,
  type SystemCredentials,
} from '../../src/mysql/index.ts';
import { installDataDir, TEMPLATE_ENV } from './mariadb-template.ts';
import { eventually } from './wait.ts';

export const MARIADBD = existsSync('/usr/sbin/mariadbd') ? '/usr/sbin/mariadbd' : 'mariadbd';

/** Passwords of the system users when a server is started with `systemUsers: true`. */
/** Orchestrator's account is created from its hash; tests log in with the password it was made from. */
export const TEST_SYSTEM_USERS: SystemCredentials & { orchestrator: Credentials } = {
  operator: { user: 'sys_operator', password: 'op-secret-1' },
  orchestrator: { user: 'orchestrator', password: 'orc-secret-1', passwordHash: nativePasswordHash('orc-secret-1') },
  replication: { user: 'sys_replication', password: 'repl-secret-1' },
  exporter: { user: 'sys_exporter', password: 'exp-secret-1' },
  heartbeat: { user: 'sys_heartbeat', password: 'hb-secret-1' },
  backupTool: { user: 'sys_xtrabackup', password: 'xb-secret-1' },
};

export interface StartMariaDBOptions {
  /** Default: a distinct server id per server. */
  serverId?: number;
  /** Default: a free random 127.x.y.z with port 3306. Give `port: 0` to use 127.0.0.1 and a free port. */
  host?: string;
  port?: number;
  /** Default `<name>.test`; what Orchestrator would know the server by. */
  reportHost?: string;
  /** Name used in the directory and report-host (default `db`). */
  name?: string;
  /** Extra `[mysqld]` lines (e.g. `read-only=1`), appended last so they override. */
  extraConfig?: string | readonly string[];
  /** Text of an init-file the server runs at every start. */
  initFile?: string;
  /**
   * Writes an init-file from src/mysql's generator (MariaDB flavour, TEST_SYSTEM_USERS): the
   * server starts read-only with the operator's users and schema, as a pod does. Ignored when
   * `initFile` is given.
   */
  systemUsers?: boolean;
  /**
   * With `systemUsers`: leave root fenced as in a pod (no READ_ONLY ADMIN, so read_only binds it
   * and it cannot set read_only). By default the harness's root@127.0.0.1 and root@localhost get
   * it back after the fence (initFileExtraSQL, as a person exempting an admin account would), so
   * tests keep using root for their setup.
   */
  fenceRoot?: boolean;
  /** Something with `after(fn)` (a node:test context): cleanup registered there. */
  t?: { after(fn: () => unknown): void };
}

export interface MariaDBServer {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly serverId: number;
  readonly reportHost: string;
  readonly dir: string;
  readonly datadir: string;
  /** my.cnf, written at the first start; edits apply at the next start(). */
  readonly configPath: string;
  readonly socketPath: string;
  /** Path of the init-file, when the server has one; rewrite it between restarts. */
  readonly initFilePath: string | null;
  /** root@127.0.0.1 without password: tests' admin access. */
  rootParams(): ConnectParams;
  /** Connection details for a user (`TEST_SYSTEM_USERS` roles need `systemUsers: true`). */
  paramsFor(user: string, password: string): ConnectParams;
  /** A src/mysql node as root. Closed by cleanup(). */
  node(params?: ConnectParams): Promise<MysqlNode>;
  /**
   * Runs SQL (several statements allowed) as root, or as `as`; returns the rows of the last result.
   * As `as`, it returns only once the server has let the session go, so the next connection of a
   * user with MAX_USER_CONNECTIONS is not refused for it.
   */
  sql(text: string, values?: unknown[], as?: { user: string; password: string }): Promise<Record<string, unknown>[]>;
  /** True while the process runs. */
  running(): boolean;
  /** Starts mysqld again on the same datadir and waits until it answers. */
  start(): Promise<void>;
  /** Clean shutdown (SIGTERM), waits for exit. */
  stop(): Promise<void>;
  /** SIGKILL, waits for exit. */
  kill(): Promise<void>;
  /**
   * SIGSTOP: a hung server (connections accepted by the kernel, never answered). Resolves once
   * every thread of mariadbd is stopped.
   */
  pause(): Promise<void>;
  /** SIGCONT; the kernel wakes every thread before kill() returns. */
  resume(): void;
  /** The tail of the error log, for assertion messages. */
  errorLog(lines?: number): string;
  /** Kills the server and removes its directory. Idempotent. */
  cleanup(): Promise<void>;
}

const live = new Set<ChildProcess>();
const dirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of live) {
      try {
        p.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
    for (const d of dirs) {
      try {
        rmSync(d, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    }
  });
}

let processTemplate: string | null = null;

/**
 * Puts a pristine data directory at `datadir`: a copy of the run's template (TEST_MARIADB_TEMPLATE,
 * made by scripts/test.ts), else of one this process installs at its first server.
 */
function freshDataDir(datadir: string): void {
  let template = process.env[TEMPLATE_ENV];
  if (!template || !existsSync(template)) {
    if (!processTemplate) {
      const own = mkdtempSync(join(tmpdir(), 'mdb-template-'));
      dirs.add(own);
      installDataDir(join(own, 'data'), own);
      processTemplate = join(own, 'data');
    }
    template = processTemplate;
  }
  cpSync(template, datadir, { recursive: true, preserveTimestamps: true });
}

const hasSetpriv = spawnSync('setpriv', ['--help'], { stdio: 'ignore' }).status === 0;

function canListen(host: string, port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(null));
    srv.listen({ host, port, exclusive: true }, () => {
      const addr = srv.address();
      const got = typeof addr === 'object' && addr ? addr.port : null;
      srv.close(() => resolve(got));
    });
  });
}

async function pickAddress(host: string | undefined, port: number | undefined): Promise<{ host: string; port: number }> {
  if (host !== undefined || port !== undefined) {
    const h = host ?? '127.0.0.1';
    const p = await canListen(h, port ?? 3306);
    if (p === null) throw new Error(`startMariaDB: ${h}:${port ?? 3306} is in use`);
    return { host: h, port: p };
  }
  for (let i = 0; i < 50; i++) {
    const h = `127.${100 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 256)}.${2 + Math.floor(Math.random() * 250)}`;
    if ((await canListen(h, 3306)) !== null) return { host: h, port: 3306 };
  }
  throw new Error('startMariaDB: no free loopback address with port 3306');
}

let nextServerId = 1 + (process.pid % 1000) * 100;

export async function startMariaDB(opts: StartMariaDBOptions = {}): Promise<MariaDBServer> {
  installExitHook();
  const name = opts.name ?? 'db';
  const dir = mkdtempSync(join(tmpdir(), `mdb-${name}-`));
  dirs.add(dir);
  const datadir = join(dir, 'data');
  const serverId = opts.serverId ?? nextServerId++;
  const reportHost = opts.reportHost ?? `${name}.test`;
  const configPath = join(dir, 'my.cnf');
  const socketPath = join(dir, 'mysqld.sock');
  const errorLogPath = join(dir, 'error.log');
  let initFilePath: string | null = null;
  const initText = opts.initFile ?? (opts.systemUsers ? systemUsersInitFile([], { fenceRoot: opts.fenceRoot }) : undefined);
  if (initText !== undefined) {
    initFilePath = join(dir, 'init.sql');
    writeFileSync(initFilePath, initText);
  }

  try {
    freshDataDir(datadir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
    throw err;
  }

  let proc: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let addr: { host: string; port: number } | null = null;
  const nodes = new Set<MysqlNode>();

  const writeConfig = (a: { host: string; port: number }): void => {
    const extra = typeof opts.extraConfig === 'string' ? [opts.extraConfig] : [...(opts.extraConfig ?? [])];
    writeFileSync(
      configPath,
      [
        '[mysqld]',
        'user=root',
        `datadir=${datadir}`,
        `socket=${socketPath}`,
        `pid-file=${join(dir, 'mysqld.pid')}`,
        `log-error=${errorLogPath}`,
        `tmpdir=${dir}`,
        `bind-address=${a.host}`,
        `port=${a.port}`,
        `server-id=${serverId}`,
        `report-host=${reportHost}`,
        `report-port=${a.port}`,
        'log-bin=mysql-bin',
        'log-slave-updates=1',
        'binlog-format=ROW',
        'skip-name-resolve',
        'performance-schema=OFF',
        'innodb-buffer-pool-size=16M',
        'innodb-log-file-size=8M',
        'innodb-flush-log-at-trx-commit=2',
        'sync-binlog=0',
        'max-connections=60',
        ...(initFilePath ? [`init-file=${initFilePath}`] : []),
        ...extra,
        '',
      ].join('\n'),
    );
  };

  const launch = async (): Promise<void> => {
    if (proc) throw new Error(`${name}: already running`);
    // The address is chosen once; a restart reuses it (another process could have taken it, rarely).
    if (!addr) {
      addr = await pickAddress(opts.host, opts.port);
      // Written once: a test may edit configPath between restarts.
      writeConfig(addr);
    }
    const args = [`--defaults-file=${configPath}`];
    const p = hasSetpriv
      ? spawn('setpriv', ['--pdeathsig', 'KILL', MARIADBD, ...args], { stdio: 'ignore' })
      : spawn(MARIADBD, args, { stdio: 'ignore' });
    proc = p;
    live.add(p);
    exited = new Promise<void>((resolve) =>
      p.once('exit', () => {
        live.delete(p);
        if (proc === p) proc = null;
        resolve();
      }),
    );
    const deadline = Date.now() + 30000;
    for (;;) {
      if (!live.has(p)) throw new Error(`${name}: mariadbd exited during start:\n${tailOf(errorLogPath, 30)}`);
      try {
        const c = await mysql.createConnection({ host: addr.host, port: addr.port, user: 'root', connectTimeout: 1000 });
        await c.end();
        return;
      } catch {
        if (Date.now() > deadline) {
          p.kill('SIGKILL');
          await exited;
          throw new Error(`${name}: mariadbd did not answer within 30 s:\n${tailOf(errorLogPath, 30)}`);
        }
        await sleep(50);
      }
    }
  };

  const signalAndWait = async (sig: NodeJS.Signals): Promise<void> => {
    const p = proc;
    if (!p) return;
    p.kill(sig);
    await exited;
  };

  let cleaned = false;
  const server: MariaDBServer = {
    name,
    get host() {
      return must(addr).host;
    },
    get port() {
      return must(addr).port;
    },
    serverId,
    reportHost,
    dir,
    datadir,
    configPath,
    socketPath,
    initFilePath,
    rootParams: () => ({ host: must(addr).host, port: must(addr).port, user: 'root', password: '', connectTimeoutMs: 3000 }),
    paramsFor: (user, password) => ({ host: must(addr).host, port: must(addr).port, user, password, connectTimeoutMs: 3000 }),
    node: async (params) => {
      const n = await connectNode(params ?? server.rootParams());
      nodes.add(n);
      return n;
    },
    sql: async (text, values, as) => {
      const a = must(addr);
      const c = await mysql.createConnection({
        host: a.host,
        port: a.port,
        user: as?.user ?? 'root',
        password: as?.password ?? '',
        multipleStatements: true,
        dateStrings: true,
      });
      try {
        const [rows] = await c.query(text, values);
        if (!Array.isArray(rows)) return [];
        // Several statements give one result per statement (row arrays or OK packets): keep the last.
        const isResult = (r: unknown): boolean =>
          Array.isArray(r) || (typeof r === 'object' && r !== null && 'affectedRows' in r && 'insertId' in r);
        if (rows.length === 0 || !rows.every(isResult)) return rows as Record<string, unknown>[];
        const last: unknown = rows[rows.length - 1];
        return Array.isArray(last) ? (last as Record<string, unknown>[]) : [];
      } finally {
        await c.end();
        // mysql2's end() resolves before the QUIT is even written; the server lowers the user's
        // connection count (end_connection) before it drops the session from the processlist.
        if (as) await sessionGone(a, c.threadId);
      }
    },
    running: () => proc !== null,
    start: launch,
    stop: () => signalAndWait('SIGTERM'),
    kill: () => signalAndWait('SIGKILL'),
    pause: async () => {
      const p = proc;
      const pid = p?.pid;
      if (!p || pid === undefined) return;
      p.kill('SIGSTOP');
      // kill() returns with the stop only queued: each thread stops when it next runs, and under
      // load a connection thread can still answer a query meanwhile.
      await eventually(`${name} (pid ${pid}) to stop`, async () => threadStates(pid).every((st) => 'TtZX'.includes(st)));
    },
    resume: () => {
      proc?.kill('SIGCONT');
    },
    errorLog: (lines = 40) => tailOf(errorLogPath, lines),
    cleanup: async () => {
      if (cleaned) return;
      cleaned = true;
      for (const n of nodes) await n.close().catch(() => undefined);
      await signalAndWait('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
  };
  opts.t?.after(() => server.cleanup());
  try {
    await launch();
  } catch (e) {
    await server.cleanup();
    throw e;
  }
  return server;
}

/**
 * Every binlog of the server as `mariadb-binlog` prints it, row events decoded into commented
 * pseudo-SQL (`-vv`): what a replica's relay log, a backup of the datadir or an error log quoting
 * a replayed statement could show.
 */
export function binlogText(server: MariaDBServer): string {
  const files = readdirSync(server.datadir)
    .filter((f) => /^mysql-bin\.\d+$/.test(f))
    .sort()
    .map((f) => join(server.datadir, f));
  if (files.length === 0) throw new Error(`${server.name}: no binlog in ${server.datadir}`);
  const out = spawnSync('mariadb-binlog', ['--base64-output=decode-rows', '-vv', ...files], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (out.status !== 0) throw new Error(`mariadb-binlog failed: ${out.stderr}`);
  return out.stdout;
}

/** Resolves once the server no longer lists session `id` (or no longer answers: then it has none). */
async function sessionGone(a: { host: string; port: number }, id: number): Promise<void> {
  const root = await mysql.createConnection({ host: a.host, port: a.port, user: 'root' }).catch(() => null);
  if (!root) return;
  root.on('error', () => undefined);
  try {
    await eventually(`session ${id} to end`, async () => {
      try {
        const [rows] = await root.query('SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?', [id]);
        return Array.isArray(rows) && rows.length === 0;
      } catch {
        return true;
      }
    });
  } finally {
    await root.end();
  }
}

/** One state letter (R, S, D, T, ...) per thread of `pid`, from /proc; none when it is gone. */
function threadStates(pid: number): string[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const states: string[] = [];
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // "tid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
      states.push(stat.charAt(stat.lastIndexOf(')') + 2));
    } catch {
      // the thread ended meanwhile
    }
  }
  return states;
}

function must<T>(v: T | null): T {
  if (v === null) throw new Error('server has no address yet');
  return v;
}

function tailOf(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no error log)';
  }
}

/** The harness's admin accounts, given READ_ONLY ADMIN back after the fence unless `fenceRoot`. */
export const HARNESS_ROOT_UNFENCED: readonly string[] = [
  "GRANT READ_ONLY ADMIN ON *.* TO 'root'@'127.0.0.1'",
  "GRANT READ_ONLY ADMIN ON *.* TO 'root'@'localhost'",
];

export function systemUsersInitFile(extraSql: readonly string[] = [], opts: { fenceRoot?: boolean } = {}): string {
  const flavour = flavourFromVersionSpec('mariadb-10.11');
  if (!flavour) throw new Error('unreachable: mariadb-10.11 parses');
  return renderInitFile({
    flavour,
    users: TEST_SYSTEM_USERS,
    statusTableMissing: true,
    backupGtid: null,
    restoredFromBucket: false,
    extraSql: opts.fenceRoot ? extraSql : [...HARNESS_ROOT_UNFENCED, ...extraSql],
  });
}

export interface ReplicationPair {
  master: MariaDBServer;
  replica: MariaDBServer;
}

/**
 * A master and a replica replicating from it with GTID (slave_pos) through src/mysql, both
 * with the system users. The master is made writable; the replica stays read-only.
 */
export async function startReplicationPair(opts: { t?: StartMariaDBOptions['t'] } = {}): Promise<ReplicationPair> {
  const [master, replica] = await Promise.all([
    startMariaDB({ name: 'master', systemUsers: true, t: opts.t }),
    startMariaDB({ name: 'replica', systemUsers: true, t: opts.t }),
  ]);
  const m = await master.node();
  await m.setReadOnly(false);
  const r = await replica.node();
  await r.pointAt({ host: master.host, port: master.port }, TEST_SYSTEM_USERS.replication);
  await r.startReplication();
  await eventually('replica IO thread running', async () => (await r.replicationStatus())?.ioRunning === true);
  return { master, replica };
}
