// What the backup controller takes from the command line and environment. The sidecar images,
// the pull policy and Orchestrator's URL are setting objects shared with the cluster controller
// (shared/settings.ts), so each stays one flag: the Job runs the same sidecar image as the cluster's pods.
import { durationSetting, defaultsOf, type SettingTable } from '../../runtime/settings.ts';
import {
  IMAGE_PULL_POLICY_SETTING,
  ORCHESTRATOR_CREDENTIALS_SETTING,
  ORCHESTRATOR_URI_SETTING,
  SIDECAR_IMAGE_SETTINGS,
  type ImagePullPolicy,
} from '../shared/settings.ts';
import type { SidecarImages } from '../shared/sidecar-images.ts';

export interface BackupControllerOptions extends SidecarImages {
  imagePullPolicy: ImagePullPolicy;
  orchestratorUri: string;
  /** Orchestrator's API credentials directory ('' = none). */
  orchestratorCredentialsDir: string;
  /** Deadline of a backup Job; also how long its source replica is downtimed in Orchestrator. */
  backupTimeoutMs: number;
}

export const BACKUP_SETTINGS: SettingTable<BackupControllerOptions> = {
  ...SIDECAR_IMAGE_SETTINGS,
  imagePullPolicy: IMAGE_PULL_POLICY_SETTING,
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
