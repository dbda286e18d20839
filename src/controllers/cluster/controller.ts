// The cluster controller as the operator lists it: its settings (options.ts), the API resources
// and verbs it uses, and its registration in the manager: what it watches and how changes map to
// clusters. The user Secret has no owner reference to the cluster (the user made it), so a change
// of it is mapped by name to every cluster of its namespace naming it in spec.secretName (or in
// spec.initBucketSecretName, whose absence is refused too).
// Services are mapped by hand: the shared headless Service has no owner, so a change of it (say,
// someone deleted it) is mapped to one cluster of its namespace, which puts it back; mapping it
// to all of them would reconcile every cluster for one object.
import type { MysqlCluster } from '../../api/index.ts';
import { ownerKeys, type ControllerDefinition, type ControllerSpec } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { objectKey, type KubeObject } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { API_GROUP, HEADLESS_SERVICE_NAME } from '../../api/constants.ts';
import { CLUSTER_SETTINGS, type ClusterControllerOptions } from './options.ts';
import { KINDS } from '../shared/kinds.ts';
import { reconcileCluster } from './reconcile.ts';

/**
 * What the cluster controller does with the API: informers (list, watch) of every kind below,
 * the writes of reconcile.ts (get: an update is decided again on the object fetched whole, not on
 * the cache's projection), and the status of MysqlClusters. Events are the runtime's.
 */
export const CLUSTER_PERMISSIONS: readonly Permission[] = [
  // patch on the object: applyStatus's one-time hand-over of managedFields from an older writer.
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  // Its part of the status, by server-side apply (applyStatus).
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  { group: 'apps', resources: ['statefulsets'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
  { group: '', resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
  // The shared headless Service is deleted with the namespace's last cluster.
  { group: '', resources: ['services'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
  // The master's pod (role=master) read from the cache: a scale-down that removes it waits (decide-scale-down.ts).
  { group: '', resources: ['pods'], verbs: ['list', 'watch'] },
  // Released on keepAfterDelete, deleted after a scale-down with deletePVCsOnScaleDown.
  { group: '', resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch', 'update', 'delete'] },
  // Deleted when no longer wanted (one replica, minAvailable removed).
  { group: 'policy', resources: ['poddisruptionbudgets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
  // The cluster's NetworkPolicy (--network-policies); deleted when the flag is turned off.
  { group: 'networking.k8s.io', resources: ['networkpolicies'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
];

export function makeClusterController(opts: ClusterControllerOptions): ControllerSpec {
  let clusters: Informer<MysqlCluster & KubeObject> | undefined;
  return {
    name: 'cluster',
    for: KINDS.cluster,
    owns: [KINDS.statefulSet, KINDS.configMap, KINDS.secret, KINDS.pdb, KINDS.networkPolicy],
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
          return (clusters?.list({ namespace: ns }) ?? [])
            .filter((c) => c.spec.secretName === name || c.spec.initBucketSecretName === name)
            .map((c) => objectKey(c));
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

export const clusterControllerDefinition: ControllerDefinition<ClusterControllerOptions> = {
  name: 'cluster',
  settings: CLUSTER_SETTINGS,
  permissions: CLUSTER_PERMISSIONS,
  build: makeClusterController,
};
