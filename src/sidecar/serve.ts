// `config-and-serve`: the sidecar's HTTP server. `/health` answers 200; `/xbackup` (basic auth)
// streams a fresh physical backup of the local server, one at a time, and tells the outcome in
// the `X-Backup-Status` trailer, because by the time the backup tool fails the 200 and most of
// the body are long gone.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from '../runtime/logger.ts';
import type { Credentials, SidecarConfig } from './config.ts';
import { outcomeOf, terminate } from './child.ts';
import { loopbackConnection } from './loopback-stdio.ts';
import { backupArgs, backupDefaults, toolNames } from './tools.ts';
import { writeSecretFile, type SecretFile } from './secret-file.ts';
import { BACKUP_FAILED, BACKUP_STATUS_TRAILER, BACKUP_SUCCESS, HEALTH_PATH, XBACKUP_PATH } from '../api/pod-contract.ts';

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

/** A FIFO of turns: each caller gets a release function when every earlier caller released. */
class OneAtATime {
  #tail: Promise<void> = Promise.resolve();
  #holders = 0; // callers that acquired and have not released yet, waiting or not
  /** True when a caller would have to wait for its turn. */
  get busy(): boolean {
    return this.#holders > 0;
  }
  acquire(): Promise<() => void> {
    let release!: () => void;
    this.#holders++;
    const done = new Promise<void>((resolve) => {
      release = () => {
        this.#holders--;
        resolve();
      };
    });
    const turn = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => done);
    return turn;
  }
}

export interface SidecarServer {
  /** The bound port (the configured one, or the one the OS chose for port 0). */
  port: number;
  /** Stops listening, kills a running backup, closes connections. */
  close(): Promise<void>;
}

export interface ServeDeps {
  cfg: SidecarConfig;
  log: Logger;
  /** Starts the backup tool writing to `stdout`, its password in `defaultsFile`; tests substitute a stand-in. */
  spawnBackup?: (cfg: SidecarConfig, stdout: Socket, defaultsFile: string) => ChildProcess;
}

function spawnBackupTool(cfg: SidecarConfig, stdout: Socket, defaultsFile: string): ChildProcess {
  return spawn(toolNames(cfg.flavour).backup, backupArgs(cfg, defaultsFile), { stdio: ['ignore', stdout, 'pipe'] });
}

/** Resolves once `socket` has closed, whether by end of data or by error. */
function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
}

export async function startServer(deps: ServeDeps): Promise<SidecarServer> {
  const { cfg, log } = deps;
  const spawnBackup = deps.spawnBackup ?? spawnBackupTool;
  const turns = new OneAtATime();
  // Streams run one at a time, so they share one buffer. A stream reads its output's end only
  // after the callback of its last write, so once it is over no write of it points into the buffer.
  const relayBuffer = Buffer.allocUnsafe(RELAY_BUFFER_BYTES);
  const running = new Set<ChildProcess>();

  async function streamBackup(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = req.socket.remoteAddress;
    if (!authorized(req.headers.authorization, cfg.backup)) {
      log.warn('refused backup request: wrong or missing credentials', { remote });
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Not authenticated!\n');
      return;
    }
    let clientGone = false;
    res.once('close', () => (clientGone = !res.writableFinished));
    if (turns.busy) log.info('backup request waits for the stream in progress', { remote });
    const release = await turns.acquire();
    let defaults: SecretFile | undefined;
    try {
      if (clientGone) return;
      const started = Date.now();
      // The tool's password, for this stream only: removed (finally) once the tool has exited.
      defaults = await writeSecretFile('backup.cnf', backupDefaults(cfg));
      // The tool writes into a loopback connection rather than a pipe (loopback-stdio.ts), which
      // we read 1 MiB at a time into one buffer: no allocation per piece, and a sixteenth of the
      // reads and HTTP chunks of Node's 64 KiB stream reads. The buffer is read into again only
      // once the response has handed the last piece to the kernel.
      let bytes = 0;
      const { childEnd, ourEnd: output } = await loopbackConnection({
        buffer: relayBuffer,
        callback: (n, buffer) => {
          bytes += n;
          res.write(buffer.subarray(0, n), () => output.resume());
          return false;
        },
      });
      if (clientGone) {
        childEnd.destroy();
        output.destroy();
        return;
      }
      log.info('backup stream started', { remote });
      const child = spawnBackup(cfg, childEnd, defaults.path);
      childEnd.destroy();
      running.add(child);
      const outcome = outcomeOf(child);
      res.once('close', () => {
        if (res.writableFinished) return;
        // Unread output would keep the child writing; dropping it also hurries the child.
        output.destroy();
        terminate(child);
      });
      res.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        Trailer: BACKUP_STATUS_TRAILER,
      });
      await closed(output);
      const o = await outcome;
      running.delete(child);
      const fields = { remote, bytes, seconds: (Date.now() - started) / 1000, status: o.status };
      if (res.destroyed || clientGone) {
        log.warn('backup stream stopped: the client went away', fields);
        return;
      }
      res.addTrailers({ [BACKUP_STATUS_TRAILER]: o.ok ? BACKUP_SUCCESS : BACKUP_FAILED });
      res.end();
      if (o.ok) log.info('backup stream finished', fields);
      else log.error('backup tool failed', { ...fields, stderr: o.stderrTail });
    } finally {
      await defaults?.remove();
      release();
    }
  }

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === HEALTH_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK');
      return;
    }
    if (path === XBACKUP_PATH && (req.method === 'GET' || req.method === undefined)) {
      streamBackup(req, res).catch((err: unknown) => {
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
      for (const child of running) terminate(child, 2000);
      server.closeAllConnections();
      await closed;
    },
  };
}
