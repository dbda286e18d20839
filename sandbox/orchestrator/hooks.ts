// Hook processes as Orchestrator 3.2.6 runs them (fixtures/orchestrator/hooks/README.md): one at a
// time in list order, through `sh`, with `{placeholder}`s substituted in the command text and the
// ORC_* variables added to the stand-in's own environment. A placeholder whose value is unknown
// (no successor yet) stays literal, as recorded.
import { spawn } from 'node:child_process';

export interface Key {
  host: string;
  port: number;
}

export const keyText = (k: Key): string => `${k.host}:${k.port}`;

export interface HookContext {
  failureType: string;
  failureDescription: string;
  command: string;
  failed: Key;
  clusterName: string;
  clusterAlias: string;
  /** No DetectClusterDomainQuery: the cluster name in recoveries, empty in graceful takeovers (as recorded). */
  clusterDomain: string;
  replicas: Key[];
  isDowntimed: boolean;
  autoMasterRecovery: boolean;
  orchestratorHost: string;
  recoveryUID: string;
  isSuccessful: boolean;
  successor: { key: Key; alias: string; binlogCoordinates: string | null } | null;
}

/** Placeholder name → value; absent names stay literal in the command. */
export function placeholders(c: HookContext): Map<string, string> {
  const hosts = c.replicas.map(keyText).join(',');
  const auto = String(c.autoMasterRecovery);
  const v = new Map<string, string>([
    ['failureType', c.failureType],
    ['instanceType', 'master'],
    ['isMaster', 'true'],
    ['isCoMaster', 'false'],
    ['failureDescription', c.failureDescription],
    ['command', c.command],
    ['failedHost', c.failed.host],
    ['failedPort', String(c.failed.port)],
    ['failureCluster', c.clusterName],
    ['failureClusterAlias', c.clusterAlias],
    ['failureClusterDomain', c.clusterDomain],
    ['countSlaves', String(c.replicas.length)],
    ['countReplicas', String(c.replicas.length)],
    ['isDowntimed', String(c.isDowntimed)],
    ['autoMasterRecovery', auto],
    ['autoIntermediateMasterRecovery', auto],
    ['orchestratorHost', c.orchestratorHost],
    ['recoveryUID', c.recoveryUID],
    ['isSuccessful', String(c.isSuccessful)],
    ['lostSlaves', ''],
    ['lostReplicas', ''],
    ['countLostReplicas', '0'],
    ['slaveHosts', hosts],
    ['replicaHosts', hosts],
  ]);
  if (c.successor) {
    v.set('successorHost', c.successor.key.host);
    v.set('successorPort', String(c.successor.key.port));
    v.set('successorAlias', c.successor.alias);
    if (c.successor.binlogCoordinates !== null) v.set('successorBinlogCoordinates', c.successor.binlogCoordinates);
  }
  return v;
}

const ENV_NAMES: Record<string, string> = {
  failureType: 'ORC_FAILURE_TYPE',
  instanceType: 'ORC_INSTANCE_TYPE',
  isMaster: 'ORC_IS_MASTER',
  isCoMaster: 'ORC_IS_CO_MASTER',
  failureDescription: 'ORC_FAILURE_DESCRIPTION',
  command: 'ORC_COMMAND',
  failedHost: 'ORC_FAILED_HOST',
  failedPort: 'ORC_FAILED_PORT',
  failureCluster: 'ORC_FAILURE_CLUSTER',
  failureClusterAlias: 'ORC_FAILURE_CLUSTER_ALIAS',
  failureClusterDomain: 'ORC_FAILURE_CLUSTER_DOMAIN',
  countReplicas: 'ORC_COUNT_REPLICAS',
  isDowntimed: 'ORC_IS_DOWNTIMED',
  autoMasterRecovery: 'ORC_AUTO_MASTER_RECOVERY',
  autoIntermediateMasterRecovery: 'ORC_AUTO_INTERMEDIATE_MASTER_RECOVERY',
  orchestratorHost: 'ORC_ORCHESTRATOR_HOST',
  isSuccessful: 'ORC_IS_SUCCESSFUL',
  lostReplicas: 'ORC_LOST_REPLICAS',
  replicaHosts: 'ORC_REPLICA_HOSTS',
  recoveryUID: 'ORC_RECOVERY_UID',
  successorHost: 'ORC_SUCCESSOR_HOST',
  successorPort: 'ORC_SUCCESSOR_PORT',
  successorBinlogCoordinates: 'ORC_SUCCESSOR_BINLOG_COORDINATES',
  successorAlias: 'ORC_SUCCESSOR_ALIAS',
};

export function hookEnv(values: ReadonlyMap<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, envName] of Object.entries(ENV_NAMES)) {
    const v = values.get(name);
    if (v !== undefined) env[envName] = v;
  }
  return env;
}

export function substitute(command: string, values: ReadonlyMap<string, string>): string {
  return command.replace(/\{(\w+)\}/g, (whole, name: string) => values.get(name) ?? whole);
}

export class HookError extends Error {}

/**
 * Runs each command to its end before the next; the first failing one stops the list and throws
 * `(exit status N) <stderr>` (stderr as written, newline included), the text Orchestrator puts into
 * its errors.
 */
export async function runHooks(commands: readonly string[], c: HookContext): Promise<void> {
  const values = placeholders(c);
  const env = { ...process.env, ...hookEnv(values) };
  for (const command of commands) {
    const text = substitute(command, values);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const p = spawn('sh', ['-c', text], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d: Buffer) => {
        err += d.toString('utf8');
      });
      p.on('error', (e) => resolve({ code: 127, stderr: e.message }));
      p.on('close', (status) => resolve({ code: status ?? 1, stderr: err }));
    });
    if (code !== 0) throw new HookError(`(exit status ${code}) ${stderr}`);
  }
}
