// Runs the real manager with the backup, backupcron and restore controllers against a test API
// (kube-env), built from loadConfig() as main builds them. Orchestrator is where the test says
// (by default an address that refuses connections); schedules tick when the test fires them
// (ManualTicker), never by the wall clock.
import type { KubeConfig } from '@kubernetes/client-node';
import { makeBackupController } from '../../../src/controllers/backup/controller.ts';
import type { BackupControllerOptions } from '../../../src/controllers/backup/options.ts';
import { backupControllerDefinition } from '../../../src/controllers/backup/controller.ts';
import { backupCronControllerDefinition, makeBackupCronController } from '../../../src/controllers/backupcron/controller.ts';
import type { Schedule } from '../../../src/controllers/backupcron/schedule.ts';
import { makeRestoreController, restoreControllerDefinition } from '../../../src/controllers/restore/controller.ts';
import type { StartTicker } from '../../../src/controllers/backupcron/ticker.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { startInProcessOperator } from '../../support/in-process-operator.ts';
import { ReconcileLog } from '../../support/reconciles.ts';

/** Schedules the controller started and not stopped; the test fires their ticks. */
export class ManualTicker {
  readonly active = new Set<{ schedule: Schedule; onTick: (at: Date) => Promise<void> }>();
  readonly start: StartTicker = (schedule, onTick) => {
    const entry = { schedule, onTick };
    this.active.add(entry);
    return { stop: () => void this.active.delete(entry) };
  };
  /** Fires a tick at `at` on every running schedule (as node-cron would at that time); settles when they are handled. */
  async fire(at: Date): Promise<void> {
    await Promise.all([...this.active].map((e) => e.onTick(at)));
  }
}

export interface RunningOperator {
  reconciles: ReconcileLog;
  ticker: ManualTicker;
  stop(): Promise<void>;
}

/** The operator's user agent in the API server's request log. */
export const BACKUP_OPERATOR_AGENT = 'mysql-operator/backup-test';

/** Refuses connections at once: Orchestrator "not running". */
export const NO_ORCHESTRATOR = 'http://127.0.0.1:1/api';

export async function startBackupOperator(
  kubeConfig: KubeConfig,
  namespace: string,
  run: { backup?: boolean; backupCron?: boolean; restore?: boolean } = { backup: true, backupCron: true },
  env: Record<string, string> = {},
  /** The backupcron controller's clock (a later operator, hours on). */
  now?: () => Date,
): Promise<RunningOperator> {
  const loaded = loadConfig(
    [],
    {
      LEADER_ELECT: 'false',
      METRICS_ADDR: '127.0.0.1:0',
      WATCH_NAMESPACE: namespace,
      RESYNC_PERIOD: '2s',
      ORCHESTRATOR_URL: NO_ORCHESTRATOR,
      ...env,
    },
    [backupControllerDefinition, backupCronControllerDefinition, restoreControllerDefinition],
  );
  const ticker = new ManualTicker();
  const reconciles = new ReconcileLog();
  const backupOpts = loaded.controllers.find((c) => c.name === 'backup')!.options as BackupControllerOptions;
  const specs = [
    ...(run.backup ? [makeBackupController(backupOpts)] : []),
    ...(run.backupCron ? [makeBackupCronController({ startTicker: ticker.start, ...(now ? { now } : {}) })] : []),
    ...(run.restore ? [makeRestoreController()] : []),
  ];
  for (const spec of specs) reconciles.record(spec);
  const { stop } = await startInProcessOperator(kubeConfig, BACKUP_OPERATOR_AGENT, loaded.runtime, specs);
  return { reconciles, ticker, stop };
}
