import { obj, str } from './build.ts';
import type { PrinterColumn } from './kind.ts';

/** Reference from a MysqlDatabase or MysqlUser to its MysqlCluster. */
export function clusterRef() {
  return obj(
    'ClusterReference',
    'The MysqlCluster the object lives in.',
    {
      name: str('Name of the MysqlCluster.', { minLength: 1 }),
      namespace: str('Namespace of the MysqlCluster; default: the namespace of this object.'),
    },
    { required: ['name'] },
  );
}

/** The printer column of that reference, shown by `kubectl get` for both kinds. */
export const CLUSTER_REF_COLUMN: PrinterColumn = {
  name: 'Cluster',
  type: 'string',
  description: 'The MysqlCluster',
  jsonPath: '.spec.clusterRef.name',
};
