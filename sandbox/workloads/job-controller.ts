// The Job controller (decide-job.ts): pods named `<job>-<random>` with the Job's template, whose
// `controller-uid` and `job-name` labels the API server put on the template at the Job's creation.
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { decideJob } from './decide-job.ts';
import type { WorkloadEnv } from './env.ts';
import { COMPONENT, JOB, POD } from './kinds.ts';
import { isControlledBy } from './pods.ts';
import { writePods } from './pod-writes.ts';

export function jobController(env: WorkloadEnv): ControllerSpec {
  const events = env.events(COMPONENT.job);
  return {
    name: 'job',
    for: JOB,
    owns: [POD],
    async reconcile(req, ctx) {
      const job = (await ctx.informer<V1Job>(JOB)).get(req.namespace, req.name);
      if (!job || job.metadata?.deletionTimestamp) return;
      const pods = (await ctx.informer<V1Pod>(POD)).list({ namespace: req.namespace }).filter((p) => isControlledBy(p, job));
      const plan = decideJob({ job, pods, now: Date.now(), backoffBaseMs: env.jobBackoffMs });
      await writePods(ctx.client, events, job, plan.create, plan.delete);
      if (plan.status) await ctx.client.updateStatus({ ...job, status: plan.status });
      for (const e of plan.events) (e.type === 'Normal' ? events.normal : events.warning).call(events, job, e.reason, e.message);
      return plan.requeueAfterMs !== undefined ? { requeueAfterMs: plan.requeueAfterMs } : undefined;
    },
  };
}
