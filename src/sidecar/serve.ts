// `config-and-serve`: the sidecar's HTTP server. `/health` answers 200; `/xbackup` (basic auth)
// streams a fresh physical backup of the local server, one at a time, and tells the outcome in
// the `X-Backup-Status` trailer, because by the time the backup tool fails the 200 and most of
// the body are long gone.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from '../runtime/logger.ts';
import { readFile } from 'node:fs/promises';
import { podFilePaths, type Credentials, type SidecarConfig } from './config.ts';
import { outcomeOf, terminate } from './child.ts';
import { loopbackConnection } from './loopback-stdio.ts';
import { backupAccount, backupArgs, backupDefaults, toolNames } from './tools.ts';
import { writeSecretFile, type SecretFile } from './secret-file.ts';
import {
  BACKUP_FAILED,
  BACKUP_STATUS_TRAILER,
  BACKUP_SUCCESS,
  HEALTH_PATH,
  XBACKUP_IDLE_LIMIT_SECONDS,
  XBACKUP_MAX_WAITING,
  XBACKUP_PATH,
  XBACKUP_RETRY_AFTER_SECONDS,
  XBACKUP_START_LIMIT_SECONDS,
} from '../api/pod-contract.ts';

const RELAY_BUFFER_BYTES = 1 << 20;

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time check of a basic-auth header against the expected credentials. */
export function authorized(header: string | undefined, expected: Credentials): boolean {
  if (expected.user === '' || expected.password === '') return false;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), digest(expected.user));
  const passwordOk = timingSafeEqual(digest(decoded.slice(colon + 1)), digest(expected.password));
  return userOk && passwordOk;
}

/**
 * One stream at a time, and a bounded line of callers waiting for it (FIFO). `enter` answers
 * undefined when the line is full; a caller that gives up leaves the line and frees its place.
 */
export class StreamTurns {
  readonly maxWaiting: number;
  #running = false;
  #line: Array<() => void> = [];
  constructor(maxWaiting: number) {
    this.maxWaiting = maxWaiting;
  }
  /** True when a caller would have to wait for its turn. */
  get busy(): boolean {
    return this.#running;
  }
  get waiting(): number {
    return this.#line.length;
  }
  enter(): { turn: Promise<() => void>; leave(): boolean } | undefined {
    if (!this.#running) {
      this.#running = true;
      return { turn: Promise.resolve(this.#releaser()), leave: () => false };
    }
    if (this.#line.length >= this.maxWaiting) return undefined;
    let grant!: () => void;
    const turn = new Promise<() => void>((resolve) => (grant = () => resolve(this.#releaser())));
    this.#line.push(grant);
    return {
      turn,
      /** True when it was still in line; false when its turn had been given already. */
      leave: () => {
        const i = this.#line.indexOf(grant);
        if (i < 0) return false;
        this.#line.splice(i, 1);
        return true;
      },
    };
  }
  /** The release of the turn just given: hands the stream to the next in line, once. */
  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.#line.shift();
      if (next) next();
      else this.#running = false;
    };
  }
}

/** The time limits of `/xbackup`, in milliseconds (pod-contract.ts has the defaults). */
export interface StreamLimits {
  /** From the request's arrival to its 200: longer, and it gets 503. */
  startMs: number;
  /** No byte moved to the client for this long cuts the stream. */
  idleMs: number;
  maxWaiting: number;
  retryAfterSeconds: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  startMs: XBACKUP_START_LIMIT_SECONDS * 1000,
  idleMs: XBACKUP_IDLE_LIMIT_SECONDS * 1000,
  maxWaiting: XBACKUP_MAX_WAITING,
  retryAfterSeconds: XBACKUP_RETRY_AFTER_SECONDS,
};

export interface SidecarServer {
  /** The bound port (the configured one, or the one the OS chose for port 0). */
  port: number;
  /** Stops listening, kills a running backup, closes connections. */
  close(): Promise<void>;
}

export interface ServeDeps {
  cfg: SidecarConfig;
  log: Logger;
  /** Starts the backup tool as `account` writing to `stdout`, its password in `defaultsFile`; tests substitute a stand-in. */
  spawnBackup?: (cfg: SidecarConfig, stdout: Socket, defaultsFile: string, account: Credentials) => ChildProcess;
  /** DEFAULT_STREAM_LIMITS unless given (tests shorten them). */
  limits?: Partial<StreamLimits>;
}

function spawnBackupTool(cfg: SidecarConfig, stdout: Socket, defaultsFile: string, account: Credentials): ChildProcess {
  return spawn(toolNames(cfg.flavour).backup, backupArgs(cfg, defaultsFile, account), { stdio: ['ignore', stdout, 'pipe'] });
}

/** The pod's xtrabackup.cnf (written by clone-and-init), or undefined when this pod's files have none. */
async function readBackupToolConf(cfg: SidecarConfig): Promise<string | undefined> {
  try {
    return await readFile(podFilePaths(cfg.paths.configDir).backupTool, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Resolves once `socket` has closed, whether by end of data or by error. */
function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
}

/** What the request handlers of one server share. */
interface ServerState {
  cfg: SidecarConfig;
  log: Logger;
  spawnBackup: NonNullable<ServeDeps['spawnBackup']>;
  limits: StreamLimits;
  turns: StreamTurns;
  /**
   * Streams run one at a time, so they share one buffer. A stream reads its output's end only
   * after the callback of its last write, so once it is over no write of it points into the buffer.
   */
  relayBuffer: Buffer;
  /** The backup tools running, for `close` to stop. */
  running: Set<ChildProcess>;
}

function refuse(s: ServerState, res: ServerResponse, remote: string | undefined, why: string): void {
  s.log.warn(`refused backup request: ${why}`, { remote, retryAfterSeconds: s.limits.retryAfterSeconds });
  res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': String(s.limits.retryAfterSeconds) }).end(`${why}\n`);
}

/**
 * The stream's turn for this request, waited for at most until `startMs` after `arrived`;
 * undefined when the request was answered 503 or its client left meanwhile.
 */
async function waitForTurn(
  s: ServerState,
  res: ServerResponse,
  remote: string | undefined,
  arrived: number,
): Promise<(() => void) | undefined> {
  const { limits, turns, log } = s;
  const queued = turns.busy;
  const place = turns.enter();
  if (!place) {
    refuse(s, res, remote, `a stream is running and ${limits.maxWaiting} request(s) wait for it already`);
    return undefined;
  }
  if (queued) log.info('backup request waits for the stream in progress', { remote });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    place.turn,
    new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, arrived + limits.startMs - Date.now())))),
    new Promise<'gone'>((resolve) => res.once('close', () => resolve('gone'))),
  ]);
  clearTimeout(timer);
  if (typeof outcome === 'function') return outcome;
  // Granted at the same moment it gave up: hand the turn on at once.
  if (!place.leave()) (await place.turn)();
  if (outcome === 'late') refuse(s, res, remote, `no stream could start within ${limits.startMs / 1000} s`);
  return undefined;
}

/** Serves one `/xbackup` request: checks its credentials, waits for its turn, streams. */
async function streamBackup(s: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrived = Date.now();
  const remote = req.socket.remoteAddress;
  if (!authorized(req.headers.authorization, s.cfg.backup)) {
    s.log.warn('refused backup request: wrong or missing credentials', { remote });
    res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Not authenticated!\n');
    return;
  }
  let clientGone = false;
  res.once('close', () => (clientGone = !res.writableFinished));
  const release = await waitForTurn(s, res, remote, arrived);
  if (!release) return;
  let defaults: SecretFile | undefined;
  try {
    if (clientGone) return;
    const started = Date.now();
    // The tool's password, for this stream only: removed (finally) once the tool has exited.
    const account = backupAccount(s.cfg, await readBackupToolConf(s.cfg));
    defaults = await writeSecretFile('backup.cnf', backupDefaults(account));
    await relayBackup(s, res, { remote, started, defaultsFile: defaults.path, account, clientGone: () => clientGone });
  } finally {
    await defaults?.remove();
    release();
  }
}

/** Runs the backup tool and relays its output to `res`, the outcome in the trailer. */
async function relayBackup(
  s: ServerState,
  res: ServerResponse,
  r: { remote: string | undefined; started: number; defaultsFile: string; account: Credentials; clientGone: () => boolean },
): Promise<void> {
  const { cfg, log, limits, running } = s;
  const { remote } = r;
  let idle: NodeJS.Timeout | undefined;
  try {
    // The tool writes into a loopback connection rather than a pipe (loopback-stdio.ts), which
    // we read 1 MiB at a time into one buffer: no allocation per piece, and a sixteenth of the
    // reads and HTTP chunks of Node's 64 KiB stream reads. The buffer is read into again only
    // once the response has handed the last piece to the kernel.
    let bytes = 0;
    const { childEnd, ourEnd: output } = await loopbackConnection({
      buffer: s.relayBuffer,
      callback: (n, buffer) => {
        bytes += n;
        res.write(buffer.subarray(0, n), () => {
          idle?.refresh();
          output.resume();
        });
        return false;
      },
    });
    if (r.clientGone()) {
      childEnd.destroy();
      output.destroy();
      return;
    }
    log.info('backup stream started', { remote });
    const child = s.spawnBackup(cfg, childEnd, r.defaultsFile, r.account);
    childEnd.destroy();
    running.add(child);
    const outcome = outcomeOf(child);
    const stop = (): void => {
      // Unread output would keep the child writing; dropping it also hurries the child.
      output.destroy();
      terminate(child);
    };
    res.once('close', () => {
      if (!res.writableFinished) stop();
    });
    let cut = false;
    // Moving bytes to the client is progress; a tool that writes nothing, or a client that
    // reads nothing, holds the one stream, so after idleMs of neither the stream is cut.
    idle = setTimeout(() => {
      cut = true;
      stop();
      res.destroy();
    }, limits.idleMs);
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      Trailer: BACKUP_STATUS_TRAILER,
    });
    await closed(output);
    const o = await outcome;
    running.delete(child);
    const fields = { remote, bytes, seconds: (Date.now() - r.started) / 1000, status: o.status };
    if (cut) {
      log.warn(`backup stream cut: no byte moved for ${limits.idleMs / 1000} s`, fields);
      return;
    }
    if (res.destroyed || r.clientGone()) {
      log.warn('backup stream stopped: the client went away', fields);
      return;
    }
    res.addTrailers({ [BACKUP_STATUS_TRAILER]: o.ok ? BACKUP_SUCCESS : BACKUP_FAILED });
    res.end();
    if (o.ok) log.info('backup stream finished', fields);
    else log.error('backup tool failed', { ...fields, stderr: o.stderrTail });
  } finally {
    clearTimeout(idle);
  }
}

export async function startServer(deps: ServeDeps): Promise<SidecarServer> {
  const { cfg, log } = deps;
  const limits: StreamLimits = { ...DEFAULT_STREAM_LIMITS, ...deps.limits };
  const s: ServerState = {
    cfg,
    log,
    spawnBackup: deps.spawnBackup ?? spawnBackupTool,
    limits,
    turns: new StreamTurns(limits.maxWaiting),
    relayBuffer: Buffer.allocUnsafe(RELAY_BUFFER_BYTES),
    running: new Set<ChildProcess>(),
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === HEALTH_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK');
      return;
    }
    if (path === XBACKUP_PATH && (req.method === 'GET' || req.method === undefined)) {
      streamBackup(s, req, res).catch((err: unknown) => {
        log.error('backup stream crashed', { error: err instanceof Error ? err.message : String(err) });
        res.destroy();
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
  });
  // A backup can take hours; no server-side timeouts on the response.
  server.requestTimeout = 0;
  server.timeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.http.port, cfg.http.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  log.info('sidecar listening', { host: cfg.http.host, port });

  return {
    port,
    async close(): Promise<void> {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const child of s.running) terminate(child, 2000);
      server.closeAllConnections();
      await closed;
    },
  };
}
