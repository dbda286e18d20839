// A cluster for the node controller's integration tests: the test API server (or TEST_KUBECONFIG)
// holds the MysqlCluster, the operated Secret and Pod objects; real MariaDB servers stand in for
// the pods' mysqld (the operator resolves pod names to their loopback addresses); the operator
// runs as a child process (operator-process.ts) so tests can kill it.
//
// Pods name a scheduler that does not exist and no node, so on a real cluster no scheduler binds
// them, no kubelet runs them, and the status this harness writes (as a kubelet would) stays. (A pod
// bound to a node that does not exist is force-deleted by the pod garbage collector after ~40 s.)
// No StatefulSet exists here (only the node controller runs), so nothing else claims their names.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  APP_NAME_VALUE,
  LABEL_APP_MANAGED_BY,
  LABEL_APP_NAME,
  LABEL_CLUSTER,
  MANAGED_BY_VALUE,
  POD_CONDITION_NODE_INITIALIZED,
} from '../../../src/api/constants.ts';
import type { PodCondition, PodObject } from '../../../src/topology/index.ts';
import { flavourFromVersionSpec, renderInitFile, type MysqlNode } from '../../../src/mysql/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { ReconcileLog } from '../../support/reconciles.ts';
import { HARNESS_ROOT_UNFENCED, startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { secretData, TEST_OPERATED_SECRET } from '../../support/secrets.ts';
import { eventually } from '../../support/wait.ts';

export const CLUSTER = 'my-db';
const NODE = process.execPath;
const OPERATOR = fileURLToPath(new URL('./operator-process.ts', import.meta.url));

export function podName(i: number): string {
  return `${CLUSTER}-mysql-${i}`;
}

/** The init-file a pod's mysqld runs at start, from src/mysql's generator (MariaDB flavour). */
export function initFile(opts: {
  firstStart: boolean;
  keepConfigured?: boolean;
  resumeReplication?: boolean;
  backupGtid?: string;
}): string {
  const flavour = flavourFromVersionSpec('mariadb-10.11');
  if (!flavour) throw new Error('unreachable');
  return renderInitFile({
    flavour,
    users: TEST_SYSTEM_USERS,
    statusTableMissing: opts.firstStart,
    backupGtid: opts.backupGtid ?? null,
    restoredFromBucket: false,
    // The tests set up data as root, as the harness does (test/support/mariadb.ts).
    extraSql: HARNESS_ROOT_UNFENCED,
    keepConfigured: opts.keepConfigured,
    resumeReplication: opts.resumeReplication,
  });
}

export interface Operator {
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  output(): string;
  /** The node controller's finished reconciles, as the process reports them. */
  reconciles: ReconcileLog;
  stop(): Promise<void>;
}

export interface NodeCluster {
  kube: KubeEnv;
  client: KubeClient;
  ns: string;
  servers: MariaDBServer[];
  createCluster(replicas: number): Promise<void>;
  createOperatedSecret(over?: Record<string, string>): Promise<void>;
  setOperatedSecret(values: Record<string, string>): Promise<void>;
  /** Creates the Pod object with status Running and the mysql container started now. */
  createPod(i: number): Promise<void>;
  /** Records a (re)start of pod i's mysql container, as the kubelet would. */
  markStarted(i: number): Promise<void>;
  setMasterInStatus(i: number): Promise<void>;
  condition(i: number): Promise<PodCondition | undefined>;
  waitCondition(i: number, status: 'True' | 'False', messageMatch?: RegExp): Promise<PodCondition>;
  /** src/mysql node as root on server i (closed at cleanup). */
  root(i: number): Promise<MysqlNode>;
  /** `killAfterSteps`: the operator SIGKILLs itself after that many steps (on `killPod` only, if given). */
  startOperator(opts?: OperatorOptions): Operator;
  /**
   * The usual start: the MysqlCluster with one replica per server (status naming `masterInStatus`
   * as master, if given), the operated Secret (`secret` overriding its values), a Pod per server,
   * then the operator, stopped after the test.
   */
  bootstrap(opts?: { secret?: Record<string, string>; masterInStatus?: number; operator?: OperatorOptions }): Promise<Operator>;
}

export interface OperatorOptions {
  killAfterSteps?: number;
  killPod?: string;
}

export async function nodeCluster(t: TestContext, servers: number): Promise<NodeCluster> {
  const kube = await kubeEnv(t);
  const client = new KubeClient(kube.kubeConfig);
  const ns = kube.namespace;
  const dir = mkdtempSync(join(tmpdir(), 'node-it-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kube.kubeConfig.exportConfig());
  const operators = new Set<ChildProcess>();
  t.after(async () => {
    for (const p of operators) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    client.close();
  });

  const started = await Promise.all(
    Array.from({ length: servers }, (_, i) =>
      startMariaDB({
        name: podName(i),
        serverId: 100 + i,
        reportHost: `${podName(i)}.mysql.${ns}`,
        initFile: initFile({ firstStart: true }),
        // As the anchor's my.cnf: replication starts only when someone says so.
        extraConfig: ['skip-slave-start=1'],
        t,
      }),
    ),
  );
  // Only the first start drops the status table (a new datadir); later starts keep it.
  for (const s of started) if (s.initFilePath) writeFileSync(s.initFilePath, initFile({ firstStart: false }));

  const podRef = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: podName(i) });
  const restarts = new Map<number, number>();

  const nc: NodeCluster = {
    kube,
    client,
    ns,
    servers: started,
    async createCluster(replicas) {
      await client.create({
        apiVersion: 'mysql.presslabs.org/v1alpha1',
        kind: 'MysqlCluster',
        metadata: { name: CLUSTER, namespace: ns },
        spec: { replicas, secretName: `${CLUSTER}-secret`, mysqlVersion: 'mariadb-10.11' },
      } as never);
    },
    async createOperatedSecret(over = {}) {
      await client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${CLUSTER}-mysql-operated`, namespace: ns },
        data: secretData({ ...TEST_OPERATED_SECRET, ...over }),
      } as never);
    },
    async setOperatedSecret(values) {
      await client.patch(
        { apiVersion: 'v1', kind: 'Secret', namespace: ns, name: `${CLUSTER}-mysql-operated` },
        { data: secretData(values) },
      );
    },
    async createPod(i) {
      await client.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: podName(i),
          namespace: ns,
          labels: { [LABEL_CLUSTER]: CLUSTER, [LABEL_APP_NAME]: APP_NAME_VALUE, [LABEL_APP_MANAGED_BY]: MANAGED_BY_VALUE },
        },
        spec: {
          schedulerName: 'no-scheduler-runs-this',
          hostname: podName(i),
          subdomain: 'mysql',
          containers: [{ name: 'mysql', image: 'mariadb:10.11' }],
        },
      } as never);
      await nc.markStarted(i);
    },
    async markStarted(i) {
      const n = restarts.get(i);
      restarts.set(i, n === undefined ? 0 : n + 1);
      const s = started[i];
      if (!s) throw new Error(`no server ${i}`);
      await client.patchStatus(podRef(i), {
        status: {
          phase: 'Running',
          podIP: s.host,
          containerStatuses: [
            {
              name: 'mysql',
              image: 'mariadb:10.11',
              imageID: '',
              ready: false,
              started: true,
              restartCount: restarts.get(i),
              state: { running: { startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } },
            },
          ],
        },
      });
    },
    async setMasterInStatus(i) {
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      await client.patchStatus(
        { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: ns, name: CLUSTER },
        {
          status: {
            nodes: started.map((_, j) => ({
              name: `${podName(j)}.mysql.${ns}`,
              conditions: [{ type: 'Master', status: j === i ? 'True' : 'False', lastTransitionTime: now }],
            })),
          },
        },
      );
    },
    async condition(i) {
      const pod = await client.get<PodObject>(podRef(i));
      return pod.status?.conditions?.find((c) => c.type === POD_CONDITION_NODE_INITIALIZED);
    },
    waitCondition(i, status, messageMatch) {
      return eventually(
        `pod ${podName(i)} NodeInitialized=${status}${messageMatch ? ` ${messageMatch}` : ''}`,
        async () => {
          const last = await nc.condition(i);
          if (last?.status === status && (messageMatch === undefined || messageMatch.test(last.message ?? ''))) return last;
          // Thrown, not returned: the timeout message shows the last condition seen.
          throw new Error(`last: ${JSON.stringify(last)}`);
        },
        60_000,
      );
    },
    async root(i) {
      const s = started[i];
      if (!s) throw new Error(`no server ${i}`);
      return s.node();
    },
    startOperator(opts = {}) {
      const endpoints = Object.fromEntries(started.map((s, i) => [podName(i), `${s.host}:${s.port}`]));
      const child = spawn(NODE, [OPERATOR], {
        env: {
          PATH: process.env.PATH ?? '',
          KUBECONFIG: kubeconfigPath,
          WATCH_NAMESPACE: ns,
          NODE_TEST_ENDPOINTS: JSON.stringify(endpoints),
          ...(opts.killAfterSteps ? { NODE_TEST_KILL_AFTER: String(opts.killAfterSteps) } : {}),
          ...(opts.killPod ? { NODE_TEST_KILL_POD: opts.killPod } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      operators.add(child);
      let out = '';
      let partial = '';
      const reconciles = new ReconcileLog();
      child.stdout?.on('data', (d: Buffer) => {
        const text = d.toString('utf8');
        out += text;
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) reconciles.addLine(line);
      });
      child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => {
          operators.delete(child);
          resolve(code);
        }),
      );
      return {
        exited,
        output: () => out,
        reconciles,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          await exited;
        },
      };
    },
    async bootstrap(opts = {}) {
      await nc.createCluster(started.length);
      if (opts.masterInStatus !== undefined) await nc.setMasterInStatus(opts.masterInStatus);
      await nc.createOperatedSecret(opts.secret);
      // The orchestrator controller's part, which these tests leave out: a master read-only since
      // its start is made writable, and only then does the node controller mark it configured.
      const m = started[opts.masterInStatus ?? 0];
      if (m?.running()) await m.sql('SET GLOBAL read_only = 0');
      for (let i = 0; i < started.length; i++) await nc.createPod(i);
      const op = nc.startOperator(opts.operator);
      t.after(() => op.stop());
      return op;
    },
  };
  return nc;
}

/** Rows and checksum of a table, for comparing master and replica. */
export async function tableDigest(s: MariaDBServer, table: string): Promise<string> {
  const count = await s.sql(`SELECT COUNT(*) AS n FROM ${table}`);
  const sum = await s.sql(`CHECKSUM TABLE ${table}`);
  return `${String(count[0]?.n)}:${String(sum[0]?.Checksum)}`;
}

/** Waits until the replica has applied everything the master has (same row count and checksum). */
export async function waitSameData(master: MariaDBServer, replica: MariaDBServer, table: string): Promise<void> {
  await eventually(
    `${replica.name} to have the rows of ${master.name} in ${table}`,
    async () => {
      const m = await tableDigest(master, table);
      const r = await tableDigest(replica, table).catch(() => 'missing');
      // Thrown, not returned: the timeout message shows the last digests.
      if (m !== r) throw new Error(`master ${m}, replica ${r}`);
      return true;
    },
    60_000,
  );
}

/**
 * A replica's mysqld SIGKILLed, `whileDown` run on the master meanwhile, then started again (its
 * init-file runs, as at every start: read-only, `configured` reset; skip-slave-start keeps
 * replication stopped) and the kubelet's restart recorded; waits for the operator to configure it
 * again.
 */
export async function killAndReconfigure(c: NodeCluster, replica: number, whileDown: string): Promise<void> {
  const r = c.servers[replica]!;
  await r.kill();
  await c.servers[0]!.sql(whileDown);
  await r.start();
  if (await (await c.root(replica)).isConfigured()) throw new Error(`${r.name} is configured at once after its restart`);
  await c.markStarted(replica);
  await eventually(
    `${r.name} to be configured again after its restart`,
    async () => (await (await c.root(replica)).isConfigured()) === true,
    60_000,
  );
}
