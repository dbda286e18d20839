// The backup Job, in the anchor's shape (fixtures/anchor-v0.6.3/job-backup.yaml): label
// `cluster`, the controller reference to the MysqlBackup, one container `backup` running the
// sidecar's `take-backup-to <host> <url>` with the backup user from the operated Secret and the
// storage credentials Secret as envFrom, and the cluster's backup* scheduling fields as they are
// (the anchor read the cluster un-defaulted, so no anti-affinity). Ours, beyond the anchor:
// - activeDeadlineSeconds: a stuck backup ends Failed (DeadlineExceeded) and frees the schedule;
// - terminationMessagePolicy FallbackToLogsOnError: take-backup-to writes its JSON report to
//   /dev/termination-log; when it fails without one, the tail of its log becomes the message,
//   which the Failed condition quotes;
// - BACKUP_COMPRESS_COMMAND when the cluster sets both compress and decompress commands;
// - pod labels (JOB_POD_LABELS) by which the controller watches the Job's pods, and the cluster's
//   name (`cluster`), by which the cluster's NetworkPolicy lets them reach the sidecar's port.
import type { V1Job } from '@kubernetes/client-node';
import {
  API_GROUP_VERSION,
  COMPONENT_BACKUP,
  KIND_MYSQL_BACKUP,
  LABEL_APP_COMPONENT,
  LABEL_APP_MANAGED_BY,
  LABEL_BACKUP_CLUSTER,
  MANAGED_BY_VALUE,
  OPERATED_SECRET_KEY,
} from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { backupJobPodLabels, names } from '../../api/names.ts';
import { ENV, SIDECAR_COMMAND } from '../../api/pod-contract.ts';
import { secretEnv } from '../shared/render-env.ts';

/** The container of the Job (anchor). */
export const BACKUP_CONTAINER = 'backup';

/** Labels of the Job's pods: the backup controller's pod informer selects them. */
export const JOB_POD_LABELS: Readonly<Record<string, string>> = {
  [LABEL_APP_MANAGED_BY]: MANAGED_BY_VALUE,
  [LABEL_APP_COMPONENT]: COMPONENT_BACKUP,
};

export interface JobInput {
  backup: { name: string; namespace: string; uid: string };
  cluster: { name: string; spec: MysqlCluster['spec'] };
  image: string;
  imagePullPolicy: string;
  host: string;
  url: string;
  /** Storage credentials (envFrom); none for file:// or credentials from the pod's identity. */
  secretName: string | undefined;
  timeoutSeconds: number;
}

export function renderBackupJob(i: JobInput): V1Job {
  const s = i.cluster.spec;
  const pod = s.podSpec ?? {};
  const operated = names.operatedSecret(i.cluster.name);
  const env = [
    secretEnv(OPERATED_SECRET_KEY.backupUser, operated, OPERATED_SECRET_KEY.backupUser, true),
    secretEnv(OPERATED_SECRET_KEY.backupPassword, operated, OPERATED_SECRET_KEY.backupPassword, true),
  ];
  if (s.backupCompressCommand?.length && s.backupDecompressCommand?.length) {
    env.push({ name: ENV.backupCompressCommand, value: s.backupCompressCommand.join(' ') });
  }
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: names.backupJob(i.backup.name),
      namespace: i.backup.namespace,
      labels: { [LABEL_BACKUP_CLUSTER]: i.cluster.name },
      ownerReferences: [
        {
          apiVersion: API_GROUP_VERSION,
          kind: KIND_MYSQL_BACKUP,
          name: i.backup.name,
          uid: i.backup.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      activeDeadlineSeconds: i.timeoutSeconds,
      template: {
        metadata: { labels: backupJobPodLabels(i.cluster.name) },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: BACKUP_CONTAINER,
              image: i.image,
              imagePullPolicy: i.imagePullPolicy,
              args: [SIDECAR_COMMAND.takeBackupTo, i.host, i.url],
              env,
              ...(i.secretName ? { envFrom: [{ secretRef: { name: i.secretName } }] } : {}),
              resources: {},
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          ...(pod.backupAffinity ? { affinity: pod.backupAffinity } : {}),
          ...(pod.backupNodeSelector ? { nodeSelector: pod.backupNodeSelector } : {}),
          ...(pod.backupPriorityClassName ? { priorityClassName: pod.backupPriorityClassName } : {}),
          ...(pod.backupTolerations ? { tolerations: pod.backupTolerations } : {}),
        },
      },
    },
  };
}
