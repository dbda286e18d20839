// Registration of the cluster controller in the manager: what it watches and how changes map to
// clusters. The user Secret has no owner reference to the cluster (the user made it), so a change
// of it is mapped by name to every cluster of its namespace naming it in spec.secretName.
// Services are mapped by hand: the shared headless Service is owned by every cluster of its
// namespace, and mapping each of its changes to all of them would make every cluster's first
// reconcile enqueue every other cluster (quadratic). Its first owner looks after it (recreating it
// if it is deleted); the others check it on their own reconciles and resyncs.
import type { MysqlCluster } from '../../api/index.ts';
import type { Config } from '../../runtime/config.ts';
import type { ControllerFactory } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { objectKey, type KubeObject } from '../../runtime/kube/types.ts';
import { HEADLESS_SERVICE_NAME } from '../../api/constants.ts';
import { clusterOptions, type ClusterControllerOptions } from './options.ts';
import { KINDS, reconcileCluster } from './reconcile.ts';

export function clusterOptionsFromConfig(config: Config, env: NodeJS.ProcessEnv = process.env): ClusterControllerOptions {
  const sidecar = config.sidecarImage;
  return clusterOptions({
    ...(sidecar ? { sidecarImage57: sidecar, sidecarImage80: sidecar, sidecarImage84: sidecar, sidecarImageMariaDB: sidecar } : {}),
    ...(config.orchestratorUrl ? { orchestratorUri: config.orchestratorUrl } : {}),
    versionImages: config.mysqlImageMap,
    // The anchor's chart hands Orchestrator's topology credentials to the operator this way.
    orcTopologyUser: env['ORC_TOPOLOGY_USER'] ?? '',
    orcTopologyPassword: env['ORC_TOPOLOGY_PASSWORD'] ?? '',
  });
}

export function makeClusterController(opts: ClusterControllerOptions): ReturnType<ControllerFactory> {
  let clusters: Informer<MysqlCluster & KubeObject> | undefined;
  return {
    name: 'cluster',
    for: KINDS.cluster,
    owns: [KINDS.statefulSet, KINDS.configMap, KINDS.secret, KINDS.pdb],
    watches: [
      { target: KINDS.service, map: serviceOwnerKeys },
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

function serviceOwnerKeys(svc: KubeObject): string[] {
  const ns = svc.metadata?.namespace ?? '';
  const refs = (svc.metadata?.ownerReferences ?? []).filter((r) => r.kind === KINDS.cluster.kind && r.apiVersion.startsWith('mysql.presslabs.org/'));
  const chosen = svc.metadata?.name === HEADLESS_SERVICE_NAME ? refs.slice(0, 1) : refs.filter((r) => r.controller);
  return chosen.map((r) => `${ns}/${r.name}`);
}

export const clusterController: ControllerFactory = (config) => makeClusterController(clusterOptionsFromConfig(config));
