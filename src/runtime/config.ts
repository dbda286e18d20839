// Operator configuration from flags and environment, validated once at start. A flag wins over
// its variable. Errors name the flag and the variable so the fix is obvious.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from './logger.ts';

export interface Config {
  /** Path of a kubeconfig file; undefined: in-cluster config, else ~/.kube/config. */
  kubeconfig: string | undefined;
  /** Namespace to watch; '' = all namespaces. */
  namespace: string;
  /** host:port of the /healthz, /readyz and /metrics server (port 0 picks a free port). */
  metricsAddr: { host: string; port: number };
  leaderElect: boolean;
  leaderElectionId: string;
  leaderElectionNamespace: string;
  /** Unique name of this operator process in the Lease. */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  workers: number;
  resyncPeriodMs: number;
  /** Bound on finishing in-flight reconciles at shutdown. */
  shutdownTimeoutMs: number;
  /** Deadline of one reconcile: its signal aborts and the key is retried with backoff. */
  reconcileTimeoutMs: number;
  /** Client-side token bucket of API requests (watches excepted): refill rate and size. */
  kubeApiQps: number;
  kubeApiBurst: number;
  orchestratorUrl: string | undefined;
  sidecarImage: string;
  /** mysqlVersion (or alias) → image. */
  mysqlImageMap: Record<string, string>;
  logLevel: LogLevel;
  /** Orchestrator's topology credentials, copied into operated Secrets; '' = generate per cluster. */
  orcTopologyUser: string;
  orcTopologyPassword: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

interface Option {
  flag: string;
  env: string;
  type: 'string' | 'boolean';
  help: string;
  default?: string;
}

export const OPTIONS: Option[] = [
  { flag: 'kubeconfig', env: 'KUBECONFIG', type: 'string', help: 'kubeconfig file (default: in-cluster, then ~/.kube/config)' },
  { flag: 'namespace', env: 'WATCH_NAMESPACE', type: 'string', help: "namespace to watch ('' = all)", default: '' },
  { flag: 'metrics-addr', env: 'METRICS_ADDR', type: 'string', help: 'address of /healthz, /readyz, /metrics', default: ':8080' },
  { flag: 'leader-elect', env: 'LEADER_ELECT', type: 'boolean', help: 'run controllers only while holding the Lease', default: 'true' },
  { flag: 'leader-election-id', env: 'LEADER_ELECTION_ID', type: 'string', help: 'name of the Lease', default: 'mysql-operator-leader-election' },
  { flag: 'leader-election-namespace', env: 'LEADER_ELECTION_NAMESPACE', type: 'string', help: 'namespace of the Lease (default: POD_NAMESPACE, else the watch namespace, else default)' },
  { flag: 'identity', env: 'POD_NAME', type: 'string', help: 'holder identity in the Lease (default: hostname_pid)' },
  { flag: 'lease-duration', env: 'LEASE_DURATION', type: 'string', help: 'how long a non-renewed Lease stays held', default: '15s' },
  { flag: 'renew-deadline', env: 'RENEW_DEADLINE', type: 'string', help: 'leader gives up if it cannot renew for this long', default: '10s' },
  { flag: 'retry-period', env: 'RETRY_PERIOD', type: 'string', help: 'interval of acquire/renew attempts', default: '2s' },
  { flag: 'workers', env: 'WORKERS', type: 'string', help: 'concurrent reconciles per controller', default: '5' },
  { flag: 'resync-period', env: 'RESYNC_PERIOD', type: 'string', help: 'every object is reconciled at least this often', default: '5m' },
  { flag: 'shutdown-timeout', env: 'SHUTDOWN_TIMEOUT', type: 'string', help: 'bound on finishing in-flight work at shutdown', default: '25s' },
  { flag: 'reconcile-timeout', env: 'RECONCILE_TIMEOUT', type: 'string', help: 'deadline of one reconcile; past it the key is retried with backoff', default: '5m' },
  { flag: 'kube-api-qps', env: 'KUBE_API_QPS', type: 'string', help: 'API requests per second, on average (watches excepted)', default: '20' },
  { flag: 'kube-api-burst', env: 'KUBE_API_BURST', type: 'string', help: 'API requests allowed at once above --kube-api-qps', default: '30' },
  { flag: 'orchestrator-url', env: 'ORCHESTRATOR_URL', type: 'string', help: 'Orchestrator HTTP API base URL' },
  { flag: 'sidecar-image', env: 'SIDECAR_IMAGE', type: 'string', help: 'image of the sidecar containers', default: 'mysql-operator-sidecar:latest' },
  { flag: 'mysql-image-map', env: 'MYSQL_IMAGE_MAP', type: 'string', help: "mysqlVersion=image pairs, comma separated ('8.0=percona:8.0,mariadb-10.11=mariadb:10.11')", default: '' },
  { flag: 'log-level', env: 'LOG_LEVEL', type: 'string', help: `one of ${LOG_LEVELS.join(', ')}`, default: 'info' },
  // COMPAT: the anchor's chart passes these two variables to the operator.
  { flag: 'orc-topology-user', env: 'ORC_TOPOLOGY_USER', type: 'string', help: "Orchestrator's MySQL user, put in every operated Secret (default: generated per cluster)" },
  { flag: 'orc-topology-password', env: 'ORC_TOPOLOGY_PASSWORD', type: 'string', help: 'its password (prefer the variable: a flag shows in the process list)' },
];

export function usage(): string {
  return OPTIONS.map((o) => `  --${o.flag.padEnd(28)} ${o.env.padEnd(26)} ${o.help}${o.default !== undefined ? ` [${o.default || "''"}]` : ''}`).join('\n');
}

/** What `--help` prints. */
export function helpText(): string {
  return (
    'usage: mysql-operator [flags]\n\n' +
    'Each flag can also be set by the variable named next to it; a flag wins over its variable.\n\n' +
    `flags:\n${usage()}\n  --${'help, -h'.padEnd(28)} ${''.padEnd(26)} print this help and exit\n`
  );
}

const FLAG_PARSE_OPTIONS = Object.fromEntries(OPTIONS.map((o) => [o.flag, { type: o.type }])) as Record<string, { type: 'string' | 'boolean' }>;

/**
 * `--help` or `-h` anywhere among the flags asks for the usage instead of a run, even on a
 * command line or environment that would not load (that is when help is wanted most).
 */
export function helpRequested(argv: string[]): boolean {
  const { tokens } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { ...FLAG_PARSE_OPTIONS, help: { type: 'boolean', short: 'h' } },
  });
  return tokens.some((t) => t.kind === 'option' && t.name === 'help');
}

/** Parses `30s`, `5m`, `1h`, `1500ms`, `1m30s`. */
export function parseDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let i = 0;
  const t = text.trim();
  if (!t) return undefined;
  while (i < t.length) {
    re.lastIndex = i;
    const m = re.exec(t);
    if (!m) return undefined;
    total += Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
    i = re.lastIndex;
  }
  return Math.round(total);
}

export function parseImageMap(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) return undefined;
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

function parseAddr(text: string): { host: string; port: number } | undefined {
  const m = /^(.*):(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, '') || '0.0.0.0', port };
}

/**
 * Builds the config from `argv` (without node and script) and `env`. Throws ConfigError naming
 * the flag/variable on the first invalid value.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: FLAG_PARSE_OPTIONS,
    });
  } catch (err) {
    throw new ConfigError(`invalid command line: ${(err as Error).message}\nflags:\n${usage()}`);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const raw = (flag: string): { value: string | undefined; source: string } => {
    const o = OPTIONS.find((x) => x.flag === flag);
    if (!o) throw new Error(`unknown option ${flag}`);
    const v = values[flag];
    const source = `--${o.flag} (or ${o.env})`;
    if (v !== undefined) return { value: String(v), source };
    const e = env[o.env];
    if (e !== undefined) return { value: e, source };
    return { value: o.default, source };
  };
  const str = (flag: string): string | undefined => raw(flag).value;
  const duration = (flag: string, min = 1): number => {
    const { value, source } = raw(flag);
    const ms = parseDuration(value ?? '');
    if (ms === undefined || ms < min) {
      throw new ConfigError(`${source}: '${value}' is not a duration like 30s, 5m or 1h30m`);
    }
    return ms;
  };
  const integer = (flag: string, min: number, max: number): number => {
    const { value, source } = raw(flag);
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`${source}: '${value}' is not an integer between ${min} and ${max}`);
    }
    return n;
  };
  const bool = (flag: string): boolean => {
    const { value, source } = raw(flag);
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    throw new ConfigError(`${source}: '${value}' is not true or false`);
  };

  const metrics = raw('metrics-addr');
  const metricsAddr = parseAddr(metrics.value ?? '');
  if (!metricsAddr) throw new ConfigError(`${metrics.source}: '${metrics.value}' is not host:port or :port`);

  const workers = integer('workers', 1, 256);

  const orc = raw('orchestrator-url');
  if (orc.value) {
    let u: URL | undefined;
    try {
      u = new URL(orc.value);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
      throw new ConfigError(`${orc.source}: '${orc.value}' is not an http(s) URL`);
    }
  }

  const im = raw('mysql-image-map');
  const mysqlImageMap = parseImageMap(im.value ?? '');
  if (!mysqlImageMap) throw new ConfigError(`${im.source}: '${im.value}' is not a list of version=image pairs`);

  const qps = raw('kube-api-qps');
  const kubeApiQps = Number(qps.value);
  if (!Number.isFinite(kubeApiQps) || kubeApiQps <= 0) {
    throw new ConfigError(`${qps.source}: '${qps.value}' is not a positive number`);
  }
  const kubeApiBurst = integer('kube-api-burst', 1, 100_000);

  const ll = raw('log-level');
  if (!LOG_LEVELS.includes(ll.value as LogLevel)) {
    throw new ConfigError(`${ll.source}: '${ll.value}' is not one of ${LOG_LEVELS.join(', ')}`);
  }

  const namespace = str('namespace') ?? '';
  const leaseDurationMs = duration('lease-duration');
  const renewDeadlineMs = duration('renew-deadline');
  const retryPeriodMs = duration('retry-period');
  if (renewDeadlineMs >= leaseDurationMs) {
    throw new ConfigError('--renew-deadline (or RENEW_DEADLINE) must be shorter than --lease-duration (or LEASE_DURATION)');
  }
  if (retryPeriodMs >= renewDeadlineMs) {
    throw new ConfigError('--retry-period (or RETRY_PERIOD) must be shorter than --renew-deadline (or RENEW_DEADLINE)');
  }
  const sidecar = raw('sidecar-image');
  if (!sidecar.value) throw new ConfigError(`${sidecar.source}: must not be empty`);

  return {
    kubeconfig: str('kubeconfig') || undefined,
    namespace,
    metricsAddr,
    leaderElect: bool('leader-elect'),
    leaderElectionId: str('leader-election-id') || 'mysql-operator-leader-election',
    leaderElectionNamespace: str('leader-election-namespace') || env['POD_NAMESPACE'] || namespace || 'default',
    identity: str('identity') || `${hostname()}_${process.pid}`,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    workers,
    resyncPeriodMs: duration('resync-period'),
    shutdownTimeoutMs: duration('shutdown-timeout'),
    reconcileTimeoutMs: duration('reconcile-timeout'),
    kubeApiQps,
    kubeApiBurst,
    orchestratorUrl: orc.value || undefined,
    sidecarImage: sidecar.value,
    mysqlImageMap,
    logLevel: ll.value as LogLevel,
    orcTopologyUser: str('orc-topology-user') ?? '',
    orcTopologyPassword: str('orc-topology-password') ?? '',
  };
}
