// Builders of the backup controller's inputs: a cluster with nodes in status, its pods with the
// orchestrator controller's labels, a backup, a Job as the Job controller leaves it.
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { MysqlCluster, MysqlClusterSpec } from '../../../src/api/index.ts';
import type { Backup, Cluster } from '../../../src/controllers/backup/decide-backup.ts';
import { backupOptions } from '../../../src/controllers/backup/options.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';

export const NS = 'default';
export const NOW = new Date('2026-01-01T00:00:05Z');
export const OPTS = backupOptions();
export const fqdn = (i: number): string => `my-db-mysql-${i}.mysql.${NS}`;

type NodeState = { master?: boolean; replicating?: boolean; lagged?: boolean };

export function cluster(spec: Partial<MysqlClusterSpec> = {}, nodes: NodeState[] = []): Cluster {
  const flag = (b: boolean | undefined) => (b ? 'True' : 'False');
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: NS, uid: 'c-uid' },
    spec: { secretName: 'my-db-secret', backupURL: 's3://bucket/my-db/', backupSecretName: 'my-db-backup', ...spec },
    status: {
      nodes: nodes.map((n, i) => ({
        name: fqdn(i),
        conditions: [
          { type: 'Master', status: flag(n.master), lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Replicating', status: flag(n.replicating), lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Lagged', status: flag(n.lagged), lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      })),
    },
  } as MysqlCluster & KubeObject;
}

/** Pods by name, with role/healthy labels: `[role, healthy]` per ordinal. */
export function pods(labels: Array<[string, string] | undefined>): Map<string, KubeObject> {
  return new Map(
    labels.map((l, i): [string, KubeObject] => [
      `my-db-mysql-${i}`,
      { metadata: { name: `my-db-mysql-${i}`, namespace: NS, labels: l ? { role: l[0], healthy: l[1] } : {} } },
    ]),
  );
}

export function backup(name = 'my-db-auto-2026-01-01t00-00-00', spec: Partial<Backup['spec']> = {}, status?: Backup['status']): Backup {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlBackup',
    metadata: { name, namespace: NS, uid: 'b-uid', resourceVersion: '7', labels: { cluster: 'my-db', recurrent: 'true' } },
    spec: { clusterName: 'my-db', remoteDeletePolicy: 'retain', ...spec },
    ...(status ? { status } : {}),
  };
}

/** A Job as the Job controller leaves it: `done` Complete/Failed, or running. */
export function job(done?: { type: 'Complete' | 'Failed'; reason?: string; message?: string }): V1Job {
  return {
    metadata: { name: 'my-db-auto-2026-01-01t00-00-00-backup', namespace: NS },
    status: {
      startTime: new Date('2026-01-01T00:00:01Z'),
      ...(done
        ? {
            conditions: [
              {
                type: done.type,
                status: 'True',
                reason: done.reason,
                message: done.message,
                lastTransitionTime: new Date('2026-01-01T00:00:04Z'),
              },
            ],
            ...(done.type === 'Complete' ? { completionTime: new Date('2026-01-01T00:00:04Z') } : {}),
          }
        : { active: 1 }),
    },
  };
}

/** A pod of the Job whose `backup` container ended with `exitCode` and termination `message`. */
export function jobPod(exitCode: number, message: string | undefined, finishedAt = '2026-01-01T00:00:04Z'): V1Pod {
  return {
    metadata: { name: `p-${finishedAt}`, namespace: NS },
    status: {
      containerStatuses: [
        {
          name: 'backup',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode, message, finishedAt: new Date(finishedAt) } },
        },
      ],
    },
  };
}

export type { MysqlCluster };
