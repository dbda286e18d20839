// The kinds the controllers read and write, as informer targets. One definition, so controllers
// that read the same kind share one informer (and one cache) in the manager. Each names what its
// cache keeps (projections.ts): a controller that starts reading another field adds it there.
import { API_GROUP_VERSION, KIND_MYSQL_BACKUP, KIND_MYSQL_CLUSTER, KIND_MYSQL_DATABASE, KIND_MYSQL_USER } from '../../api/constants.ts';
import { PROJECTIONS } from './projections.ts';

export const KINDS = {
  cluster: { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER },
  backup: { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_BACKUP },
  job: { apiVersion: 'batch/v1', kind: 'Job', projection: PROJECTIONS.job },
  user: { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_USER },
  database: { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_DATABASE },
  statefulSet: { apiVersion: 'apps/v1', kind: 'StatefulSet', projection: PROJECTIONS.statefulSet },
  service: { apiVersion: 'v1', kind: 'Service', projection: PROJECTIONS.service },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap', projection: PROJECTIONS.configMap },
  secret: { apiVersion: 'v1', kind: 'Secret', projection: PROJECTIONS.secret },
  pdb: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', projection: PROJECTIONS.pdb },
  networkPolicy: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', projection: PROJECTIONS.networkPolicy },
  pvc: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
  pod: { apiVersion: 'v1', kind: 'Pod', projection: PROJECTIONS.pod },
} as const;
