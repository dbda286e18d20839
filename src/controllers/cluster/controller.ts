// Registration of the cluster controller in the manager: what it watches and how changes map to
// clusters. The user Secret has no owner reference to the cluster (the user made it), so a change
// of it is mapped by name to every cluster of its namespace naming it in spec.secretName.
// Services are mapped by hand: the shared headless Service has no owner, so a change of it (say,
// someone deleted it) is mapped to one cluster of its namespace, which puts it back; mapping it
// to all of them would reconcile every cluster for one object.
import type { MysqlCluster } from '../../api/index.ts';
import type { Config } from '../../runtime/config.ts';
import { ownerKeys, type ControllerFactory } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { objectKey, type KubeObject } from '../../runtime/kube/types.ts';
import { HEADLESS_SERVICE_NAME } from '../../api/constants.ts';
import { clusterOptions, type ClusterControllerOptions } from './options.ts';
import { KINDS } from '../shared/kinds.ts';
import { reconcileCluster } from './reconcile.ts';

export function clusterOptionsFromConfig(config: Config): ClusterControllerOptions {
  const sidecar = config.sidecarImage;
  return clusterOptions({
    ...(sidecar ? { sidecarImage57: sidecar, sidecarImage80: sidecar, sidecarImage84: sidecar, sidecarImageMariaDB: sidecar } : {}),
    ...(config.orchestratorUrl ? { orchestratorUri: config.orchestratorUrl } : {}),
    versionImages: config.mysqlImageMap,
    orcTopologyUser: config.orcTopologyUser,
    orcTopologyPassword: config.orcTopologyPassword,
  });
}

export function makeClusterController(opts: ClusterControllerOptions): ReturnType<ControllerFactory> {
  let clusters: Informer<MysqlCluster & KubeObject> | undefined;
  return {
    name: 'cluster',
    for: KINDS.cluster,
    owns: [KINDS.statefulSet, KINDS.configMap, KINDS.secret, KINDS.pdb],
    watches: [
      {
        target: KINDS.service,
        map: (svc) => {
          const ns = svc.metadata?.namespace ?? '';
          if (svc.metadata?.name === HEADLESS_SERVICE_NAME) {
            const first = clusters?.list({ namespace: ns })[0];
            return first ? [objectKey(first)] : [];
          }
          return ownerKeys(svc, KINDS.cluster);
        },
      },
      {
        target: KINDS.secret,
        map: (secret) => {
          const ns = secret.metadata?.namespace ?? '';
          const name = secret.metadata?.name;
          return (clusters?.list({ namespace: ns }) ?? []).filter((c) => c.spec.secretName === name).map((c) => objectKey(c));
        },
      },
    ],
    async start(ctx) {
      clusters = await ctx.informer<MysqlCluster & KubeObject>(KINDS.cluster);
    },
    async reconcile(req, ctx) {
      clusters ??= await ctx.informer<MysqlCluster & KubeObject>(KINDS.cluster);
      await reconcileCluster(req, ctx, opts);
    },
  };
}

export const clusterController: ControllerFactory = (config) => makeClusterController(clusterOptionsFromConfig(config));
