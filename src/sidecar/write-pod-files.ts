// The config step of `clone-and-init`: gathers what the data directory says (is the status
// table's data there, which GTID was the clone taken at, may replication resume: see
// decide-resume.ts), then writes the files the anchor's
// sidecar wrote, in its order: my.cnf and scripts copied from the ConfigMap, conf.d/,
// 10-identity.cnf, operator-init.sql, 10-init-file.cnf, client.conf, heartbeat.conf; then ours,
// xtrabackup.cnf (the backup tools' local account, docs/credentials.md).
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MYSQL_USER, OPERATOR_SCHEMA } from '../api/constants.ts';
import { renderInitFile } from '../mysql/init-file.ts';
import { randomPassword } from '../mysql/system-users.ts';
import { podFilePaths, type SidecarConfig } from './config.ts';
import { BINLOG_INFO_FILE, gtidFromBinlogInfo } from './binlog-info.ts';
import { gatherResumeDecision, type SettledResume } from './resume-replication.ts';
import { renderBackupToolConf, renderClientConf, renderIdentityCnf, renderInitFileCnf } from './render-pod-files.ts';

/** The heartbeat user's password is new at every start of the init container, never stored (anchor). */
const HEARTBEAT_PASSWORD_LENGTH = 10;
/** So is the backup tools' (ours): it never leaves the pod's conf volume. */
const BACKUP_TOOL_PASSWORD_LENGTH = 24;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Facts about the data directory the init-file depends on. */
export interface DataDirFacts {
  statusTableMissing: boolean;
  backupGtid: string | null;
}

export async function gatherDataDirFacts(dataDir: string): Promise<DataDirFacts> {
  const statusTableMissing = !(await isFile(join(dataDir, OPERATOR_SCHEMA, 'status.ibd')));
  let backupGtid: string | null = null;
  try {
    backupGtid = gtidFromBinlogInfo(await readFile(join(dataDir, BINLOG_INFO_FILE), 'utf8')) ?? null;
  } catch {
    // No binlog info file: not cloned, or cloned from a server without binary log.
  }
  return { statusTableMissing, backupGtid };
}

export interface PodFileOptions {
  facts: DataDirFacts;
  restoredFromBucket: boolean;
  /** Keep `configured` and end with START SLAVE (decide-resume.ts). */
  resumeReplication: boolean;
  heartbeatPassword: string;
  backupToolPassword: string;
}

/** Every file the config step writes, path → content, in writing order. Pure. */
export function renderPodFiles(cfg: SidecarConfig, o: PodFileOptions): Array<[string, string]> {
  const p = podFilePaths(cfg.paths.configDir);
  const heartbeat = { user: MYSQL_USER.heartbeat, password: o.heartbeatPassword };
  const backupTool = { user: MYSQL_USER.backupTool, password: o.backupToolPassword };
  const initFile = renderInitFile({
    flavour: cfg.flavour,
    users: {
      operator: cfg.operator,
      orchestrator: cfg.orchestrator,
      replication: cfg.replication,
      exporter: cfg.exporter,
      heartbeat,
      backupTool,
    },
    statusTableMissing: o.facts.statusTableMissing,
    backupGtid: o.facts.backupGtid,
    restoredFromBucket: o.restoredFromBucket,
    keepConfigured: o.resumeReplication,
    resumeReplication: o.resumeReplication,
    extraSql: cfg.initFileExtraSql,
  });
  return [
    [p.identity, renderIdentityCnf(cfg.serverId, cfg.fqdn)],
    [p.initFile, initFile],
    [p.initFileCnf, renderInitFileCnf(p.initFile)],
    [p.client, renderClientConf(cfg.operator, cfg.mysql)],
    [p.heartbeat, renderClientConf(heartbeat, cfg.mysql)],
    [p.backupTool, renderBackupToolConf(backupTool)],
  ];
}

/** Copies my.cnf and the scripts from the ConfigMap mount (regular files; `..data` links skipped). */
async function copyConfigMap(from: string, to: string): Promise<void> {
  for (const name of (await readdir(from)).sort()) {
    if (name.startsWith('.')) continue;
    const src = join(from, name);
    if (await isFile(src)) await copyFile(src, join(to, name));
  }
}

export interface ThisRun {
  /** A clone or restore filled the data directory in this run. */
  cloned: boolean;
  restoredFromBucket: boolean;
}

/** Writes the pod's files; returns whether the init-file resumes replication, and why (for the log). */
export async function writePodFiles(cfg: SidecarConfig, run: ThisRun): Promise<SettledResume> {
  const { configDir, confSourceDir, dataDir } = cfg.paths;
  await mkdir(configDir, { recursive: true });
  await copyConfigMap(confSourceDir, configDir);
  await mkdir(podFilePaths(configDir).confD, { recursive: true, mode: 0o755 });
  const facts = await gatherDataDirFacts(dataDir);
  const resume = await gatherResumeDecision(cfg, { clonedThisRun: run.cloned, statusTableExists: !facts.statusTableMissing });
  const files = renderPodFiles(cfg, {
    facts,
    restoredFromBucket: run.restoredFromBucket,
    resumeReplication: resume.action === 'resume',
    heartbeatPassword: randomPassword(HEARTBEAT_PASSWORD_LENGTH),
    backupToolPassword: randomPassword(BACKUP_TOOL_PASSWORD_LENGTH),
  });
  // The files hold passwords: readable by the pod's user only (mysqld, probes and the sidecar share it).
  for (const [path, content] of files) await writeFile(path, content, { mode: 0o600 });
  return resume;
}
