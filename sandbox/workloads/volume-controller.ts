// The claim binder and claim protection (decide-volumes.ts), keyed by claim: a volume's changes
// and a pod's (it stops using a claim) enqueue the claims they name.
import { mkdir, rm } from 'node:fs/promises';
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { isAlreadyExists } from '../../src/runtime/kube/errors.ts';
import { objectKey } from '../../src/runtime/kube/types.ts';
import { decideVolumes } from './decide-volumes.ts';
import type { WorkloadEnv } from './env.ts';
import { ANNOTATION, COMPONENT, POD, PV, PVC } from './kinds.ts';
import { claimsOf, isFailed, isSucceeded } from './pods.ts';

export function volumeController(env: WorkloadEnv): ControllerSpec {
  const events = env.events(COMPONENT.volume);
  return {
    name: 'persistentvolume',
    for: PVC,
    watches: [
      {
        target: PV,
        map: (v) => {
          const r = (v as V1PersistentVolume).spec?.claimRef;
          return r?.name ? [objectKey({ namespace: r.namespace, name: r.name })] : [];
        },
      },
      { target: POD, map: (p) => claimsOf(p as V1Pod).map((c) => objectKey({ namespace: p.metadata?.namespace, name: c })) },
    ],
    async reconcile(req, ctx) {
      const claim = (await ctx.informer<V1PersistentVolumeClaim>(PVC)).get(req.namespace, req.name);
      const volumes = (await ctx.informer<V1PersistentVolume>(PV))
        .list()
        .filter((v) => v.spec?.claimRef?.namespace === req.namespace && v.spec.claimRef.name === req.name);
      const inUse = (await ctx.informer<V1Pod>(POD))
        .list({ namespace: req.namespace })
        .some((p) => !isFailed(p) && !isSucceeded(p) && claimsOf(p).includes(req.name));
      const ref = { ...PVC, namespace: req.namespace, name: req.name };
      for (const a of decideVolumes({ namespace: req.namespace, name: req.name, claim, volumes, inUse, workDir: env.workDir })) {
        switch (a.type) {
          case 'reclaim': {
            // The cache may still show a volume reclaimed by the pass before, whose directory is
            // by now the new claim's: only a volume the server still has is reclaimed.
            const current = await ctx.client.getIfExists({ ...PV, name: a.volume });
            if (!current) break;
            if (a.directory) await rm(a.directory, { recursive: true, force: true });
            await ctx.client.delete({ ...PV, name: a.volume }, { preconditions: { uid: current.metadata!.uid! } });
            break;
          }
          case 'release':
            await ctx.client.patchStatus({ ...PV, name: a.volume }, { status: { phase: 'Released' } });
            break;
          case 'unprotect':
            await ctx.client.patch(ref, { metadata: { finalizers: a.finalizers, resourceVersion: claim?.metadata?.resourceVersion } });
            break;
          case 'createVolume':
            await mkdir(a.directory, { recursive: true });
            try {
              await ctx.client.create(a.volume);
              events.normal(
                claim!,
                'ProvisioningSucceeded',
                `Successfully provisioned volume ${a.volume.metadata!.name} at ${a.directory}`,
              );
            } catch (err) {
              if (!isAlreadyExists(err)) throw err;
            }
            break;
          case 'volumeBound':
            await ctx.client.patchStatus({ ...PV, name: a.volume }, { status: { phase: 'Bound' } });
            break;
          case 'bindClaim':
            await ctx.client.patch(ref, {
              metadata: {
                resourceVersion: claim?.metadata?.resourceVersion,
                annotations: { [ANNOTATION.bindCompleted]: 'yes', [ANNOTATION.boundByController]: 'yes' },
              },
              spec: { volumeName: a.volume },
            });
            break;
          case 'claimBound':
            await ctx.client.patchStatus(ref, { status: a.status });
            break;
        }
      }
    },
  };
}
