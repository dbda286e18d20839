// The I/O around decide-resume.ts: read master.info from the data directory and, when the
// decision asks for it, whether its master answers a TCP connect. A TCP connect, not a MySQL
// login: it needs no credentials, and the operator verifies the replication itself when it is back.
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Endpoint, SidecarConfig } from './config.ts';
import { decideResume, MASTER_INFO_FILE, sourceFromMasterInfo, type ResumeDecision } from './decide-resume.ts';

export type SettledResume = Exclude<ResumeDecision, { action: 'probe' }>;

/** Covers the name lookup too: in a pod the master is named by its FQDN. */
export const SOURCE_PROBE_TIMEOUT_MS = 2000;

/** True when `to` accepts a TCP connection within `timeoutMs`. */
export function tcpAnswers(to: Endpoint, timeoutMs = SOURCE_PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: to.host, port: to.port });
    const done = (answered: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export async function gatherResumeDecision(cfg: SidecarConfig, run: { clonedThisRun: boolean; statusTableExists: boolean }): Promise<SettledResume> {
  const masterInfo = cfg.flavour.family === 'mariadb' ? await readIfExists(join(cfg.paths.dataDir, MASTER_INFO_FILE)) : null;
  const facts = {
    family: cfg.flavour.family,
    ...run,
    masterInfoExists: masterInfo !== null,
    masterInfoSource: masterInfo === null ? null : sourceFromMasterInfo(masterInfo),
    sourceAnswers: undefined,
  };
  const decision = decideResume(facts);
  if (decision.action !== 'probe') return decision;
  const settled = decideResume({ ...facts, sourceAnswers: await tcpAnswers(decision.source) });
  if (settled.action === 'probe') throw new Error('decideResume asked for a probe with the answer given');
  return settled;
}
