// The Orchestrator stand-in watching three real MariaDB servers (pod0 the master, pod1 and pod2
// its replicas) with the recorded hook configuration, and the hook-call comparison with the
// recordings of test/fixtures/orchestrator/hooks/: hosts by role, recovery
// UIDs by identity, times, coordinates and aliases masked.
import { DETECT_SEMI_SYNC_ENFORCED_QUERY } from '../../src/mysql/semi-sync.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOK_LISTS, parseConfig, type HookList, type StandInConfig } from '../../sandbox/orchestrator/config.ts';
import { startOrchestratorStandIn, type StandIn } from '../../sandbox/orchestrator/index.ts';
import { REPLICATION_CREDENTIALS_QUERY } from '../../src/mysql/index.ts';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer, type StartMariaDBOptions } from './mariadb.ts';
import { eventually } from './wait.ts';
import type { Json } from './json.ts';

export const HOOKS = new URL('../fixtures/orchestrator/hooks/', import.meta.url).pathname;
export const ALIAS = 'my-db.default';

export interface HookCall {
  hook: string;
  args: Map<string, string>;
  orc: Map<string, string>;
  /** When hook-log.sh ran it (its `ts=`, ms since the epoch). */
  at?: number;
}

export function parseLog(text: string): HookCall[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const call: HookCall = { hook: '', args: new Map(), orc: new Map() };
      for (const f of line.split('\t')) {
        const eq = f.indexOf('=');
        const [k, v] = [f.slice(0, eq), f.slice(eq + 1)];
        if (k === 'hook') call.hook = v;
        else if (k === 'ts') call.at = Date.parse(v);
        else if (k.startsWith('ORC_')) call.orc.set(k, v);
        else call.args.set(k, v);
      }
      return call;
    });
}

/** Hosts by role (FAILED, SUCCESSOR, OTHER), UIDs numbered by first appearance, volatile values masked. */
export function normalize(calls: HookCall[]): string[] {
  const first = calls[0];
  assert.ok(first, 'no hook call');
  // Roles first from the failed and successor hosts, so OTHER is whatever is left.
  const roles = new Map<string, string>([[first.args.get('failedHost') ?? '', 'FAILED']]);
  const succ = calls.map((c) => c.args.get('successorHost') ?? '').find((h) => h !== '' && !h.startsWith('{'));
  if (succ) roles.set(succ, 'SUCCESSOR');
  const uids = new Map<string, string>();
  const mapHost = (hp: string): string => {
    const i = hp.lastIndexOf(':');
    const host = i < 0 ? hp : hp.slice(0, i);
    if (!roles.has(host)) roles.set(host, 'OTHER');
    return (roles.get(host) ?? host) + (i < 0 ? '' : hp.slice(i));
  };
  const value = (name: string, v: string): string => {
    if (v === '' || v.startsWith('{')) return v;
    if (
      /^(failedHost|successorHost|failureCluster|failureClusterDomain)$/.test(name) ||
      /_(FAILED_HOST|SUCCESSOR_HOST|FAILURE_CLUSTER|FAILURE_CLUSTER_DOMAIN)$/.test(name)
    )
      return mapHost(v);
    if (/^(slaveHosts|replicaHosts|ORC_REPLICA_HOSTS)$/.test(name)) return v.split(',').map(mapHost).sort().join(',');
    if (/^(recoveryUID|ORC_RECOVERY_UID)$/.test(name)) {
      if (!uids.has(v)) uids.set(v, `UID${uids.size + 1}`);
      return uids.get(v) ?? v;
    }
    if (/^(successorBinlogCoordinates|ORC_SUCCESSOR_BINLOG_COORDINATES)$/.test(name)) return 'COORDINATES';
    if (/^(successorAlias|ORC_SUCCESSOR_ALIAS)$/.test(name)) return 'ALIAS';
    return v;
  };
  return calls.map((c) =>
    [
      `hook=${c.hook}`,
      ...[...c.args].map(([k, v]) => `${k}=${value(k, v)}`),
      ...[...c.orc].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${value(k, v)}`),
    ].join(' | '),
  );
}

/** Orchestrator retried a failing PreFailover a timing-dependent number of times: keep the first and the last. */
export function collapseRetries(calls: HookCall[]): HookCall[] {
  const pre = (c: HookCall | undefined): boolean => c?.hook === 'PreFailoverProcesses';
  return calls.filter((c, i) => !(pre(c) && pre(calls[i - 1]) && pre(calls[i + 1])));
}

export const recorded = (scenario: string): HookCall[] => parseLog(readFileSync(join(HOOKS, `${scenario}.txt`), 'utf8'));

/** The configuration of the recorded Orchestrator (fixtures/orchestrator/hooks/). */
export const RECORDED_CONF = JSON.parse(readFileSync(join(HOOKS, 'orchestrator.conf.json'), 'utf8')) as Record<string, unknown>;

/**
 * The recorded configuration for servers started with the test system users: their topology
 * user, the chart's ReplicationCredentialsQuery (so repointed servers get the credentials their
 * init-file wrote), every server in the cluster `alias`, a recovery blocked for 1 s only, and
 * `hooks` (lists not given run nothing).
 */
/** `over`: keys of Orchestrator's config over the recorded ones (e.g. the promotion variants). */
export function standInConfig(
  alias: string,
  hooks: Partial<Record<HookList, string[]>>,
  recoveryPeriodBlockSeconds = 1,
  over: Record<string, unknown> = {},
): StandInConfig {
  const orc = TEST_SYSTEM_USERS.orchestrator;
  return parseConfig(
    JSON.stringify({
      ...RECORDED_CONF,
      ...Object.fromEntries(HOOK_LISTS.map((h) => [h, hooks[h] ?? []])),
      MySQLTopologyUser: orc.user,
      MySQLTopologyPassword: orc.password,
      DetectClusterAliasQuery: `SELECT '${alias}'`,
      ReplicationCredentialsQuery: REPLICATION_CREDENTIALS_QUERY,
      // The chart's (docs/semi-sync.md): 0 on servers without semi-sync, so the recorded runs are unchanged.
      DetectSemiSyncEnforcedQuery: DETECT_SEMI_SYNC_ENFORCED_QUERY,
      RecoveryPeriodBlockSeconds: recoveryPeriodBlockSeconds,
      ...over,
    }),
  );
}

/** The stand-in watching some servers, its hook log and the lab controls of hook-log.sh. */
export interface StandInWatch {
  standIn: StandIn;
  /** Lab controls of hook-log.sh: `<Hook>.exit` and `<Hook>.sleep` files go here. */
  ctl: string;
  get(path: string): Promise<{ status: number; body: Json }>;
  /** The hook calls made so far. */
  hookLines(): HookCall[];
  clearHookLog(): void;
}

export interface StandInLabOptions {
  /** The cluster alias `DetectClusterAliasQuery` answers (default ALIAS). */
  alias?: string;
  /** Commands run after the recorded hook-log.sh in these hook lists (e.g. the operator's failover hook). */
  extraHooks?: Partial<Record<HookList, string[]>>;
  /** RecoveryPeriodBlockSeconds (default 1). */
  recoveryPeriodBlockSeconds?: number;
  /** Keys of Orchestrator's config over the recorded ones. */
  config?: Record<string, unknown>;
}

export interface StandInLab extends StandInWatch {
  servers: [MariaDBServer, MariaDBServer, MariaDBServer];
}

/**
 * Starts the servers (`pod0` writable, the others replicating from it, one table written) and the
 * stand-in with the recorded config, discovers them and waits until they form one cluster.
 */
export async function startStandInLab(
  t: NonNullable<StartMariaDBOptions['t']>,
  name: string,
  opts: StandInLabOptions = {},
): Promise<StandInLab> {
  const servers = (await Promise.all(
    [0, 1, 2].map((i) => startMariaDB({ name: `${name}-pod${i}`, systemUsers: true, extraConfig: ['gtid-strict-mode=1'], t })),
  )) as StandInLab['servers'];
  await formCluster(servers);
  return {
    servers,
    ...(await watchWithStandIn(t, servers, opts.alias ?? ALIAS, {
      extraHooks: opts.extraHooks,
      recoveryPeriodBlockSeconds: opts.recoveryPeriodBlockSeconds,
      config: opts.config,
    })),
  };
}

/** The first server the writable master, the others replicating from it, and table app.t with one row. */
export async function formCluster([master, ...replicas]: readonly MariaDBServer[]): Promise<void> {
  if (!master) throw new Error('formCluster: no server');
  await (await master.node()).setReadOnly(false);
  for (const r of replicas) {
    const n = await r.node();
    await n.pointAt({ host: master.host, port: master.port }, TEST_SYSTEM_USERS.replication);
    await n.startReplication();
  }
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');
}

/**
 * The stand-in with the recorded config (`alias` as every server's cluster alias, the system
 * users of TEST_SYSTEM_USERS) watching running servers that already form one cluster: discovers
 * them and waits until it sees one cluster of all of them. `byReportHost`: instances are known
 * by their report_host (a pod FQDN), as the chart's Orchestrator knows them, through the
 * stand-in's `hosts` table. `extraHooks` run after the recorded hook-log.sh. Hook-log.sh finds its
 * log through variables set in each hook command, so labs can run side by side in one process.
 */
export async function watchWithStandIn(
  t: NonNullable<StartMariaDBOptions['t']>,
  servers: readonly MariaDBServer[],
  alias: string,
  opts: {
    byReportHost?: boolean;
    extraHooks?: StandInLabOptions['extraHooks'];
    recoveryPeriodBlockSeconds?: number;
    config?: StandInLabOptions['config'];
  } = {},
): Promise<StandInWatch> {
  const ctl = mkdtempSync(join(tmpdir(), 'orc-stand-in-'));
  t.after(() => rmSync(ctl, { recursive: true, force: true }));
  const log = join(ctl, 'hooks.log');
  const env = `export HOOK_SH='${join(HOOKS, 'hook-log.sh')}' HOOK_LOG='${log}' HOOK_CTL='${ctl}'; `;
  const config = standInConfig(
    alias,
    Object.fromEntries(
      HOOK_LISTS.map((h) => [h, [...(RECORDED_CONF[h] as string[]).map((cmd) => env + cmd), ...(opts.extraHooks?.[h] ?? [])]]),
    ),
    opts.recoveryPeriodBlockSeconds,
    opts.config,
  );
  const hosts = opts.byReportHost ? Object.fromEntries(servers.map((s) => [s.reportHost, s.host])) : {};
  const standIn = await startOrchestratorStandIn({ config, orchestratorHost: 'mysql-operator-0', hosts });
  t.after(() => standIn.stop());
  // With AuthenticationMethod in opts.config, the lab's own calls authenticate as the configured user.
  const auth = config.authentication;
  const headers: Record<string, string> =
    auth.method === 'none' ? {} : { authorization: `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}` };
  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${standIn.url}${path}`, { headers });
    return { status: res.status, body: await res.json() };
  };
  for (const s of servers)
    assert.equal((await get(`/api/discover/${opts.byReportHost ? s.reportHost : s.host}/${s.port}`)).body.Code, 'OK');
  await eventually(`all ${servers.length} in one cluster`, async () => (await get(`/api/cluster/${alias}`)).body.length === servers.length);
  return {
    standIn,
    ctl,
    get,
    hookLines: () => (existsSync(log) ? parseLog(readFileSync(log, 'utf8')) : []),
    clearHookLog: () => rmSync(log, { force: true }),
  };
}
