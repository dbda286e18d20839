// Semi-synchronous replication per flavour (docs/semi-sync.md). Pure: statements out of a
// flavour, the server's state and the wanted settings; node.ts runs them.
//
// | flavour          | built in?                       | master side / replica side                 | ack count variable |
// |------------------|---------------------------------|--------------------------------------------|--------------------|
// | MariaDB 10.3+    | yes (no plugin)                 | rpl_semi_sync_master_* / rpl_semi_sync_slave_* | none: one ack   |
// | MySQL 5.7, <8.0.26 | plugins semisync_master.so / semisync_slave.so | rpl_semi_sync_master_* / rpl_semi_sync_slave_* | rpl_semi_sync_master_wait_for_slave_count |
// | MySQL 8.0.26+, 8.4 | plugins semisync_source.so / semisync_replica.so | rpl_semi_sync_source_* / rpl_semi_sync_replica_* | rpl_semi_sync_source_wait_for_replica_count |
//
// The replica side takes effect when the IO thread connects, so a change of it restarts a
// running IO thread. The wait point is AFTER_SYNC (lossless: a commit is visible to others only
// once a replica has it), set explicitly, MariaDB's default being AFTER_COMMIT.
import { atLeast } from '../api/versions.ts';
import { usesSourceReplicaSyntax, type Flavour } from './flavour.ts';
import { stmt, type Statement } from './sql-text.ts';

export interface SemiSyncNames {
  master: string;
  replica: string;
  /** MySQL: the plugins to install (name, library); MariaDB: built in. */
  plugins?: { master: [string, string]; replica: [string, string] };
  /** The variable of the number of acknowledgements; MariaDB has none (it waits for one). */
  ackCount?: string;
}

export function semiSyncNames(f: Flavour): SemiSyncNames {
  if (f.family === 'mariadb') return { master: 'rpl_semi_sync_master', replica: 'rpl_semi_sync_slave' };
  if (atLeast(f, 8, 0, 26)) {
    return {
      master: 'rpl_semi_sync_source',
      replica: 'rpl_semi_sync_replica',
      plugins: { master: ['rpl_semi_sync_source', 'semisync_source.so'], replica: ['rpl_semi_sync_replica', 'semisync_replica.so'] },
      ackCount: 'rpl_semi_sync_source_wait_for_replica_count',
    };
  }
  return {
    master: 'rpl_semi_sync_master',
    replica: 'rpl_semi_sync_slave',
    plugins: { master: ['rpl_semi_sync_master', 'semisync_master.so'], replica: ['rpl_semi_sync_slave', 'semisync_slave.so'] },
    ackCount: 'rpl_semi_sync_master_wait_for_slave_count',
  };
}

/**
 * The longest timeout (ms) the master waits for an acknowledgement: long enough never to fall back
 * to async in practice. MySQL documents 4294967295 (about 49 days) as its maximum. MariaDB 10.11
 * takes up to 2^64-1, but Orchestrator 3.2.6 reads the variable on every server it polls into an
 * unsigned 64-bit field that its backend driver refuses when the high bit is set ("sql: converting
 * argument $60 type: uint64 values with high bit set are not supported"): the instance is never
 * stored again, and Orchestrator fails nothing over (recorded in
 * test/fixtures/orchestrator/README.md). So MariaDB gets 2^63-1, about 292 million years.
 */
export const ORCHESTRATOR_MAX_UINT64 = 9223372036854775807n;
export function neverTimeoutMs(f: Flavour): bigint {
  return f.family === 'mariadb' ? ORCHESTRATOR_MAX_UINT64 : 4294967295n;
}

export interface SemiSyncWanted {
  /** Master side: commits wait for acknowledgements. `keep`: neither turned on nor off. */
  master: boolean | 'keep';
  /** Replica side: this server acknowledges what it receives. */
  replica: boolean;
  acks: number;
  /** undefined: never fall back. */
  timeoutMs: number | undefined;
}

/** What a server says about semi-sync: variables and status, names without flavour. */
export interface SemiSyncState {
  /** MySQL: both plugins are installed; MariaDB: always. */
  pluginsInstalled: { master: boolean; replica: boolean };
  masterEnabled: boolean;
  replicaEnabled: boolean;
  waitPoint: string | undefined;
  timeoutMs: bigint | undefined;
  acks: number | undefined;
  /** The master side is active (Rpl_semi_sync_master_status ON): commits wait. OFF while enabled: fell back to async. */
  masterActive: boolean;
  /** Sessions waiting for an acknowledgement now. */
  waitSessions: number;
  /** Semi-sync replicas connected. */
  clients: number;
  replicaActive: boolean;
}

export function showSemiSyncVariablesStatement(): Statement {
  return stmt("SHOW GLOBAL VARIABLES LIKE 'rpl\\_semi\\_sync\\_%'");
}

export function showSemiSyncStatusStatement(): Statement {
  return stmt("SHOW GLOBAL STATUS LIKE 'Rpl\\_semi\\_sync\\_%'");
}

export function semiSyncPluginsStatement(): Statement {
  return stmt(
    "SELECT PLUGIN_NAME AS name FROM information_schema.PLUGINS WHERE PLUGIN_NAME LIKE 'rpl\\_semi\\_sync\\_%' AND PLUGIN_STATUS = 'ACTIVE'",
  );
}

/** source→master, replica→slave, lower case: one spelling for every flavour. */
function canonical(name: string): string {
  return name.toLowerCase().replace('_source', '_master').replace('_replica', '_slave');
}

const on = (v: string | undefined): boolean => v !== undefined && /^(on|1|yes|true)$/i.test(v);

/** Parses the rows of the two SHOW statements and the plugin list. */
export function parseSemiSyncState(
  f: Flavour,
  variables: ReadonlyArray<{ Variable_name: unknown; Value: unknown }>,
  status: ReadonlyArray<{ Variable_name: unknown; Value: unknown }>,
  plugins: readonly string[],
): SemiSyncState {
  const vars = new Map(variables.map((r) => [canonical(String(r.Variable_name)), String(r.Value)]));
  const stat = new Map(status.map((r) => [canonical(String(r.Variable_name)), String(r.Value)]));
  const names = semiSyncNames(f);
  const installed = (side: 'master' | 'replica'): boolean =>
    names.plugins === undefined || plugins.map((p) => p.toLowerCase()).includes(names.plugins[side][0]);
  const int = (v: string | undefined): number => (v === undefined || v === '' ? 0 : Number(v));
  const timeout = vars.get('rpl_semi_sync_master_timeout');
  const acks = vars.get('rpl_semi_sync_master_wait_for_slave_count');
  return {
    pluginsInstalled: { master: installed('master'), replica: installed('replica') },
    masterEnabled: on(vars.get('rpl_semi_sync_master_enabled')),
    replicaEnabled: on(vars.get('rpl_semi_sync_slave_enabled')),
    waitPoint: vars.get('rpl_semi_sync_master_wait_point')?.toUpperCase(),
    timeoutMs: timeout === undefined ? undefined : BigInt(timeout),
    acks: acks === undefined ? undefined : Number(acks),
    masterActive: on(stat.get('rpl_semi_sync_master_status')),
    waitSessions: int(stat.get('rpl_semi_sync_master_wait_sessions')),
    clients: int(stat.get('rpl_semi_sync_master_clients')),
    replicaActive: on(stat.get('rpl_semi_sync_slave_status')),
  };
}

export interface SemiSyncChanges {
  statements: Statement[];
  /** The replica side changed while the IO thread may run: restart it so that it takes effect. */
  restartIoThread: boolean;
}

/**
 * The statements that bring `state` to `wanted`, in order: plugins, then the master side's
 * settings before it is enabled (a master never waits at the wrong point), then the replica
 * side. Nothing when the server already matches.
 */
export function semiSyncChanges(f: Flavour, state: SemiSyncState, wanted: SemiSyncWanted): SemiSyncChanges {
  const n = semiSyncNames(f);
  const out: Statement[] = [];
  if (n.plugins) {
    for (const side of ['master', 'replica'] as const) {
      const [name, lib] = n.plugins[side];
      if (!state.pluginsInstalled[side]) out.push(stmt(`INSTALL PLUGIN ${name} SONAME ?`, lib));
    }
  }
  if (!Number.isInteger(wanted.acks) || wanted.acks < 1)
    throw new Error(`semi-sync acknowledgements must be a positive integer, got ${wanted.acks}`);
  const timeout = wanted.timeoutMs === undefined ? neverTimeoutMs(f) : BigInt(wanted.timeoutMs);
  const set = (variable: string, value: string | bigint | number): Statement =>
    typeof value === 'string' ? stmt(`SET GLOBAL ${variable} = ${value}`) : stmt(`SET GLOBAL ${variable} = ?`, value);
  // The master side's parameters go on every server in semi-sync, replicas too: Orchestrator
  // turns the master side on by itself when it promotes one (DetectSemiSyncEnforcedQuery), and it
  // must then wait at AFTER_SYNC and never time out, before the operator's next pass.
  if (wanted.master !== false || wanted.replica) {
    if (state.waitPoint !== 'AFTER_SYNC') out.push(set(`${n.master}_wait_point`, "'AFTER_SYNC'"));
    if (state.timeoutMs !== timeout) out.push(set(`${n.master}_timeout`, timeout));
    if (n.ackCount && state.acks !== wanted.acks) out.push(set(n.ackCount, wanted.acks));
  }
  if (wanted.master !== 'keep' && state.masterEnabled !== wanted.master) out.push(set(`${n.master}_enabled`, wanted.master ? 'ON' : 'OFF'));
  const replicaChanges = state.replicaEnabled !== wanted.replica;
  if (replicaChanges) out.push(set(`${n.replica}_enabled`, wanted.replica ? 'ON' : 'OFF'));
  return { statements: out, restartIoThread: replicaChanges };
}

/** Restarting the IO thread alone: the SQL thread keeps applying. */
export function ioThreadStatements(f: Flavour): { stop: Statement; start: Statement } {
  const word = usesSourceReplicaSyntax(f) ? 'REPLICA' : 'SLAVE';
  return { stop: stmt(`STOP ${word} IO_THREAD`), start: stmt(`START ${word} IO_THREAD`) };
}

/**
 * Orchestrator's DetectSemiSyncEnforcedQuery in the chart (a test compares the text): 1 on a
 * server with either side of semi-sync on, which the operator sets only on clusters whose
 * semi-sync it manages. Names MariaDB and MySQL before 8.0.26 read; elsewhere it fails, which
 * Orchestrator 3.2.6 only logs.
 */
export const DETECT_SEMI_SYNC_ENFORCED_QUERY = 'SELECT @@global.rpl_semi_sync_master_enabled OR @@global.rpl_semi_sync_slave_enabled';
