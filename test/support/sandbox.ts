// Helpers for tests on the composed sandbox (sandbox/index.ts): why a test cannot run here, the
// example cluster at a chosen size, SQL through a Service's ClusterIP, what the sandbox looked like
// when a test failed, and what a stopped sandbox left behind.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach } from 'node:test';
import mysql from 'mysql2/promise';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  API_GROUP_VERSION,
  CONDITION_STATUS,
  KIND_MYSQL_CLUSTER,
  KIND_MYSQL_USER,
  LABEL_HEALTHY,
  LABEL_ROLE,
  OPERATED_SECRET_KEY,
  PROVISION_CONDITION,
} from '../../src/api/constants.ts';
import { names } from '../../src/api/names.ts';
import { orchestratorClient, type OrchestratorClient, type OrchestratorCredentials } from '../../src/orchestrator/client.ts';
import { waitForClusterReady, type ClusterView } from '../../sandbox/cluster-view.ts';
import { forSandbox, readExample, toYaml, type Manifest } from '../../sandbox/examples.ts';
import { netnsPrefix } from '../../sandbox/network/addresses.ts';
import { RELEASE, REPO, run, startSandbox, until, type Sandbox } from '../../sandbox/index.ts';
import { WritingClient } from './writing-client.ts';

/** Why the sandbox cannot run here, or false. */
export function sandboxSkip(): string | false {
  if (process.env.TEST_KUBECONFIG) {
    return "these tests compose a sandbox with its own API server; test/e2e/attach.test.ts attaches one to TEST_KUBECONFIG's cluster";
  }
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, the sandbox bridge, mounts)';
  return false;
}

/**
 * Extra `--set` values for the chart of an e2e sandbox, from E2E_CHART_VALUES (comma-separated),
 * to look closer at one run: `E2E_CHART_VALUES=extraArgs[0]=--log-level=debug`.
 */
export function e2eChartValues(env = process.env.E2E_CHART_VALUES): string[] {
  return env ? env.split(',').filter((v) => v.trim() !== '') : [];
}

export interface ExampleCluster {
  name: string;
  namespace: string;
  secretName: string;
  rootPassword: string;
}

/**
 * Applies examples/<file> as the sandbox runs it (sandbox/examples.ts: its storage Secrets point at
 * the sandbox's S3 server, MySQL runs as MariaDB), after `edit` changed its objects. Returns its
 * cluster, when it has one.
 */
export async function applyExample(
  sb: Sandbox,
  file: string,
  opts: { namespace?: string; edit?: (docs: Manifest[]) => void } = {},
): Promise<ExampleCluster | undefined> {
  const namespace = opts.namespace ?? 'default';
  const { docs, changes } = forSandbox(readExample(REPO, file), sb.s3.env);
  opts.edit?.(docs);
  const applied = await sb.kubectl(['apply', '-n', namespace, '-f', '-'], toYaml(docs));
  if (!applied.ok) throw new Error(`kubectl apply of examples/${file}: ${applied.out}`);
  if (changes.length) console.log(`examples/${file} on the sandbox: ${changes.join('; ')}`);
  const cluster = docs.find((d) => d.kind === KIND_MYSQL_CLUSTER);
  if (!cluster) return undefined;
  const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === cluster.spec.secretName);
  return { name: cluster.metadata.name, namespace, secretName: cluster.spec.secretName, rootPassword: secret?.stringData.ROOT_PASSWORD };
}

/**
 * Applies examples/mysqlcluster-mariadb.yaml with `replicas` nodes; `rootPassword` replaces the
 * example's placeholder (a log scan for it needs a value no other text holds).
 */
export async function applyMariaDBExample(
  sb: Sandbox,
  replicas: number,
  namespace = 'default',
  rootPassword?: string,
): Promise<ExampleCluster> {
  const c = await applyExample(sb, 'mysqlcluster-mariadb.yaml', {
    namespace,
    edit: (docs) => {
      setReplicas(docs, replicas);
      if (rootPassword !== undefined)
        for (const d of docs)
          if (d.kind === 'Secret' && d.stringData?.ROOT_PASSWORD !== undefined) d.stringData.ROOT_PASSWORD = rootPassword;
    },
  });
  return c!;
}

export function setReplicas(docs: Manifest[], replicas: number): void {
  for (const d of docs) if (d.kind === KIND_MYSQL_CLUSTER) d.spec.replicas = replicas;
}

export interface ShopUser {
  /** The MysqlUser object's name. */
  name: string;
  user: string;
  password: string;
  /** The database it may write, created by the MysqlDatabase. */
  database: string;
}

/**
 * Applies examples/mysqldatabase.yaml and examples/mysqluser.yaml pointed at the cluster (an
 * application account: unlike root it cannot write to a read-only server) and waits for the user
 * to be provisioned.
 */
export async function applyShopUser(sb: Sandbox, c: ExampleCluster): Promise<ShopUser> {
  const docs = ['mysqldatabase.yaml', 'mysqluser.yaml'].flatMap((f) => readExample(REPO, f));
  for (const d of docs) if (d.spec?.clusterRef) d.spec.clusterRef.name = c.name;
  const applied = await sb.kubectl(['apply', '-n', c.namespace, '-f', '-'], toYaml(docs));
  if (!applied.ok) throw new Error(`kubectl apply of the user examples: ${applied.out}`);
  const user = docs.find((d) => d.kind === 'MysqlUser')!;
  const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === user.spec.password.name)!;
  const shop: ShopUser = {
    name: user.metadata.name,
    user: user.spec.user,
    password: secret.stringData[user.spec.password.key],
    database: docs.find((d) => d.kind === 'MysqlDatabase')!.spec.database,
  };
  await until(
    `MysqlUser ${shop.name} provisioned`,
    async () => {
      const got = await sb.client.get<{ metadata: object; status?: { conditions?: { type: string; status: string }[] } }>({
        apiVersion: API_GROUP_VERSION,
        kind: KIND_MYSQL_USER,
        namespace: c.namespace,
        name: shop.name,
      });
      return got.status?.conditions?.some((x) => x.type === PROVISION_CONDITION.ready && x.status === CONDITION_STATUS.true)
        ? true
        : undefined;
    },
    120_000,
  );
  return shop;
}

/** A Secret of the sandbox read once: its keys' decoded values ('' for a key it lacks). */
async function secretValues(sb: Sandbox, namespace: string, name: string): Promise<(key: string) => string> {
  const s = await sb.client.get<{ data?: Record<string, string>; metadata: object }>({ apiVersion: 'v1', kind: 'Secret', namespace, name });
  return (k) => Buffer.from(s.data?.[k] ?? '', 'base64').toString('utf8');
}

/**
 * The operator's own account of a cluster, from its operated Secret: on MariaDB the one client
 * account that keeps READ_ONLY ADMIN (docs/fencing.md), so the one that can still write on a
 * read-only replica, as a person with such an account could.
 */
export async function operatorAccount(sb: Sandbox, c: ExampleCluster): Promise<SqlAccount> {
  const get = await secretValues(sb, c.namespace, names.operatedSecret(c.name));
  return { user: get(OPERATED_SECRET_KEY.operatorUser), password: get(OPERATED_SECRET_KEY.operatorPassword) };
}

/** An account to run SQL as; root when none is given. */
export interface SqlAccount {
  user: string;
  password: string;
}

/** Connect-phase errors a client retries: the proxy or the server did not answer in time, or not yet. */
const RETRIED_CONNECT_ERRORS = new Set(['ETIMEDOUT', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH']);
const CONNECT_DEADLINE_MS = 60_000;

/**
 * A connection, retried on connect-phase errors for up to a minute (on a loaded machine the
 * sandbox's proxy may take longer than one connect timeout); an SQL or login error is not retried.
 */
async function connectRetrying(opts: mysql.ConnectionOptions): Promise<mysql.Connection> {
  const deadline = Date.now() + CONNECT_DEADLINE_MS;
  for (;;) {
    try {
      return await mysql.createConnection(opts);
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (!RETRIED_CONNECT_ERRORS.has(code) || Date.now() > deadline) throw e;
      await sleep(250); // a retry's pause, not a barrier
    }
  }
}

async function sqlAt(host: string, c: ExampleCluster, text: string, as?: SqlAccount): Promise<Record<string, unknown>[]> {
  const conn = await connectRetrying({
    host,
    port: 3306,
    user: 'root',
    password: c.rootPassword,
    ...as,
    connectTimeout: 3000,
    multipleStatements: true,
  });
  try {
    const [rows] = await conn.query(text);
    return rows as Record<string, unknown>[];
  } finally {
    await conn.end();
  }
}

/** A Service's ClusterIP (the sandbox's proxy answers there). */
export async function serviceIP(sb: Sandbox, namespace: string, service: string): Promise<string> {
  const svc = await sb.client.get<{ spec: { clusterIP: string } } & { metadata: object }>({
    apiVersion: 'v1',
    kind: 'Service',
    namespace,
    name: service,
  });
  return svc.spec.clusterIP;
}

/**
 * Runs SQL through a Service's ClusterIP (the sandbox's proxy), on a new connection each time, as
 * root or as `as`.
 */
export async function sqlThroughService(
  sb: Sandbox,
  c: ExampleCluster,
  service: string,
  text: string,
  as?: SqlAccount,
): Promise<Record<string, unknown>[]> {
  return sqlAt(await serviceIP(sb, c.namespace, service), c, text, as);
}

/** Runs SQL as root (or `as`) on one pod's server, at its pod IP. */
export async function sqlOnPod(
  sb: Sandbox,
  c: ExampleCluster,
  pod: string,
  text: string,
  as?: SqlAccount,
): Promise<Record<string, unknown>[]> {
  const p = await sb.client.get<{ status?: { podIP?: string } } & { metadata: object }>({
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: c.namespace,
    name: pod,
  });
  const ip = p.status?.podIP;
  if (!ip) throw new Error(`pod ${pod} has no IP yet`);
  return sqlAt(ip, c, text, as);
}

export interface WritingLab {
  sb: Sandbox;
  c: ExampleCluster;
  view: ClusterView;
  shop: ShopUser;
  /** `<shop database>.writes (id INT PRIMARY KEY)`, the table WritingClient fills. */
  table: string;
}

/**
 * A sandbox with the example cluster Ready at `replicas` nodes, the example MysqlUser and
 * MysqlDatabase provisioned and a table for the writing client: the ground of the failover and
 * switchover scenarios. Prints how long the cluster took, and what ran.
 */
export async function startWritingLab(workDir: string, replicas: number, readyTimeoutMs: number): Promise<WritingLab> {
  const sb = await startSandbox({ workDir, chartValues: e2eChartValues() });
  try {
    await sb.ready;
    const c = await applyMariaDBExample(sb, replicas);
    const began = Date.now();
    const view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: readyTimeoutMs });
    console.log(
      `${replicas} nodes Ready ${((Date.now() - began) / 1000).toFixed(1)} s after apply; flavour: MariaDB; Orchestrator: ${await sb.orchestratorRunsAs()}`,
    );
    const shop = await applyShopUser(sb, c);
    const table = `${shop.database}.writes`;
    await sqlThroughService(sb, c, names.masterService(c.name), `CREATE TABLE ${table} (id INT PRIMARY KEY)`);
    return { sb, c, view, shop, table };
  } catch (e) {
    await printSandboxState(sb, `the writing lab did not start: ${e instanceof Error ? e.message : String(e)}`);
    await sb.stop();
    throw e;
  }
}

/**
 * Prints the pods with their role labels, the newest Events and the end of the operator's and
 * Orchestrator's logs, while the sandbox still runs: CI keeps only a run's output, and a stopped
 * sandbox's files are gone. The logs hold no secret (the e2e secret scan checks them).
 */
export async function printSandboxState(sb: Sandbox, why: string, lines = 60): Promise<void> {
  const parts: Array<[string, string[], number?]> = [
    ['pods', ['get', 'pods', '-A', '-o', 'wide', '-L', `${LABEL_ROLE},${LABEL_HEALTHY}`]],
    ['newest Events', ['get', 'events', '-A', '--sort-by=.lastTimestamp'], lines],
    [
      `last ${lines} lines of each operator and Orchestrator container`,
      [
        '-n',
        RELEASE.namespace,
        'logs',
        '-l',
        `app.kubernetes.io/instance=${RELEASE.name}`,
        '--all-containers',
        '--prefix',
        `--tail=${lines}`,
        '--max-log-requests=20',
      ],
    ],
  ];
  const out = [`=== the sandbox when ${why}`];
  for (const [title, args, last] of parts) {
    const r = await sb.kubectl(args).catch((e: unknown) => ({ out: String(e) }));
    out.push(`--- ${title}`, last === undefined ? r.out : r.out.split('\n').slice(-last).join('\n'));
  }
  console.log(out.join('\n'));
}

/** Registers, in a describe of an end-to-end file, the print of printSandboxState after its first failed test. */
export function printSandboxOnFailure(sandbox: () => Sandbox | undefined): void {
  let printed = false;
  afterEach(async (t) => {
    const sb = sandbox();
    // `passed` is Node's (since 21.7), not yet in @types/node's TestContext.
    const failed = 'passed' in t && t.passed === false;
    // E2E_PRINT_SANDBOX=always: after every test, for looking into one that passes slowly.
    const always = process.env.E2E_PRINT_SANDBOX === 'always';
    if (sb === undefined || (!always && (!failed || printed))) return;
    printed = true;
    await printSandboxState(sb, `"${t.name}" ${failed ? 'failed' : 'ended'}`, Number(process.env.E2E_PRINT_LINES ?? 60));
  });
}

/**
 * A writing client through `<c>-mysql-master`, as the example MysqlUser, or as root (`as: 'root'`):
 * root is the account a fence must bind too (on MariaDB it holds every privilege a grant can give).
 */
export async function writerThroughMaster(lab: WritingLab, firstId: number, as: 'app' | 'root' = 'app'): Promise<WritingClient> {
  const host = await serviceIP(lab.sb, lab.c.namespace, names.masterService(lab.c.name));
  const who = as === 'root' ? { user: 'root', password: lab.c.rootPassword } : { user: lab.shop.user, password: lab.shop.password };
  return new WritingClient({ host, ...who, table: lab.table }, firstId);
}

/**
 * Asserts that every pod's server holds each acknowledged id of `table` (ids from `from` on),
 * and, once replication has caught up, the same rows as the master (CHECKSUM TABLE).
 */
export async function assertWritesOnEveryPod(
  sb: Sandbox,
  c: ExampleCluster,
  pods: readonly string[],
  master: string,
  table: string,
  acked: readonly number[],
  from = 0,
): Promise<void> {
  const want = await sqlOnPod(sb, c, master, `CHECKSUM TABLE ${table}`);
  for (const pod of pods) {
    const ids = new Set((await sqlOnPod(sb, c, pod, `SELECT id FROM ${table} WHERE id >= ${from}`)).map((r) => Number(r.id)));
    assert.deepEqual(
      acked.filter((id) => !ids.has(id)),
      [],
      `no acknowledged write missing on ${pod}`,
    );
    await until(
      `${pod}'s ${table} to match the master's checksum`,
      async () => {
        const got = await sqlOnPod(sb, c, pod, `CHECKSUM TABLE ${table}`);
        return got[0]?.Checksum === want[0]?.Checksum ? true : undefined;
      },
      60_000,
    );
  }
}

/**
 * SIGKILLs the mariadbd of a pod's mysql container (the only one in the pod's network namespace
 * once the init containers are done), as a crash would; the kubelet restarts it. Returns the
 * moment of the kill.
 */
export async function killMysqld(sb: Sandbox, namespace: string, pod: string): Promise<number> {
  const { netns, servers } = await mysqldPids(sb, namespace, pod);
  if (servers.length !== 1) throw new Error(`expected one mariadbd in ${pod}'s network namespace ${netns}, found ${servers.length}`);
  process.kill(Number(servers[0]), 'SIGKILL');
  return Date.now();
}

/** The pids of the mariadbd processes in a pod's network namespace (none while it restarts). */
export async function mysqldPids(sb: Sandbox, namespace: string, pod: string): Promise<{ netns: string; servers: string[] }> {
  const p = await sb.client.get<{ metadata: { uid: string } }>({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod });
  const netns = `${netnsPrefix(sb.network.addresses.bridge)}${p.metadata.uid}`;
  const pids = (await run('ip', ['netns', 'pids', netns])).stdout.split('\n').filter((l) => /^\d+$/.test(l));
  const servers = pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'mariadbd';
    } catch {
      return false; // gone meanwhile
    }
  });
  return { netns, servers };
}

/**
 * What a stopped sandbox left: network namespaces and links of its bridge, mounts and processes
 * naming its work dir, the work dir itself. Empty when it removed everything.
 */
export function sandboxLeftovers(workDir: string, bridge: string): string[] {
  const out: string[] = [];
  const netns = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '');
  out.push(...netns.filter((n) => n.startsWith(`${bridge}-`)).map((n) => `network namespace ${n}`));
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(': ')[1]?.split('@')[0] ?? '');
  out.push(...links.filter((l) => l === bridge || l.startsWith(`${bridge}v`)).map((l) => `link ${l}`));
  out.push(
    ...readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .filter((l) => l.includes(workDir))
      .map((l) => `mount ${l}`),
  );
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(workDir)) out.push(`process ${pid}: ${cmdline.slice(0, 200)}`);
  }
  if (existsSync(workDir)) out.push(`work dir ${workDir}`);
  return out;
}

/** The Secret the chart keeps Orchestrator's API credentials in (keys `user`, `password`), for release RELEASE. */
export const ORCHESTRATOR_API_SECRET = `${RELEASE.name}-orc-api`;

/** The chart's Orchestrator API credentials, read from its Secret (the API answers nothing without them). */
export async function orchestratorCredentials(sb: Sandbox): Promise<OrchestratorCredentials> {
  const get = await secretValues(sb, RELEASE.namespace, ORCHESTRATOR_API_SECRET);
  return { user: get('user'), password: get('password') };
}

/** Orchestrator's API at its Service's ClusterIP, as the operator reaches it, with the chart's credentials. */
export async function sandboxOrchestrator(sb: Sandbox): Promise<{ client: OrchestratorClient; baseUrl: string; authorization: string }> {
  const creds = await orchestratorCredentials(sb);
  const baseUrl = `http://${await serviceIP(sb, RELEASE.namespace, RELEASE.name)}/api`;
  return {
    client: orchestratorClient({ baseUrl, credentials: () => creds }),
    baseUrl,
    authorization: `Basic ${Buffer.from(`${creds.user}:${creds.password}`).toString('base64')}`,
  };
}
