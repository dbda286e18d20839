// Where a backup Job stands, read from the Job's conditions and its pods' termination messages
// (the report take-backup-to writes there, src/api/backup-report.ts, or on failure its error).
// A failure's message quotes the container's last words, redacted: they are whatever the backup
// tools printed (a command line, a DSN, an S3 error), and they go to the MysqlBackup's conditions.
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { parseBackupReport, type BackupReport } from '../../api/backup-report.ts';
import { CONDITION_STATUS, JOB_CONDITION } from '../../api/constants.ts';
import { BACKUP_CONTAINER } from './render-job.ts';
import { kubeTime } from '../shared/condition-time.ts';
import { redactString, redactedTail } from '../../runtime/redact.ts';

export type JobOutcome =
  | { state: 'absent' }
  | { state: 'running'; startTime: string | undefined }
  | {
      state: 'succeeded' | 'failed';
      /** The Job condition's reason (the anchor copied it), possibly empty. */
      reason: string;
      message: string;
      startTime: string | undefined;
      completionTime: string | undefined;
      report: BackupReport | undefined;
    };

/** Longest pod message quoted in a condition: the log tail the kubelet keeps is 2048 bytes anyway. */
const MAX_QUOTE = 1024;

const str = (v: unknown): v is string => typeof v === 'string';

function terminated(pod: V1Pod) {
  return pod.status?.containerStatuses?.find((c) => c.name === BACKUP_CONTAINER)?.state?.terminated;
}

/** The message of the pod that decided the Job: the one that succeeded, else the last to end. */
function decisivePodMessage(pods: readonly V1Pod[], succeeded: boolean): string | undefined {
  const ended = pods
    .map((p) => terminated(p))
    .filter((t) => t !== undefined && (succeeded ? t.exitCode === 0 : t.exitCode !== 0))
    .sort((a, b) => String(a!.finishedAt ?? '').localeCompare(String(b!.finishedAt ?? '')));
  return ended.at(-1)?.message?.trim() || undefined;
}

const iso = (t: unknown): string | undefined => (t instanceof Date ? kubeTime(t) : str(t) ? t : undefined);

export function jobOutcome(job: V1Job | undefined, pods: readonly V1Pod[]): JobOutcome {
  if (!job) return { state: 'absent' };
  const startTime = iso(job.status?.startTime);
  // Kubernetes >= 1.31 first adds SuccessCriteriaMet / FailureTarget while pods still stop: only
  // Complete and Failed are final.
  const done = job.status?.conditions?.find(
    (c) => (c.type === JOB_CONDITION.complete || c.type === JOB_CONDITION.failed) && c.status === CONDITION_STATUS.true,
  );
  if (!done) return { state: 'running', startTime };
  const succeeded = done.type === JOB_CONDITION.complete;
  const podMessage = decisivePodMessage(pods, succeeded);
  const jobMessage = redactString(done.message ?? '');
  const message = succeeded
    ? jobMessage
    : [jobMessage, podMessage && `backup container: ${redactedTail(podMessage, MAX_QUOTE)}`].filter(Boolean).join('; ');
  return {
    state: succeeded ? 'succeeded' : 'failed',
    reason: done.reason ?? '',
    message,
    startTime,
    completionTime: iso(job.status?.completionTime) ?? iso(done.lastTransitionTime),
    report: succeeded && podMessage ? parseBackupReport(podMessage) : undefined,
  };
}
