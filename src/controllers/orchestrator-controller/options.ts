// What the orchestrator controller takes from the operator's command line and environment. The
// Orchestrator URL is a setting object shared with the cluster controller (one flag for both); the anchor had
// no flags for the rest, so they carry this project's names.
import { defaultsOf, durationSetting, type SettingTable } from '../../runtime/settings.ts';
import { ORCHESTRATOR_CREDENTIALS_SETTING, ORCHESTRATOR_URI_SETTING } from '../shared/settings.ts';
import { FAILOVER_HOOK_SETTINGS, type FailoverHookOptions } from './hook.ts';

/** The failover hook's secret settings are the controller's: the hook is one of its routes. */
export interface OrchestratorControllerOptions extends FailoverHookOptions {
  /** Orchestrator's HTTP API. It always has a value: the chart's Orchestrator by default. */
  orchestratorUri: string;
  /** Orchestrator's API credentials directory ('' = none). */
  orchestratorCredentialsDir: string;
  /** How often each cluster is looked at without a change or a hook call. */
  resyncPeriodMs: number;
  /** How long Orchestrator must not have seen a removed pod's server before it is forgotten. */
  forgetGraceMs: number;
  /** How old a recovery must be before it is acknowledged (the anchor: 10 minutes). */
  ackGraceMs: number;
  /** How long a deleted cluster waits for an unreachable Orchestrator before its finalizer goes. */
  finalizerTimeoutMs: number;
}

export const ORCHESTRATOR_SETTINGS: SettingTable<OrchestratorControllerOptions> = {
  orchestratorUri: ORCHESTRATOR_URI_SETTING,
  orchestratorCredentialsDir: ORCHESTRATOR_CREDENTIALS_SETTING,
  resyncPeriodMs: durationSetting({
    flag: 'orchestrator-resync-period',
    env: 'ORCHESTRATOR_RESYNC_PERIOD',
    // Orchestrator re-reads an instance every InstancePollSeconds + 1 s; failover hooks come at once.
    help: "how often each cluster's status and labels are compared with Orchestrator's view",
    default: '5s',
  }),
  forgetGraceMs: durationSetting({
    flag: 'orchestrator-forget-grace',
    env: 'ORCHESTRATOR_FORGET_GRACE',
    help: "how long Orchestrator must not have seen a removed pod's server before it is forgotten there",
    default: '2m',
  }),
  ackGraceMs: durationSetting({
    flag: 'failover-ack-grace',
    env: 'FAILOVER_ACK_GRACE',
    help: 'how old a recovery must be before it is acknowledged in Orchestrator (once the cluster is Ready); until then Orchestrator does not fail over the promoted master again',
    default: '30s',
  }),
  finalizerTimeoutMs: durationSetting({
    flag: 'orchestrator-finalizer-timeout',
    env: 'ORCHESTRATOR_FINALIZER_TIMEOUT',
    help: 'how long a deleted cluster waits for an unreachable Orchestrator to forget its servers before it goes anyway',
    default: '5m',
  }),
  ...FAILOVER_HOOK_SETTINGS,
};

export const DEFAULT_ORCHESTRATOR_OPTIONS: OrchestratorControllerOptions = defaultsOf(ORCHESTRATOR_SETTINGS);
