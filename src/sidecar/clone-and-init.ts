// `clone-and-init` (the pod's init container): make sure the data directory holds this pod's
// data, or is empty and may start empty, then write the pod's config files. Gather (does data
// exist, which peers answer /health) → decide (decide-clone-source.ts) → act (clone or restore
// into a staging directory, prepare, commit), then the config step.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RestoreReport } from '../api/backup-report.ts';
import type { Logger } from '../runtime/logger.ts';
import { BINLOG_INFO_FILE, parseBinlogInfo } from './binlog-info.ts';
import type { SidecarConfig } from './config.ts';
import { cloneFromPeer, CloneError, prepareBackup, probeHealth, restoreFromBucket } from './clone.ts';
import { commitStaging, createStaging, dataExists, discardStaging, recoverDataDir } from './datadir.ts';
import { decideCloneSource, type CloneDecision } from './decide-clone-source.ts';
import { writeTerminationMessage } from './termination-message.ts';
import { writePodFiles } from './write-pod-files.ts';

async function gatherAndDecide(cfg: SidecarConfig, log: Logger): Promise<CloneDecision> {
  const { dataDir } = cfg.paths;
  if (await dataExists(dataDir)) return { action: 'keep' };
  if (await recoverDataDir(dataDir)) {
    log.info('finished moving a clone an earlier run had prepared', { dataDir });
    return { action: 'keep' };
  }
  const [replicasHealthy, masterHealthy] = await Promise.all([
    probeHealth(cfg.cloneSources.replicas),
    probeHealth(cfg.cloneSources.master),
  ]);
  return decideCloneSource({
    dataExists: false,
    ordinal: cfg.ordinal,
    replicasHealthy,
    masterHealthy,
    initBucketUri: cfg.initBucketUri,
    sources: cfg.cloneSources,
  });
}

/** Unpacks and prepares into staging, then commits; on any failure the data directory is left empty. */
async function cloneInto(cfg: SidecarConfig, signal: AbortSignal, fill: (dir: string) => Promise<void>): Promise<void> {
  const { dataDir } = cfg.paths;
  const staging = await createStaging(dataDir);
  try {
    await fill(staging);
    await prepareBackup(cfg, staging, signal);
    await commitStaging(dataDir);
  } catch (err) {
    await discardStaging(dataDir);
    throw err;
  }
}

/** `signal` (SIGTERM from the kubelet) stops the clone: children killed, staging deleted. */
export async function cloneAndInit(cfg: SidecarConfig, log: Logger, signal: AbortSignal): Promise<void> {
  const decision = await gatherAndDecide(cfg, log);
  const started = Date.now();
  switch (decision.action) {
    case 'keep':
      log.info('data already exists; keeping it', { dataDir: cfg.paths.dataDir });
      break;
    case 'clone':
      log.info(`cloning from the ${decision.from}`, { source: decision.url });
      await cloneInto(cfg, signal, (dir) => cloneFromPeer(cfg, decision.url, dir, signal));
      log.info('clone prepared and in place', { source: decision.url, seconds: (Date.now() - started) / 1000 });
      break;
    case 'restore':
      log.info('restoring from INIT_BUCKET_URI', { url: decision.url });
      await cloneInto(cfg, signal, (dir) => restoreFromBucket(cfg, decision.url, dir, signal));
      await reportRestore(cfg, decision.url, log, started);
      break;
    case 'empty':
      log.info('nothing to clone from: pod 0 of a new cluster starts empty');
      break;
    case 'fail':
      throw new CloneError(decision.reason);
  }
  const cloned = decision.action === 'clone' || decision.action === 'restore';
  const resume = await writePodFiles(cfg, { cloned, restoredFromBucket: decision.action === 'restore' });
  log.info('config files written', { configDir: cfg.paths.configDir, serverId: cfg.serverId });
  if (resume.action === 'resume') {
    log.info('replication resumes at mysqld start and configured is kept', { master: `${resume.source.host}:${resume.source.port}` });
  } else {
    log.info('configured is reset at mysqld start: the operator configures this node', { why: resume.reason });
  }
}

/** Tells the pod status (termination message) and the log which backup and position the data started from. */
async function reportRestore(cfg: SidecarConfig, url: string, log: Logger, started: number): Promise<void> {
  const info = await readFile(join(cfg.paths.dataDir, BINLOG_INFO_FILE), 'utf8').catch(() => undefined);
  const position = info === undefined ? undefined : parseBinlogInfo(info);
  const report: RestoreReport = { restoredFrom: url, ...(position ? { position } : {}) };
  await writeTerminationMessage(cfg.paths.terminationLog, JSON.stringify(report));
  log.info('restore prepared and in place', {
    url,
    seconds: (Date.now() - started) / 1000,
    gtid: position?.gtid,
    binlogFile: position?.binlogFile,
    binlogPosition: position?.binlogPosition,
  });
}
