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
  /** DetectSemiSyncEnforcedQuery: semi-sync as 3.2.6 does it around promotions and replication starts (semi-sync.ts). */
  detectSemiSyncEnforcedQuery: string;
  recoverMasterClusterFilters: string[];
  hooks: Record<HookList, string[]>;
  /** FailMasterPromotionIfSQLThreadNotUpToDate: a candidate with unapplied relay log is refused. */
  failPromotionIfSqlBehind: boolean;
  /** DelayMasterPromotionIfSQLThreadNotUpToDate: the promotion waits while its SQL thread progresses. */
  delayPromotionIfSqlBehind: boolean;
  /** ReasonableReplicationLagSeconds: how long the Delay variant waits without progress (3.2.6's default 10). */
  reasonableReplicationLagSeconds: number;
  /** AuthenticationMethod, HTTPAuthUser, HTTPAuthPassword (auth.ts); `none` when the method is not set. */
  authentication: Authentication;
}

/**
 * The API's authentication, as 3.2.6 does it (test/fixtures/orchestrator/auth/): `basic`, one
 * user; `multi`, that user plus `readonly` with any password, refused the write routes.
 */
export type Authentication = { method: 'none' } | { method: 'basic' | 'multi'; user: string; password: string };

function authentication(r: Record<string, unknown>): Authentication {
  const method = field(r, 'AuthenticationMethod', 'string', '').toLowerCase();
  const user = field(r, 'HTTPAuthUser', 'string', '');
  const password = field(r, 'HTTPAuthPassword', 'string', '');
  if (method === '') return { method: 'none' };
  if (method !== 'basic' && method !== 'multi') {
    throw new Error(`orchestrator config: the stand-in knows AuthenticationMethod "basic" and "multi", not ${JSON.stringify(method)}`);
  }
  // 3.2.6 refuses to start with multi and no user, and runs basic without a user unauthenticated
  // (with a warning); the stand-in refuses both rather than serve an open API by accident.
  if (user === '') throw new Error(`orchestrator config: AuthenticationMethod is ${method} but HTTPAuthUser is empty`);
  return { method, user, password };
}

function field<T>(raw: Record<string, unknown>, name: string, kind: 'string' | 'number' | 'boolean', dflt: T): T {
  const v = raw[name];
  if (v === undefined) return dflt;
  if (typeof v !== kind) throw new Error(`orchestrator config: ${name} must be a ${kind}`);
  return v as T;
}

function stringList(raw: Record<string, unknown>, name: string): string[] {
  const v = raw[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new Error(`orchestrator config: ${name} must be a list of strings`);
  return v;
}

/** `user` and `password` of the `[client]` section of a MySQL option file (MySQLTopologyCredentialsConfigFile). */
function clientCredentials(text: string): { user: string; password: string } {
  let section = '';
  const found: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const header = /^\s*\[(.+)\]\s*$/.exec(line);
    if (header) section = header[1]!;
    const kv = /^\s*(user|password)\s*=\s*(.*?)\s*$/.exec(line);
    if (kv && section === 'client') found[kv[1]!] = kv[2]!;
  }
  return { user: found.user ?? '', password: found.password ?? '' };
}

/**
 * The config of `text`; `readFile` reads the MySQLTopologyCredentialsConfigFile it names (the
 * chart's way: the password stays out of the JSON), used when MySQLTopologyUser is not given.
 */
export function parseConfig(text: string, readFile?: (path: string) => string): StandInConfig {
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
    detectSemiSyncEnforcedQuery: field(r, 'DetectSemiSyncEnforcedQuery', 'string', ''),
    recoverMasterClusterFilters: stringList(r, 'RecoverMasterClusterFilters'),
    hooks: Object.fromEntries(HOOK_LISTS.map((h) => [h, stringList(r, h)])) as Record<HookList, string[]>,
    failPromotionIfSqlBehind: field(r, 'FailMasterPromotionIfSQLThreadNotUpToDate', 'boolean', false),
    delayPromotionIfSqlBehind: field(r, 'DelayMasterPromotionIfSQLThreadNotUpToDate', 'boolean', false),
    reasonableReplicationLagSeconds: field(r, 'ReasonableReplicationLagSeconds', 'number', 10),
    authentication: authentication(r),
  };
  if (cfg.failPromotionIfSqlBehind && cfg.delayPromotionIfSqlBehind) {
    // 3.2.6's words (config.go), and like it the stand-in does not start.
    throw new Error(
      'orchestrator config: Cannot have both FailMasterPromotionIfSQLThreadNotUpToDate and DelayMasterPromotionIfSQLThreadNotUpToDate enabled',
    );
  }
  const credentialsFile = field(r, 'MySQLTopologyCredentialsConfigFile', 'string', '');
  if (cfg.topologyUser === '' && credentialsFile !== '' && readFile) {
    const { user, password } = clientCredentials(readFile(credentialsFile));
    cfg.topologyUser = user;
    cfg.topologyPassword = password;
  }
  if (cfg.topologyUser === '')
    throw new Error('orchestrator config: MySQLTopologyUser is required (or a MySQLTopologyCredentialsConfigFile with a [client] user)');
  if (!(cfg.instancePollSeconds > 0)) throw new Error('orchestrator config: InstancePollSeconds must be positive');
  if (cfg.replicationCredentialsQuery === '') {
    throw new Error(
      'orchestrator config: ReplicationCredentialsQuery is required (MariaDB has no mysql.slave_master_info to read them from)',
    );
  }
  return cfg;
}

/** RecoverMasterClusterFilters: "*" or a regular expression matched against the cluster name or alias. */
export function autoRecovers(cfg: StandInConfig, clusterName: string, alias: string): boolean {
  return cfg.recoverMasterClusterFilters.some((f) => f === '*' || new RegExp(f).test(clusterName) || new RegExp(f).test(alias));
}
