// What the backup controller takes from the command line and environment. The sidecar images,
// the pull policy and Orchestrator's URL are the cluster controller's setting objects, so each
// stays one flag: the Job runs the same sidecar image as the cluster's pods.
import { durationSetting, defaultsOf, type SettingTable } from '../../runtime/settings.ts';
import { CLUSTER_SETTINGS, ORCHESTRATOR_CREDENTIALS_SETTING, ORCHESTRATOR_URI_SETTING } from '../cluster/options.ts';
import type { SidecarImages } from '../cluster/select-images.ts';

export interface BackupControllerOptions extends SidecarImages {
  imagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  orchestratorUri: string;
  /** Orchestrator's API credentials directory ('' = none). */
  orchestratorCredentialsDir: string;
  /** Deadline of a backup Job; also how long its source replica is downtimed in Orchestrator. */
  backupTimeoutMs: number;
}

export const BACKUP_SETTINGS: SettingTable<BackupControllerOptions> = {
  sidecarImage57: CLUSTER_SETTINGS.sidecarImage57,
  sidecarImage80: CLUSTER_SETTINGS.sidecarImage80,
  sidecarImage84: CLUSTER_SETTINGS.sidecarImage84,
  sidecarImageMariaDB: CLUSTER_SETTINGS.sidecarImageMariaDB,
  imagePullPolicy: CLUSTER_SETTINGS.imagePullPolicy,
  orchestratorUri: ORCHESTRATOR_URI_SETTING,
  orchestratorCredentialsDir: ORCHESTRATOR_CREDENTIALS_SETTING,
  backupTimeoutMs: durationSetting({
    flag: 'backup-timeout',
    env: 'BACKUP_TIMEOUT',
    help: 'a backup Job running longer ends Failed (activeDeadlineSeconds); its source replica is downtimed in Orchestrator for as long',
    default: '12h',
  }),
};

export function backupOptions(partial: Partial<BackupControllerOptions> = {}): BackupControllerOptions {
  return { ...defaultsOf(BACKUP_SETTINGS), ...partial };
}
