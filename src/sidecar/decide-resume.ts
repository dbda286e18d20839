// Whether this start's init-file keeps `configured` and ends with START SLAVE, so a replica
// restarted while the operator is down resumes replicating and stays Ready (docs/node-controller.md,
// "Readiness while the operator is down"). Only when the data directory says the replica was set
// up and not replaced: no clone or restore in this run, the status table is there, MariaDB's
// master.info names a master, and that server is the current master (it answers, is writable and
// replicates from no one). Anything else: the anchor's behaviour
// (`configured` reset, the operator configures the node). Pure; the gathering is in
// resume-replication.ts.
import type { Flavour } from '../mysql/flavour.ts';
import type { Endpoint } from './config.ts';

/** The file MariaDB keeps the default connection's replication settings in, in the data directory. */
export const MASTER_INFO_FILE = 'master.info';

export interface ResumeFacts {
  family: Flavour['family'];
  /** A clone or restore filled the data directory in this run. */
  clonedThisRun: boolean;
  /** `<datadir>/sys_operator/status.ibd` exists. */
  statusTableExists: boolean;
  /** `<datadir>/master.info` exists. */
  masterInfoExists: boolean;
  /** The master it names (sourceFromMasterInfo); null when it names none. */
  masterInfoSource: Endpoint | null;
  /**
   * What the master of master.info said when asked as the operator user; undefined until probed.
   * It is the current master only when it answered, is writable and replicates from no one: every
   * other server is read-only (a replica, an old master restarted by its init-file, a master a
   * graceful takeover froze), so a writable one that replicates from no one is the master.
   */
  sourceRole: SourceRole | undefined;
}

export type SourceRole = { answered: false; message: string } | { answered: true; readOnly: boolean; replicatesFrom: string | null };

export type ResumeDecision =
  | { action: 'resume'; source: Endpoint }
  | { action: 'probe'; source: Endpoint }
  | { action: 'reset'; reason: string };

/**
 * Host (line 4) and port (line 7) of MariaDB's master.info (line 1 counts the lines, 2 and 3 are
 * the binlog coordinates, 5 the user, 6 the password, which is never read). Null without a host or
 * with a port that is not one.
 */
export function sourceFromMasterInfo(text: string): Endpoint | null {
  const lines = text.split('\n');
  const host = lines[3]?.trim() ?? '';
  const port = lines[6]?.trim() ?? '';
  if (host === '' || !/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return null;
  return { host, port: Number(port) };
}

export function decideResume(f: ResumeFacts): ResumeDecision {
  if (f.clonedThisRun) return { action: 'reset', reason: 'the data directory was cloned or restored in this run' };
  if (!f.statusTableExists) return { action: 'reset', reason: 'the sys_operator.status table is not in the data directory' };
  // MySQL keeps the replication settings in tables (master-info-repository=TABLE), which cannot
  // be read before mysqld starts: the anchor's behaviour there.
  if (f.family !== 'mariadb') return { action: 'reset', reason: `${f.family} keeps replication settings in tables` };
  if (!f.masterInfoExists) return { action: 'reset', reason: `no ${MASTER_INFO_FILE}: not a replica` };
  const source = f.masterInfoSource;
  if (source === null) return { action: 'reset', reason: `${MASTER_INFO_FILE} names no master` };
  const r = f.sourceRole;
  if (r === undefined) return { action: 'probe', source };
  const named = `${source.host}:${source.port}`;
  if (!r.answered) return { action: 'reset', reason: `the master ${named} does not answer: ${r.message}` };
  // Issue 21: resuming from a server that is not the master any more would replicate from an old
  // master behind Orchestrator's back (transactions the new master never sees); the operator decides.
  if (r.replicatesFrom !== null)
    return {
      action: 'reset',
      reason: `${named} named by ${MASTER_INFO_FILE} is not the current master: it replicates from ${r.replicatesFrom}`,
    };
  if (r.readOnly) return { action: 'reset', reason: `${named} named by ${MASTER_INFO_FILE} is not the current master: it is read-only` };
  return { action: 'resume', source };
}
