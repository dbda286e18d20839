// The I/O around decide-resume.ts: read master.info from the data directory and, when the
// decision asks for it, what its master says about its role (read_only, replication source), as
// the operator user: only the current master is resumed from (issue 21).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectNode, type MysqlNode } from '../mysql/index.ts';
import type { Credentials, Endpoint, SidecarConfig } from './config.ts';
import { decideResume, MASTER_INFO_FILE, sourceFromMasterInfo, type ResumeDecision, type SourceRole } from './decide-resume.ts';

export type SettledResume = Exclude<ResumeDecision, { action: 'probe' }>;

/** The connect timeout of the probe; it covers the name lookup too: in a pod the master is named by its FQDN. */
export const SOURCE_PROBE_TIMEOUT_MS = 2000;

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * What the server master.info names says about its role, asked as the operator user (its
 * `read_only` and replication source), within SOURCE_PROBE_TIMEOUT_MS to connect.
 */
export async function sourceRole(to: Endpoint, as: Credentials): Promise<SourceRole> {
  let node: MysqlNode | undefined;
  try {
    node = await connectNode({
      ...to,
      user: as.user,
      password: as.password,
      connectTimeoutMs: SOURCE_PROBE_TIMEOUT_MS,
      queryTimeoutMs: SOURCE_PROBE_TIMEOUT_MS,
    });
    const readOnly = await node.isReadOnly();
    const rs = await node.replicationStatus();
    return { answered: true, readOnly, replicatesFrom: rs === null || rs.masterHost === '' ? null : `${rs.masterHost}:${rs.masterPort}` };
  } catch (e) {
    return { answered: false, message: e instanceof Error ? e.message : String(e) };
  } finally {
    await node?.close().catch(() => undefined);
  }
}

export async function gatherResumeDecision(
  cfg: SidecarConfig,
  run: { clonedThisRun: boolean; statusTableExists: boolean },
): Promise<SettledResume> {
  const masterInfo = cfg.flavour.family === 'mariadb' ? await readIfExists(join(cfg.paths.dataDir, MASTER_INFO_FILE)) : null;
  const facts = {
    family: cfg.flavour.family,
    ...run,
    masterInfoExists: masterInfo !== null,
    masterInfoSource: masterInfo === null ? null : sourceFromMasterInfo(masterInfo),
    sourceRole: undefined,
  };
  const decision = decideResume(facts);
  if (decision.action !== 'probe') return decision;
  const settled = decideResume({ ...facts, sourceRole: await sourceRole(decision.source, cfg.operator) });
  if (settled.action === 'probe') throw new Error('decideResume asked for a probe with the answer given');
  return settled;
}
