// The names users and running clusters depend on (docs/compatibility.md) are spelled exactly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as api from '../../../src/api/index.ts';

describe('constants of docs/compatibility.md', () => {
  it('labels, service types, role and health values', () => {
    assert.equal(api.LABEL_CLUSTER, 'mysql.presslabs.org/cluster');
    assert.equal(api.LABEL_APP_NAME, 'app.kubernetes.io/name');
    assert.equal(api.LABEL_APP_MANAGED_BY, 'app.kubernetes.io/managed-by');
    assert.equal(api.MANAGED_BY_VALUE, 'mysql.presslabs.org');
    assert.equal(api.LABEL_ROLE, 'role');
    assert.equal(api.LABEL_HEALTHY, 'healthy');
    assert.deepEqual(api.ROLE, { master: 'master', replica: 'replica' });
    assert.deepEqual(api.HEALTHY, { yes: 'yes', no: 'no' });
    assert.equal(api.LABEL_SERVICE_TYPE, 'mysql.presslabs.org/service-type');
    assert.deepEqual(Object.values(api.SERVICE_TYPE), ['namespace-nodes', 'master', 'ready-nodes', 'ready-replicas']);
    assert.deepEqual([api.LABEL_BACKUP_RECURRENT, api.LABEL_BACKUP_CLUSTER], ['recurrent', 'cluster']);
  });

  it('finalizers and the deletion-policy annotation', () => {
    assert.equal(api.FINALIZER_ORCHESTRATOR, 'mysql.presslabs.org/registered-in-orchestrator');
    assert.equal(api.FINALIZER_BACKUP_REMOTE_CLEANUP, 'backups.mysql.presslabs.org/remote-storage-cleanup');
    assert.equal(api.FINALIZER_DATABASE, 'mysql-operator.presslabs.org/database');
    assert.equal(api.FINALIZER_USER, 'mysql-operator.presslabs.org/user');
    assert.equal(api.ANNOTATION_RESOURCE_DELETION_POLICY, 'mysql-operator.presslabs.org/resourceDeletionPolicy');
  });

  it('condition types and the anchor reasons', () => {
    for (const t of ['Ready', 'PendingFailoverAck', 'ReadOnly', 'FailoverInProgress']) {
      assert.ok(Object.values(api.CLUSTER_CONDITION).includes(t as never), t);
    }
    for (const r of [
      'ClusterReady',
      'StatefulSetNotReady',
      'NotReplicating',
      'NoMaster',
      'PendingFailoverAckExists',
      'NoPendingFailoverAckExists',
      'ClusterReadOnlyTrue',
      'ClusterReadOnlyFalse',
      'OrcFailoverInProgress',
      'ClusterMasterHealthy',
      'ClusterNotRunning',
    ]) {
      assert.ok(Object.values(api.CLUSTER_REASONS).includes(r as never), r);
    }
    assert.deepEqual(Object.values(api.NODE_CONDITION).slice(0, 4), ['Lagged', 'Replicating', 'Master', 'ReadOnly']);
    assert.deepEqual([api.BACKUP_CONDITION.complete, api.BACKUP_CONDITION.failed], ['Complete', 'Failed']);
    assert.deepEqual(Object.values(api.PROVISION_REASONS).slice(0, 2), ['ProvisionSucceeded', 'ProvisionFailed']);
    assert.equal(api.POD_CONDITION_NODE_INITIALIZED, 'mysql.presslabs.org/NodeInitialized');
    assert.deepEqual(Object.values(api.POD_INIT_REASONS), ['mysqlInitializationSucceeded', 'mysqlInitializationFailed']);
  });

  it('node controller reasons (Events on pods, NodeInitialized messages) keep their spelling', () => {
    assert.deepEqual(Object.values(api.NODE_REASONS), [
      'PodNotRunning',
      'FailoverInProgress',
      'ServerUnreachable',
      'ServerStarting',
      'MasterReadOnly',
      'OperatorAccessDenied',
      'NoMaster',
      'MasterConflict',
      'MasterViewStale',
      'MasterUnreachable',
      'ReplicationConnecting',
      'ReplicationNotRunning',
      'ReplicationAccessDenied',
      'ReplicationError',
      'ErrantTransactions',
      'OperatedSecretMissing',
      'OperatedSecretIncomplete',
      'StepFailed',
      'NodeConfigured',
    ]);
  });

  it('user and database controller reasons (Ready condition, Events) keep their spelling', () => {
    assert.deepEqual(Object.values(api.PROVISION_REASONS), [
      'ProvisionSucceeded',
      'ProvisionFailed',
      'CrossNamespaceRefused',
      'ClusterNotFound',
      'InvalidSpec',
      'PasswordSecretNotFound',
      'PasswordKeyMissing',
      'RootPasswordMissing',
      'RootAccessDenied',
      'MasterReadOnly',
      'ReservedName',
      'AlreadyClaimed',
      'FailoverInProgress',
      'NoMaster',
      'MasterConflict',
      'MasterViewStale',
      'MasterUnreachable',
      'OperatedSecretIncomplete',
      'Dropped',
      'Retained',
    ]);
  });

  it('orchestrator controller reasons (conditions, Events) keep their spelling', () => {
    assert.deepEqual(Object.values(api.ORCHESTRATOR_REASONS), [
      'OrchestratorUnreachable',
      'NoMaster',
      'MasterDisagreement',
      'MasterFrozen',
      'FailoverInProgress',
      'ForgetGracePeriod',
      'InstanceHasReplicas',
      'RecoveryTooRecent',
      'ClusterNotReady',
      'RejoinPending',
      'ErrantTransactions',
      'ErrantReplicaRebuilt',
      'NoHandoverCandidate',
      'MasterLabelled',
      'ScaleDownHandover',
      'ScaleDownHandoverFailed',
      'MasterUnanswered',
      'ReadOnlyChanged',
      'ClientSessionsKilled',
      'FenceIncomplete',
      'RecoveriesAcknowledged',
      'InstanceForgotten',
      'ForgetAbandoned',
      'DowntimeEnded',
    ]);
    assert.ok(Object.values(api.CLUSTER_REASONS).includes('MasterNotHealthy' as never));
  });

  it('group, version, kinds and plurals', () => {
    assert.equal(api.API_GROUP_VERSION, 'mysql.presslabs.org/v1alpha1');
    assert.deepEqual(api.PLURALS, {
      MysqlCluster: 'mysqlclusters',
      MysqlBackup: 'mysqlbackups',
      MysqlDatabase: 'mysqldatabases',
      MysqlUser: 'mysqlusers',
    });
    assert.deepEqual(
      api.KINDS.map((k) => [k.kind, k.plural]),
      Object.entries(api.PLURALS),
    );
  });

  it('operated Secret keys and system users', () => {
    assert.deepEqual(Object.values(api.OPERATED_SECRET_KEY), [
      'OPERATOR_USER',
      'OPERATOR_PASSWORD',
      'REPLICATION_USER',
      'REPLICATION_PASSWORD',
      'METRICS_EXPORTER_USER',
      'METRICS_EXPORTER_PASSWORD',
      'ORC_TOPOLOGY_USER',
      'ORC_TOPOLOGY_PASSWORD',
      // Ours (docs/credentials.md): what this project's sidecar reads instead of the password.
      'ORC_TOPOLOGY_PASSWORD_HASH',
      'BACKUP_USER',
      'BACKUP_PASSWORD',
    ]);
    assert.deepEqual(api.MYSQL_USER, {
      operator: 'sys_operator',
      replication: 'sys_replication',
      metricsExporter: 'sys_exporter',
      heartbeat: 'sys_heartbeat',
      backup: 'sys_backups',
      // Ours: the backup tools' local account.
      backupTool: 'sys_xtrabackup',
    });
  });
});
