// The environment the anchor's StatefulSet gives the init container of pod my-db-mysql-1
// (fixtures/anchor-v0.6.3), with the fixture's placeholder passwords.
import type { Env } from '../../../src/sidecar/config.ts';

export function anchorPodEnv(overrides: Env = {}): Env {
  return {
    MY_NAMESPACE: 'default',
    MY_POD_NAME: 'my-db-mysql-1',
    MY_POD_IP: '10.0.0.7',
    MY_SERVICE_NAME: 'mysql',
    MY_CLUSTER_NAME: 'my-db',
    MY_FQDN: 'my-db-mysql-1.mysql.default',
    MY_MYSQL_VERSION: '5.7.35',
    OPERATOR_USER: 'sys_operator',
    OPERATOR_PASSWORD: 'PlaceholderOper018',
    REPLICATION_USER: 'sys_replication',
    REPLICATION_PASSWORD: 'PlaceholderRepl018',
    METRICS_EXPORTER_USER: 'sys_exporter',
    METRICS_EXPORTER_PASSWORD: 'PlaceholderExpo018',
    ORC_TOPOLOGY_USER: 'orchestrator',
    ORC_TOPOLOGY_PASSWORD: 'PlaceOrc10',
    BACKUP_USER: 'sys_backups',
    BACKUP_PASSWORD: 'PlaceholderBack018',
    ...overrides,
  };
}

export const ALL_NEEDS = ['identity', 'version', 'credentials', 'backup-http'] as const;
