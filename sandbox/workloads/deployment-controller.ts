// The Deployment and ReplicaSet controllers (decide-deployment.ts, decide-replicaset.ts).
import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { isAlreadyExists } from '../../src/runtime/kube/errors.ts';
import { decideDeployment } from './decide-deployment.ts';
import { decideReplicaSet } from './decide-replicaset.ts';
import type { WorkloadEnv } from './env.ts';
import { COMPONENT, DEPLOYMENT, POD, REPLICA_SET } from './kinds.ts';
import { isControlledBy } from './pods.ts';
import { writePods } from './pod-writes.ts';

export function deploymentController(env: WorkloadEnv): ControllerSpec {
  const events = env.events(COMPONENT.deployment);
  return {
    name: 'deployment',
    for: DEPLOYMENT,
    owns: [REPLICA_SET],
    async reconcile(req, ctx) {
      const deployment = (await ctx.informer<V1Deployment>(DEPLOYMENT)).get(req.namespace, req.name);
      if (!deployment) return;
      const replicaSets = (await ctx.informer<V1ReplicaSet>(REPLICA_SET))
        .list({ namespace: req.namespace })
        .filter((rs) => isControlledBy(rs, deployment));
      const plan = decideDeployment({ deployment, replicaSets, now: Date.now() });
      if (plan.create) {
        try {
          await ctx.client.create(plan.create);
          events.normal(
            deployment,
            'ScalingReplicaSet',
            `Scaled up replica set ${plan.create.metadata!.name} to ${plan.create.spec!.replicas}`,
          );
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
      for (const s of plan.scale) {
        const before = replicaSets.find((rs) => rs.metadata?.name === s.name)?.spec?.replicas ?? 0;
        await ctx.client.patch({ ...REPLICA_SET, namespace: req.namespace, name: s.name }, { spec: { replicas: s.replicas } });
        events.normal(
          deployment,
          'ScalingReplicaSet',
          `Scaled ${s.replicas > before ? 'up' : 'down'} replica set ${s.name} to ${s.replicas}`,
        );
      }
      for (const name of plan.remove) await ctx.client.delete({ ...REPLICA_SET, namespace: req.namespace, name });
      if (plan.status) await ctx.client.updateStatus({ ...deployment, status: plan.status });
    },
  };
}

export function replicaSetController(env: WorkloadEnv): ControllerSpec {
  const events = env.events(COMPONENT.replicaSet);
  return {
    name: 'replicaset',
    for: REPLICA_SET,
    owns: [POD],
    async reconcile(req, ctx) {
      const rs = (await ctx.informer<V1ReplicaSet>(REPLICA_SET)).get(req.namespace, req.name);
      if (!rs) return;
      const pods = (await ctx.informer<V1Pod>(POD)).list({ namespace: req.namespace }).filter((p) => isControlledBy(p, rs));
      const plan = decideReplicaSet({ rs, pods, now: Date.now() });
      await writePods(ctx.client, events, rs, plan.create, plan.delete);
      if (plan.status) await ctx.client.updateStatus({ ...rs, status: plan.status });
      // minReadySeconds passes without an event.
      if ((rs.spec?.minReadySeconds ?? 0) > 0 && (plan.status?.availableReplicas ?? 0) < (plan.status?.readyReplicas ?? 0))
        return { requeueAfterMs: 1000 };
      return undefined;
    },
  };
}
