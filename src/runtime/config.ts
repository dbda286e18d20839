// The operator's configuration from flags and environment, validated once at start: the runtime's
// own settings (declared here) and each controller's (declared beside the controller, given to it
// as its options object). A flag wins over its variable. Problems name the flag and the variable,
// all of them at once; a secret's value is never echoed and URL userinfo is masked.
import { hostname } from 'node:os';
import { ConfigError } from './config-error.ts';
import type { ControllerDefinition, ControllerSpec } from './controller.ts';
import { LOG_LEVELS, type LogLevel } from './logger.ts';
import type { Permission, PermissionSection } from './permissions.ts';
import {
  addressSetting,
  booleanSetting,
  choiceSetting,
  durationSetting,
  helpRequested as helpAmong,
  integerSetting,
  positiveNumberSetting,
  readSettings,
  stringSetting,
  usage,
  type Env,
  type SettingSection,
  type SettingTable,
} from './settings.ts';

export { ConfigError };
export { parseDuration } from './settings.ts';

/** The runtime's settings, as given. */
interface RuntimeSettings {
  kubeconfig: string;
  namespace: string;
  metricsAddr: { host: string; port: number };
  leaderElect: boolean;
  leaderElectionId: string;
  leaderElectionNamespace: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  workers: number;
  resyncPeriodMs: number;
  shutdownTimeoutMs: number;
  reconcileTimeoutMs: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  logLevel: LogLevel;
}

export const RUNTIME_SETTINGS: SettingTable<RuntimeSettings> = {
  kubeconfig: stringSetting({
    flag: 'kubeconfig',
    env: 'KUBECONFIG',
    help: 'kubeconfig file',
    defaultText: 'in-cluster, then ~/.kube/config',
  }),
  namespace: stringSetting({ flag: 'namespace', env: 'WATCH_NAMESPACE', help: "namespace to watch ('' = all)", default: '' }),
  metricsAddr: addressSetting({
    flag: 'metrics-addr',
    env: 'METRICS_ADDR',
    help: 'address of /healthz, /readyz, /metrics (port 0: a free port)',
    default: ':8080',
  }),
  leaderElect: booleanSetting({
    flag: 'leader-elect',
    env: 'LEADER_ELECT',
    help: 'run controllers only while holding the Lease',
    default: 'true',
  }),
  leaderElectionId: stringSetting({
    flag: 'leader-election-id',
    env: 'LEADER_ELECTION_ID',
    help: 'name of the Lease',
    default: 'mysql-operator-leader-election',
    required: true,
  }),
  leaderElectionNamespace: stringSetting({
    flag: 'leader-election-namespace',
    env: 'LEADER_ELECTION_NAMESPACE',
    help: 'namespace of the Lease',
    defaultText: 'POD_NAMESPACE, else the watch namespace, else default',
  }),
  identity: stringSetting({ flag: 'identity', env: 'POD_NAME', help: 'holder identity in the Lease', defaultText: 'hostname_pid' }),
  leaseDurationMs: durationSetting({
    flag: 'lease-duration',
    env: 'LEASE_DURATION',
    help: 'how long a non-renewed Lease stays held',
    default: '15s',
  }),
  renewDeadlineMs: durationSetting({
    flag: 'renew-deadline',
    env: 'RENEW_DEADLINE',
    help: 'leader gives up if it cannot renew for this long',
    default: '10s',
  }),
  retryPeriodMs: durationSetting({ flag: 'retry-period', env: 'RETRY_PERIOD', help: 'interval of acquire/renew attempts', default: '2s' }),
  workers: integerSetting({ flag: 'workers', env: 'WORKERS', help: 'concurrent reconciles per controller', default: '5' }, 1, 256),
  resyncPeriodMs: durationSetting({
    flag: 'resync-period',
    env: 'RESYNC_PERIOD',
    help: 'every object is reconciled at least this often',
    default: '5m',
  }),
  shutdownTimeoutMs: durationSetting({
    flag: 'shutdown-timeout',
    env: 'SHUTDOWN_TIMEOUT',
    help: 'bound on finishing in-flight work at shutdown',
    default: '25s',
  }),
  reconcileTimeoutMs: durationSetting({
    flag: 'reconcile-timeout',
    env: 'RECONCILE_TIMEOUT',
    help: 'deadline of one reconcile; past it the key is retried with backoff',
    default: '5m',
  }),
  kubeApiQps: positiveNumberSetting({
    flag: 'kube-api-qps',
    env: 'KUBE_API_QPS',
    help: 'API requests per second, on average (watches excepted)',
    default: '20',
  }),
  kubeApiBurst: integerSetting(
    { flag: 'kube-api-burst', env: 'KUBE_API_BURST', help: 'API requests allowed at once above --kube-api-qps', default: '30' },
    1,
    100_000,
  ),
  logLevel: choiceSetting({ flag: 'log-level', env: 'LOG_LEVEL', help: `one of ${LOG_LEVELS.join(', ')}`, default: 'info' }, LOG_LEVELS),
};

/** What the runtime itself does with the API; informers and reconciles are the controllers' to declare. */
export const RUNTIME_PERMISSIONS: readonly Permission[] = [
  // Leader election, in --leader-election-namespace.
  { group: 'coordination.k8s.io', resources: ['leases'], verbs: ['get', 'create', 'update'] },
  // Events of every controller; repeats patch `count`.
  { group: '', resources: ['events'], verbs: ['create', 'patch'] },
];

/** The runtime's settings, resolved: what the Manager runs with. */
export interface Config extends Omit<RuntimeSettings, 'kubeconfig'> {
  /** Path of a kubeconfig file; undefined: in-cluster config, else ~/.kube/config. */
  kubeconfig: string | undefined;
}

/** A controller with its own validated options, ready to build. */
export interface LoadedController {
  name: string;
  options: object;
  build(): ControllerSpec;
}

export interface OperatorConfig {
  runtime: Config;
  /** The controllers given to loadConfig, in order, each with its options. */
  controllers: LoadedController[];
}

/** The runtime's section, then each controller's: loading, `--help` and docs/flags.md. */
export function settingSections(controllers: readonly ControllerDefinition[]): SettingSection[] {
  return [
    { title: 'runtime', settings: RUNTIME_SETTINGS },
    ...controllers.map((c) => ({ title: `${c.name} controller`, settings: c.settings })),
  ];
}

/** The runtime's permissions, then each controller's: chart/rbac/rules.yaml. */
export function permissionSections(controllers: readonly ControllerDefinition[]): PermissionSection[] {
  return [
    { title: 'runtime', permissions: RUNTIME_PERMISSIONS },
    ...controllers.map((c) => ({ title: `${c.name} controller`, permissions: c.permissions })),
  ];
}

function runtimeProblems(s: RuntimeSettings): string[] {
  const problems: string[] = [];
  if (s.renewDeadlineMs >= s.leaseDurationMs) {
    problems.push('--renew-deadline (or RENEW_DEADLINE) must be shorter than --lease-duration (or LEASE_DURATION)');
  }
  if (s.retryPeriodMs >= s.renewDeadlineMs) {
    problems.push('--retry-period (or RETRY_PERIOD) must be shorter than --renew-deadline (or RENEW_DEADLINE)');
  }
  return problems;
}

/**
 * Builds the configuration from `argv` (without node and script) and `env`: the runtime's and
 * each of `controllers`' settings. Throws one ConfigError listing every problem.
 */
export function loadConfig(
  argv: readonly string[],
  env: Env = process.env,
  controllers: readonly ControllerDefinition[] = [],
): OperatorConfig {
  const read = readSettings(settingSections(controllers), argv, env);
  const problems = [...read.problems];
  const runtime = read.values[0] as unknown as RuntimeSettings;
  if (!read.refused[0]) problems.push(...runtimeProblems(runtime));
  const loaded = controllers.map((c, i): LoadedController => {
    const options = read.values[i + 1]!;
    return { name: c.name, options, build: () => c.build(options) };
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    runtime: {
      ...runtime,
      kubeconfig: runtime.kubeconfig || undefined,
      leaderElectionNamespace: runtime.leaderElectionNamespace || env.POD_NAMESPACE || runtime.namespace || 'default',
      identity: runtime.identity || `${hostname()}_${process.pid}`,
    },
    controllers: loaded,
  };
}

/** `--help` or `-h` among the flags (see settings.ts). */
export function helpRequested(argv: readonly string[], controllers: readonly ControllerDefinition[] = []): boolean {
  return helpAmong(settingSections(controllers), argv);
}

/** What `--help` prints: defaults only, never what the environment holds. */
export function helpText(controllers: readonly ControllerDefinition[] = []): string {
  return (
    'usage: mysql-operator [flags]\n\n' +
    'Each flag can also be set by the variable named next to it; a flag wins over its variable.\n\n' +
    `${usage(settingSections(controllers))}\n`
  );
}
