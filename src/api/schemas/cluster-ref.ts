import { obj, str } from './build.ts';

/** Reference from a MysqlDatabase or MysqlUser to its MysqlCluster. */
export function clusterRef() {
  return obj('ClusterReference', 'The MysqlCluster the object lives in.', {
    name: str('Name of the MysqlCluster.', { minLength: 1 }),
    namespace: str('Namespace of the MysqlCluster; default: the namespace of this object.'),
  }, { required: ['name'] });
}
