// `sidecar heartbeat` / `sidecar pt-heartbeat`: runs the heartbeat loop (heartbeat.ts) as the user
// of heartbeat.conf, the file `clone-and-init` wrote with this start's random password. Logs
// changes of state (writing, skipping while read-only, failing), not every tick. With
// `--fail-successive-errors N` it exits after N failed attempts in a row, as pt-heartbeat does,
// so the kubelet restarts the container (the loop's own backoff spaces them: ~3 min for 20).
import { readFile } from 'node:fs/promises';
import type { Logger } from '../runtime/logger.ts';
import type { ConnectParams } from '../mysql/index.ts';
import { runHeartbeat, type HeartbeatTick } from './heartbeat.ts';
import { parseIni } from './ini.ts';

/** [client] host/port/user/password of an option file; throws naming the file and the missing key. */
export function clientParams(text: string, path: string): ConnectParams {
  const client = parseIni(text).get('client');
  const get = (key: string): string => {
    const v = client?.get(key);
    if (v === undefined || v === '') throw new Error(`${path}: [client] has no ${key}`);
    return v;
  };
  const port = Number(get('port'));
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${path}: [client] port is not a port`);
  return { host: get('host'), port, user: get('user'), password: get('password') };
}

export class HeartbeatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeartbeatError';
  }
}

export interface HeartbeatCommandOptions {
  /** The option file with the [client] to connect as. */
  confPath: string;
  failSuccessiveErrors: number | undefined;
}

/** Resolves when `signal` aborts; rejects with a HeartbeatError after too many failures in a row. */
export async function runHeartbeatCommand(opts: HeartbeatCommandOptions, log: Logger, signal: AbortSignal): Promise<void> {
  const path = opts.confPath;
  const connection = clientParams(await readFile(path, 'utf8'), path);
  const stop = new AbortController();
  const stopOnSignal = (): void => stop.abort();
  signal.addEventListener('abort', stopOnSignal, { once: true });
  if (signal.aborted) stop.abort();
  let failures = 0;
  let lastError = '';
  let last = '';
  const onTick = (tick: HeartbeatTick): void => {
    failures = tick.outcome === 'error' ? failures + 1 : 0;
    if (tick.outcome === 'error') lastError = tick.message;
    if (opts.failSuccessiveErrors !== undefined && failures >= opts.failSuccessiveErrors) stop.abort();
    const state = tick.outcome === 'error' ? `error:${tick.kind}` : tick.outcome;
    if (state === last) return;
    last = state;
    if (tick.outcome === 'error') log.warn('heartbeat failed', { kind: tick.kind, error: tick.message, retryInMs: tick.retryInMs });
    else log.info(tick.outcome === 'written' ? 'heartbeat writing' : 'heartbeat idle: server is read-only');
  };
  log.info('heartbeat started', { host: connection.host, port: connection.port, user: connection.user });
  try {
    await runHeartbeat({ connection, signal: stop.signal, onTick });
  } finally {
    signal.removeEventListener('abort', stopOnSignal);
  }
  if (!signal.aborted) throw new HeartbeatError(`${failures} successive heartbeat failures, the last: ${lastError}`);
}
