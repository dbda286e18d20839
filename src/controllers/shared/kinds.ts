// The kinds the controllers read and write, as informer targets. One definition, so controllers
// that read the same kind share one informer (and one cache) in the manager.
import { API_GROUP_VERSION, KIND_MYSQL_CLUSTER } from '../../api/constants.ts';

export const KINDS = {
  cluster: { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER },
  statefulSet: { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  service: { apiVersion: 'v1', kind: 'Service' },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  secret: { apiVersion: 'v1', kind: 'Secret' },
  pdb: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
  pvc: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
} as const;
