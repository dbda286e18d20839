// MysqlDatabase: a schema inside a MysqlCluster.
import { KIND_MYSQL_DATABASE, PLURAL_MYSQL_DATABASES } from '../constants.ts';
import { bool, conditionList, obj, str } from './build.ts';
import { CLUSTER_REF_COLUMN, clusterRef } from './cluster-ref.ts';
import { AGE_COLUMN, READY_COLUMN, type KindDefinition } from './kind.ts';

const spec = obj(
  'MysqlDatabaseSpec',
  'Desired database.',
  {
    clusterRef: clusterRef(),
    database: str('Name of the database.', { minLength: 1, maxLength: 64 }),
    characterSet: str('Character set of the database.'),
    collation: str('Collation of the database.'),
  },
  { required: ['clusterRef', 'database'] },
);

const status = obj('MysqlDatabaseStatus', 'Observed state of the database.', {
  conditions: conditionList('DatabaseCondition', 'Ready.', true),
  adopted: bool(
    'The database existed before this object applied it: kept when the object is deleted, unless its resourceDeletionPolicy annotation says delete. Unset until the operator has looked.',
  ),
});

export const mysqlDatabase: KindDefinition = {
  kind: KIND_MYSQL_DATABASE,
  plural: PLURAL_MYSQL_DATABASES,
  singular: 'mysqldatabase',
  description: 'MysqlDatabase is a database inside a MysqlCluster.',
  spec,
  status,
  specRequired: true,
  printerColumns: [
    READY_COLUMN,
    CLUSTER_REF_COLUMN,
    { name: 'Database', type: 'string', description: 'The database name', jsonPath: '.spec.database' },
    AGE_COLUMN,
  ],
};
