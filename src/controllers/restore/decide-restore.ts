// Restore on bootstrap, the cluster side: pod 0's init container (`clone-and-init`) ends with a
// termination message, its RestoreReport after restoring spec.initBucketURL, its error when it
// failed. This turns that message into the restore controller's part of the cluster status
// (CLUSTER_STATUS_OWNERS.restore): `restoredFrom` and the `Restored` condition.
//
// Once recorded, a restore stays recorded: pod 0 restarting later keeps its data and its init
// container says nothing about the backup, and a failure after the restore is not the restore's.
import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import { parseRestoreReport } from '../../api/backup-report.ts';
import { CLUSTER_CONDITION, CLUSTER_REASONS, CONDITION_STATUS, CONTAINER } from '../../api/constants.ts';
import type { MysqlCluster, MysqlClusterStatus, RestoredFrom } from '../../api/index.ts';
import { redactString } from '../../runtime/redact.ts';
import { kubeTime, transitionTime } from '../shared/condition-time.ts';

type Condition = NonNullable<MysqlClusterStatus['conditions']>[number];

/** Everything this controller owns, named on every write. */
export interface RestoreOwnedStatus {
  restoredFrom?: RestoredFrom;
  conditions: [Condition];
}

export interface RestoreDecision {
  status: RestoreOwnedStatus;
  event: { type: 'Normal' | 'Warning'; reason: string; message: string };
}

/** The init container's last end: the current state, or the previous one while it waits to retry. */
function initEnd(pod: V1Pod): V1ContainerStateTerminated | undefined {
  const s = pod.status?.initContainerStatuses?.find((c) => c.name === CONTAINER.init);
  return s?.state?.terminated ?? s?.lastState?.terminated;
}

function positionText(r: RestoredFrom): string {
  const at = [r.gtidExecuted && `GTID ${r.gtidExecuted}`, r.binlogFile && `${r.binlogFile}:${r.binlogPosition ?? 0}`].filter(Boolean);
  return at.length ? ` at ${at.join(', ')}` : ' (no binlog position in the backup)';
}

/**
 * What to write, or undefined: no initBucketURL, nothing said yet, a restore already recorded,
 * or the status already says it (zero writes in steady state).
 */
export function decideRestore(cluster: MysqlCluster, pod0: V1Pod | undefined, now: Date): RestoreDecision | undefined {
  const url = cluster.spec.initBucketURL || cluster.spec.initBucketURI;
  const current = cluster.status?.conditions?.find((c) => c.type === CLUSTER_CONDITION.restored);
  if (!url || !pod0 || cluster.status?.restoredFrom) return undefined;
  const end = initEnd(pod0);
  if (!end) return undefined;
  const pod = pod0.metadata?.name ?? '';
  const condition = (status: string, reason: string, message: string): Condition =>
    ({ type: CLUSTER_CONDITION.restored, status, reason, message, lastTransitionTime: transitionTime(current, status, now) }) as Condition;

  if (end.exitCode === 0) {
    const report = parseRestoreReport(end.message ?? '');
    // Exit 0 without a report: the data was kept or cloned from a peer, no restore happened.
    if (!report) return undefined;
    const restoredFrom: RestoredFrom = {
      backupURL: report.restoredFrom,
      ...(report.position ? { binlogFile: report.position.binlogFile, binlogPosition: report.position.binlogPosition } : {}),
      ...(report.position?.gtid ? { gtidExecuted: report.position.gtid } : {}),
      completionTime: end.finishedAt ? kubeTime(new Date(end.finishedAt)) : kubeTime(now),
    };
    const message = `${pod} restored ${report.restoredFrom}${positionText(restoredFrom)}`;
    return {
      status: { restoredFrom, conditions: [condition(CONDITION_STATUS.true, CLUSTER_REASONS.backupRestored, message)] },
      event: { type: 'Normal', reason: CLUSTER_REASONS.backupRestored, message },
    };
  }

  // The sidecar writes its error there (no secret in it); redacted all the same, as every text
  // the operator puts into a condition.
  const said = redactString((end.message ?? '').trim()) || end.reason || 'no message';
  const message = `${pod} could not restore ${url} (init container exit ${end.exitCode}): ${said}`;
  if (current?.status === CONDITION_STATUS.false && current.reason === CLUSTER_REASONS.restoreFailed && current.message === message)
    return undefined;
  return {
    status: { conditions: [condition(CONDITION_STATUS.false, CLUSTER_REASONS.restoreFailed, message)] },
    event: { type: 'Warning', reason: CLUSTER_REASONS.restoreFailed, message },
  };
}
