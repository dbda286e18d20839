// One pass of the Job controller (pkg/controller/job, v1.26), for NonIndexed Jobs: keep
// min(parallelism, completions - succeeded) pods active, replace failed pods after an exponential
// backoff, fail the Job once failures pass backoffLimit (restartPolicy Never: failed pods;
// OnFailure: container restarts) or it ran past activeDeadlineSeconds, complete it once enough
// pods succeeded. Finished pods are counted, not deleted: the Job's deletion takes them along.
import type { V1Job, V1JobCondition, V1JobStatus, V1Pod } from '@kubernetes/client-node';
import { CONDITION_STATUS, JOB_CONDITION } from '../../src/api/constants.ts';
import { kubeTime } from '../../src/runtime/kube/time.ts';
import { isActive, isFailed, isReady, isSucceeded, podFromTemplate, sameJson } from './pods.ts';

export interface JobState {
  job: V1Job;
  /** Pods the Job controls. */
  pods: V1Pod[];
  now: number;
  /** First delay before a failed pod is replaced; doubles with each failure, at most 6 min. */
  backoffBaseMs: number;
}

export interface JobPlan {
  create: V1Pod[];
  delete: string[];
  /** The Job's new status, when it differs from the stored one. */
  status?: V1JobStatus;
  /** Events to record (the finishing ones). */
  events: { type: 'Normal' | 'Warning'; reason: string; message: string }[];
  /** Look again after this long (backoff, deadline). */
  requeueAfterMs?: number;
}

const MAX_BACKOFF_MS = 6 * 60_000;

function finished(job: V1Job): boolean {
  return (job.status?.conditions ?? []).some(
    (c) => (c.type === JOB_CONDITION.complete || c.type === JOB_CONDITION.failed) && c.status === CONDITION_STATUS.true,
  );
}

function restarts(p: V1Pod): number {
  return [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].reduce((n, c) => n + c.restartCount, 0);
}

/** When the pod last changed state, as its conditions say (the kubelet writes them). */
function lastTransition(p: V1Pod): number {
  const times = (p.status?.conditions ?? []).map((c) => Date.parse(String(c.lastTransitionTime ?? ''))).filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : Date.parse(String(p.metadata?.creationTimestamp ?? 0));
}

export function decideJob(s: JobState): JobPlan {
  const { job, pods, now } = s;
  const spec = job.spec!;
  const plan: JobPlan = { create: [], delete: [], events: [] };
  const active = pods.filter(isActive);
  const succeeded = pods.filter(isSucceeded).length;
  let failed = pods.filter(isFailed).length;
  const status: V1JobStatus = { ...(job.status ?? {}) };
  const conditions: V1JobCondition[] = [...(status.conditions ?? [])];
  // The client's types say Date; on the wire (and in the API server's store) a time is this text.
  const at = kubeTime(new Date(now)) as unknown as Date;

  if (!finished(job)) {
    if (!status.startTime && !spec.suspend) status.startTime = at;
    const completions = spec.completions ?? 1;
    const backoffLimit = spec.backoffLimit ?? 6;
    const onFailure = spec.template.spec?.restartPolicy === 'OnFailure';
    const started = status.startTime ? Date.parse(String(status.startTime)) : now;
    const deadline = spec.activeDeadlineSeconds !== undefined ? started + spec.activeDeadlineSeconds * 1000 : undefined;
    const overLimit = onFailure
      ? active.reduce((n, p) => n + restarts(p), 0) >= backoffLimit && backoffLimit >= 0 && active.some((p) => restarts(p) > 0)
      : failed > backoffLimit;

    let failure: { reason: string; message: string } | undefined;
    if (overLimit) failure = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    else if (deadline !== undefined && now >= deadline)
      failure = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };

    if (failure) {
      plan.delete.push(...active.map((p) => p.metadata!.name!));
      failed += active.length;
      conditions.push({
        type: JOB_CONDITION.failed,
        status: CONDITION_STATUS.true,
        reason: failure.reason,
        message: failure.message,
        lastProbeTime: at,
        lastTransitionTime: at,
      });
      plan.events.push({ type: 'Warning', reason: failure.reason, message: failure.message });
    } else if (succeeded >= completions) {
      plan.delete.push(...active.map((p) => p.metadata!.name!));
      conditions.push({ type: JOB_CONDITION.complete, status: CONDITION_STATUS.true, lastProbeTime: at, lastTransitionTime: at });
      status.completionTime = at;
      plan.events.push({ type: 'Normal', reason: 'Completed', message: 'Job completed' });
    } else if (!spec.suspend) {
      const want = Math.min(spec.parallelism ?? 1, completions - succeeded);
      if (active.length > want) {
        const newest = [...active].sort((a, b) => lastTransition(b) - lastTransition(a));
        plan.delete.push(...newest.slice(0, active.length - want).map((p) => p.metadata!.name!));
      } else if (active.length < want) {
        const lastFailure = Math.max(0, ...pods.filter(isFailed).map(lastTransition));
        const wait = failed > 0 ? Math.min(MAX_BACKOFF_MS, s.backoffBaseMs * 2 ** (failed - 1)) - (now - lastFailure) : 0;
        if (wait > 0) {
          plan.requeueAfterMs = wait;
        } else {
          for (let i = active.length; i < want; i++) {
            const pod = podFromTemplate(spec.template, job, job.metadata!.namespace!);
            pod.metadata!.generateName = `${job.metadata!.name}-`;
            plan.create.push(pod);
          }
        }
      }
      if (deadline !== undefined) plan.requeueAfterMs = Math.min(plan.requeueAfterMs ?? Infinity, Math.max(0, deadline - now) + 10);
    }
  }

  const next: V1JobStatus = {
    ...status,
    conditions: conditions.length > 0 ? conditions : undefined,
    active: active.length - plan.delete.filter((n) => active.some((p) => p.metadata?.name === n)).length + plan.create.length || undefined,
    succeeded: succeeded || undefined,
    failed: failed || undefined,
    ready: active.filter(isReady).length,
  };
  const clean = JSON.parse(JSON.stringify(next)) as V1JobStatus;
  if (!sameJson(job.status ?? {}, clean)) plan.status = clean;
  return plan;
}
