// The backup controller: a MysqlBackup becomes a Job running the sidecar's take-backup-to, and its
// status follows the Job (docs/backups.md). Keyed by backup; its Job (owned) and its Job's pods
// (the termination message carries the report) enqueue it.
import { API_GROUP } from '../../api/constants.ts';
import { credentialsFrom, orchestratorClient } from '../../orchestrator/index.ts';
import { ownerKeys, type ControllerDefinition, type ControllerSpec } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { objectKey, type KubeObject } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { storageFor } from '../../storage/index.ts';
import { KINDS } from '../shared/kinds.ts';
import { isFinished, type Backup } from './decide-backup.ts';
import { JOB_POD_TARGET } from './reconcile.ts';
import { BACKUP_SETTINGS, type BackupControllerOptions } from './options.ts';
import { reconcileBackup, type BackupDeps, type DowntimeMemory } from './reconcile.ts';

export const BACKUP_PERMISSIONS: readonly Permission[] = [
  // patch: the resolved URL and Secret in spec, the cleanup finalizer, applyStatus's hand-over.
  { group: API_GROUP, resources: ['mysqlbackups'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlbackups/status'], verbs: ['patch'] },
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch'] },
  { group: 'batch', resources: ['jobs'], verbs: ['list', 'watch', 'create'] },
  { group: '', resources: ['pods'], verbs: ['list', 'watch'] },
  // The storage credentials, read once when a stored backup is deleted (never cached).
  { group: '', resources: ['secrets'], verbs: ['get'] },
];

export function makeBackupController(opts: BackupControllerOptions, deps: Partial<BackupDeps> = {}): ControllerSpec {
  const full: BackupDeps = {
    orchestrator:
      deps.orchestrator ??
      orchestratorClient({ baseUrl: opts.orchestratorUri, credentials: credentialsFrom(opts.orchestratorCredentialsDir) }),
    storageFor: deps.storageFor ?? storageFor,
    now: deps.now ?? (() => new Date()),
  };
  const memory: DowntimeMemory = new Map();
  let jobs: Informer<KubeObject> | undefined;
  let backups: Informer<Backup> | undefined;
  return {
    name: 'backup',
    for: KINDS.backup,
    owns: [KINDS.job],
    watches: [
      {
        // A Job pod that ends carries the report: its Job's backup.
        target: JOB_POD_TARGET,
        map: (pod) =>
          (pod.metadata?.ownerReferences ?? [])
            .filter((o) => o.kind === 'Job')
            .flatMap((o) => {
              const job = jobs?.get(pod.metadata?.namespace ?? '', o.name);
              return job ? ownerKeys(job, KINDS.backup) : [];
            }),
      },
      {
        // A backup refused for want of its cluster, or of the cluster's backupURL, is decided again.
        target: KINDS.cluster,
        map: (c) =>
          (backups?.list({ namespace: c.metadata?.namespace ?? '' }) ?? [])
            .filter((b) => b.spec.clusterName === c.metadata?.name && !isFinished(b))
            .map((b) => objectKey(b)),
      },
    ],
    async start(ctx) {
      [jobs, backups] = await Promise.all([ctx.informer(KINDS.job), ctx.informer<Backup>(KINDS.backup)]);
    },
    reconcile: (req, ctx) => reconcileBackup(req, ctx, opts, full, memory),
  };
}

export const backupControllerDefinition: ControllerDefinition<BackupControllerOptions> = {
  name: 'backup',
  settings: BACKUP_SETTINGS,
  permissions: BACKUP_PERMISSIONS,
  build: (opts) => makeBackupController(opts),
};
