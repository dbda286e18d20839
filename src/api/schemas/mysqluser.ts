// MysqlUser: an account inside a MysqlCluster, with its grants and limits.
import { KIND_MYSQL_USER, PLURAL_MYSQL_USERS, USER_RESOURCE_LIMITS } from '../constants.ts';
import { conditionList, intOrString, list, mapOf, obj, str, strList } from './build.ts';
import { CLUSTER_REF_COLUMN, clusterRef } from './cluster-ref.ts';
import { AGE_COLUMN, READY_COLUMN, type KindDefinition } from './kind.ts';

const permission = obj(
  'UserPermission',
  'Privileges granted on tables of one schema.',
  {
    schema: str('The schema (database).', { minLength: 1 }),
    tables: strList('Tables of the schema; "*" for all.', { minItems: 1 }),
    permissions: strList('Privileges, e.g. SELECT, INSERT.', { minItems: 1 }),
  },
  { required: ['schema', 'tables', 'permissions'] },
);

const limitNames = USER_RESOURCE_LIMITS.map((k) => `'${k}'`).join(', ');

const spec = obj(
  'MysqlUserSpec',
  'Desired account.',
  {
    clusterRef: clusterRef(),
    user: str('Name of the account.', { minLength: 1 }),
    password: obj(
      'SecretKeySelector',
      'Key of a Secret in this namespace that holds the password.',
      {
        name: str('Name of the Secret.', { minLength: 1 }),
        key: str('Key in the Secret.', { minLength: 1 }),
        optional: { type: 'boolean', description: 'Accepted for compatibility; the password is required.' },
      },
      { required: ['name', 'key'] },
    ),
    allowedHosts: strList('Hosts the account may connect from, e.g. "%".', { minItems: 1 }),
    permissions: list('Grants of the account; grants removed here are revoked.', permission),
    resourceLimits: mapOf(
      'Per-account limits: MAX_USER_CONNECTIONS, MAX_QUERIES_PER_HOUR, MAX_UPDATES_PER_HOUR, MAX_CONNECTIONS_PER_HOUR.',
      intOrString(''),
      {
        // Bounds the map so the API server's CEL cost estimate for the rule stays small.
        maxProperties: USER_RESOURCE_LIMITS.length,
        'x-kubernetes-validations': [
          {
            rule: `self.all(k, k in [${limitNames}])`,
            message: `keys must be among ${USER_RESOURCE_LIMITS.join(', ')}`,
          },
        ],
      },
    ),
  },
  { required: ['clusterRef', 'user', 'password', 'allowedHosts'] },
);

const status = obj('MysqlUserStatus', 'Observed state of the account.', {
  conditions: conditionList('UserCondition', 'Ready.', true),
  allowedHosts: strList('The allowed hosts last applied.'),
  adoptedHosts: strList(
    'Hosts of allowedHosts whose account existed before this object applied it: kept when the object is deleted, unless its resourceDeletionPolicy annotation says delete.',
  ),
});

export const mysqlUser: KindDefinition = {
  kind: KIND_MYSQL_USER,
  plural: PLURAL_MYSQL_USERS,
  singular: 'mysqluser',
  description: 'MysqlUser is an account inside a MysqlCluster.',
  spec,
  status,
  specRequired: true,
  printerColumns: [
    READY_COLUMN,
    CLUSTER_REF_COLUMN,
    { name: 'UserName', type: 'string', description: 'The account name', jsonPath: '.spec.user' },
    AGE_COLUMN,
  ],
};
