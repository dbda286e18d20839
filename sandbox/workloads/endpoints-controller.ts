// EndpointSlices and Endpoints of Services with selectors (decide-endpoints.ts). A pod's change
// enqueues every Service whose selector matches it before or after the change, so a label or
// readiness change reaches the slices at once.
import type { V1Endpoints, V1Pod, V1Service } from '@kubernetes/client-node';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { isAlreadyExists } from '../../src/runtime/kube/errors.ts';
import { objectKey } from '../../src/runtime/kube/types.ts';
import { decideEndpoints, hasSelector, type EndpointSlice } from './decide-endpoints.ts';
import type { WorkloadEnv } from './env.ts';
import { ENDPOINT_SLICE, ENDPOINTS, ENDPOINT_SLICE_MANAGER, LABEL, POD, SERVICE } from './kinds.ts';
import { matchesSelector } from './pods.ts';

export function endpointsController(env: WorkloadEnv): ControllerSpec {
  return {
    name: 'endpointslice',
    for: SERVICE,
    owns: [ENDPOINT_SLICE],
    watches: [
      {
        target: POD,
        map: (p) =>
          env
            .cache<V1Service>(SERVICE)
            .list({ namespace: p.metadata?.namespace })
            .filter((s) => hasSelector(s) && matchesSelector({ matchLabels: s.spec!.selector! }, p.metadata?.labels))
            .map((s) => objectKey(s)),
      },
      { target: ENDPOINTS, map: (e) => [objectKey(e)] },
    ],
    async reconcile(req, ctx) {
      const service = (await ctx.informer<V1Service>(SERVICE)).get(req.namespace, req.name);
      const endpoints = (await ctx.informer<V1Endpoints>(ENDPOINTS)).get(req.namespace, req.name);
      const endpointsRef = { ...ENDPOINTS, namespace: req.namespace, name: req.name };
      if (!service || !hasSelector(service)) {
        // The slices go with their Service (owner references); Endpoints carry none.
        if (!service && endpoints) await ctx.client.delete(endpointsRef);
        return;
      }
      const slices = (await ctx.informer<EndpointSlice & { metadata: { namespace: string } }>(ENDPOINT_SLICE)).list({
        namespace: req.namespace,
        labels: { [LABEL.serviceName]: req.name, [LABEL.managedBy]: ENDPOINT_SLICE_MANAGER },
      });
      const pods = (await ctx.informer<V1Pod>(POD)).list({ namespace: req.namespace });
      const plan = decideEndpoints({ service, pods, slices, endpoints });
      for (const s of plan.create) await ctx.client.create(s);
      for (const u of plan.update) {
        await ctx.client.patch(
          { ...ENDPOINT_SLICE, namespace: req.namespace, name: u.name },
          { metadata: { labels: u.slice.metadata.labels }, endpoints: u.slice.endpoints, ports: u.slice.ports },
        );
      }
      for (const name of plan.remove) await ctx.client.delete({ ...ENDPOINT_SLICE, namespace: req.namespace, name });
      if (!plan.endpoints) return;
      if (!endpoints) {
        try {
          await ctx.client.create(plan.endpoints);
          return;
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
      await ctx.client.patch(endpointsRef, {
        metadata: { labels: plan.endpoints.metadata!.labels },
        subsets: plan.endpoints.subsets ?? null,
      });
    },
  };
}
