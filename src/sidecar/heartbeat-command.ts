// `sidecar heartbeat`: runs the heartbeat loop (heartbeat.ts) as the user of heartbeat.conf,
// the file `clone-and-init` wrote with this start's random password. Logs changes of state
// (writing, skipping while read-only, failing), not every tick.
import { readFile } from 'node:fs/promises';
import type { Logger } from '../runtime/logger.ts';
import type { ConnectParams } from '../mysql/index.ts';
import { podFilePaths, type SidecarConfig } from './config.ts';
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

export async function runHeartbeatCommand(cfg: SidecarConfig, log: Logger, signal: AbortSignal): Promise<void> {
  const path = podFilePaths(cfg.paths.configDir).heartbeat;
  const connection = clientParams(await readFile(path, 'utf8'), path);
  let last = '';
  const onTick = (tick: HeartbeatTick): void => {
    const state = tick.outcome === 'error' ? `error:${tick.kind}` : tick.outcome;
    if (state === last) return;
    last = state;
    if (tick.outcome === 'error') log.warn('heartbeat failed', { kind: tick.kind, error: tick.message, retryInMs: tick.retryInMs });
    else log.info(tick.outcome === 'written' ? 'heartbeat writing' : 'heartbeat idle: server is read-only');
  };
  log.info('heartbeat started', { host: connection.host, port: connection.port, user: connection.user });
  await runHeartbeat({ connection, signal, onTick });
}
