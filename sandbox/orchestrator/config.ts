// The stand-in reads the keys of Orchestrator's own config file that it acts on; every other key
// is accepted and ignored, so the chart's file loads unchanged.
export const HOOK_LISTS = [
  'OnFailureDetectionProcesses',
  'PreGracefulTakeoverProcesses',
  'PreFailoverProcesses',
  'PostMasterFailoverProcesses',
  'PostFailoverProcesses',
  'PostUnsuccessfulFailoverProcesses',
  'PostGracefulTakeoverProcesses',
] as const;
export type HookList = (typeof HOOK_LISTS)[number];

export interface StandInConfig {
  topologyUser: string;
  topologyPassword: string;
  connectTimeoutSeconds: number;
  instancePollSeconds: number;
  recoveryPeriodBlockSeconds: number;
  failureDetectionPeriodBlockMinutes: number;
  detectClusterAliasQuery: string;
  detectInstanceAliasQuery: string;
  /** Gives the user and password a demoted master or a repointed replica replicates with. */
  replicationCredentialsQuery: string;
  recoverMasterClusterFilters: string[];
  hooks: Record<HookList, string[]>;
}

function field<T>(raw: Record<string, unknown>, name: string, kind: 'string' | 'number', dflt: T): T {
  const v = raw[name];
  if (v === undefined) return dflt;
  if (typeof v !== kind) throw new Error(`orchestrator config: ${name} must be a ${kind}`);
  return v as T;
}

function stringList(raw: Record<string, unknown>, name: string): string[] {
  const v = raw[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`orchestrator config: ${name} must be a list of strings`);
  return v;
}

export function parseConfig(text: string): StandInConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`orchestrator config: not JSON: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('orchestrator config: must be a JSON object');
  const r = raw as Record<string, unknown>;
  const cfg: StandInConfig = {
    topologyUser: field(r, 'MySQLTopologyUser', 'string', ''),
    topologyPassword: field(r, 'MySQLTopologyPassword', 'string', ''),
    connectTimeoutSeconds: field(r, 'MySQLConnectTimeoutSeconds', 'number', 2),
    instancePollSeconds: field(r, 'InstancePollSeconds', 'number', 1),
    recoveryPeriodBlockSeconds: field(r, 'RecoveryPeriodBlockSeconds', 'number', 3600),
    failureDetectionPeriodBlockMinutes: field(r, 'FailureDetectionPeriodBlockMinutes', 'number', 60),
    detectClusterAliasQuery: field(r, 'DetectClusterAliasQuery', 'string', ''),
    detectInstanceAliasQuery: field(r, 'DetectInstanceAliasQuery', 'string', ''),
    replicationCredentialsQuery: field(r, 'ReplicationCredentialsQuery', 'string', ''),
    recoverMasterClusterFilters: stringList(r, 'RecoverMasterClusterFilters'),
    hooks: Object.fromEntries(HOOK_LISTS.map((h) => [h, stringList(r, h)])) as Record<HookList, string[]>,
  };
  if (cfg.topologyUser === '') throw new Error('orchestrator config: MySQLTopologyUser is required');
  if (!(cfg.instancePollSeconds > 0)) throw new Error('orchestrator config: InstancePollSeconds must be positive');
  if (cfg.replicationCredentialsQuery === '') {
    throw new Error('orchestrator config: ReplicationCredentialsQuery is required (MariaDB has no mysql.slave_master_info to read them from)');
  }
  return cfg;
}

/**
 * `MySQLTopologyCredentialsConfigFile` (a `[client]` file with user= and password=, as the chart
 * renders it so the password is in no config file) filled into MySQLTopologyUser/Password, which
 * Orchestrator reads from that file when the config names it.
 */
export function withCredentialsFile(text: string, read: (path: string) => string): string {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const file = raw.MySQLTopologyCredentialsConfigFile;
  if (typeof file !== 'string' || file === '') return text;
  const ini = read(file);
  const value = (key: string): string | undefined => new RegExp(`^\\s*${key}\\s*=\\s*(.*?)\\s*$`, 'm').exec(ini)?.[1];
  return JSON.stringify({ ...raw, MySQLTopologyUser: value('user') ?? '', MySQLTopologyPassword: value('password') ?? '' });
}

/** RecoverMasterClusterFilters: "*" or a regular expression matched against the cluster name or alias. */
export function autoRecovers(cfg: StandInConfig, clusterName: string, alias: string): boolean {
  return cfg.recoverMasterClusterFilters.some((f) => f === '*' || new RegExp(f).test(clusterName) || new RegExp(f).test(alias));
}
