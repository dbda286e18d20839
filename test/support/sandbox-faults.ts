// Faults and checks for the end-to-end scenarios on the composed sandbox: SIGKILL of a container's
// program inside its pod, the operator killed at random moments, a client writing through the
// master Service, per-server checksums, and the scan of every log for secret values.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { API_GROUP, LABEL_APP_COMPONENT, LABEL_APP_INSTANCE, PLURALS } from '../../src/api/constants.ts';
import { names } from '../../src/api/names.ts';
import { clusterView, waitForClusterReady } from '../../sandbox/cluster-view.ts';
import { netnsName } from '../../sandbox/network/addresses.ts';
import { podReady, RELEASE, startSandbox, until, type Sandbox } from '../../sandbox/index.ts';
import { applyMariaDBExample, printSandboxState, sqlOnPod, sqlThroughService, type ExampleCluster } from './sandbox.ts';
import { eventually } from './wait.ts';

const execFileP = promisify(execFile);

type Obj<T> = T & { metadata: object };

/**
 * Bounds a wait for a cluster to become Ready on a loaded machine: a bound, not a timing
 * assertion. 3 nodes take 15-40 s; a cluster that will never be Ready (a replica whose
 * replication broke) must fail its file well within the file's few minutes.
 */
export const READY_MS = 180_000;

export async function getPod(sb: Sandbox, namespace: string, name: string): Promise<V1Pod> {
  return sb.client.get<Obj<V1Pod>>({ apiVersion: 'v1', kind: 'Pod', namespace, name });
}

/**
 * SIGKILLs the processes running `program` (the executable's file name: Node names its main
 * thread `MainThread` in /proc/<pid>/comm) in a pod's network namespace: what an OOM kill or a
 * crash does to a container's program. Returns how many it killed.
 */
export async function killInPod(sb: Sandbox, namespace: string, pod: string, program: string): Promise<number> {
  const uid = (await getPod(sb, namespace, pod)).metadata!.uid!;
  const { stdout } = await execFileP('ip', ['netns', 'pids', netnsName(sb.network.addresses, uid)]);
  let killed = 0;
  for (const pid of stdout.split('\n').filter((l) => /^\d+$/.test(l))) {
    let name = '';
    try {
      name = basename(readlinkSync(`/proc/${pid}/exe`));
    } catch {
      continue; // gone meanwhile
    }
    if (name !== program) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    } catch {
      // exited between the listing and the kill
    }
  }
  return killed;
}

export function restartCount(pod: V1Pod, container: string): number {
  return pod.status?.containerStatuses?.find((c) => c.name === container)?.restartCount ?? 0;
}

async function operatorPods(sb: Sandbox): Promise<V1Pod[]> {
  const pods = await sb.client.list<Obj<V1Pod>>(
    { apiVersion: 'v1', kind: 'Pod' },
    { namespace: RELEASE.namespace, labelSelector: `${LABEL_APP_INSTANCE}=${RELEASE.name},${LABEL_APP_COMPONENT}=operator` },
  );
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase === 'Running');
}

/**
 * Operator kills each scenario file requests and asserts. The acceptance asks for at least 10
 * across the scenarios; the files run side by side, each on its own sandbox, so each asserts its
 * share and prints the sum of the shares.
 */
export const OPERATOR_KILLS = { selfHealing: 7, scale: 6 } as const;
const OPERATOR_KILLS_ACCEPTED = 10;
assert.ok(
  OPERATOR_KILLS.selfHealing + OPERATOR_KILLS.scale >= OPERATOR_KILLS_ACCEPTED,
  'the scenario files kill the operator at least 10 times in all',
);

/** The progress line of a file's kills, with the total the scenario files assert together. */
export function operatorKillsLine(kills: number): string {
  const all = OPERATOR_KILLS.selfHealing + OPERATOR_KILLS.scale;
  return `operator killed ${kills} times in this file; self-healing and scale assert ${OPERATOR_KILLS.selfHealing} + ${OPERATOR_KILLS.scale} = ${all} kills (acceptance: ≥ ${OPERATOR_KILLS_ACCEPTED})`;
}

function restarts(pod: V1Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0);
}

/**
 * The operator killed at random moments: `killSoon()` kills it after a random delay of up to
 * `maxDelayMs`, in the background, alternating a SIGKILL of its process (the kubelet restarts the
 * container) and a deletion of its pod (the Deployment makes a new one). `settled()` waits for
 * the kills under way and for the operator to run again after the last one; `stop()` gives up
 * the kills not yet done (a failed test must not leave them polling a stopped sandbox).
 */
export function operatorChaos(sb: Sandbox, opts: { maxDelayMs: number; log: (line: string) => void }) {
  const stopped = new AbortController();
  const pending: Promise<void>[] = [];
  let kills = 0;
  /** The pod of the last kill and its containers' restarts before it. */
  let last: { pod: string; restarts: number } | undefined;
  // One kill at a time: two at once could both pick the pod the first is deleting.
  let previous: Promise<unknown> = Promise.resolve();
  const killOnce = async (): Promise<void> => {
    await sleep(Math.floor(Math.random() * opts.maxDelayMs), undefined, { signal: stopped.signal });
    const mine = previous.then(kill);
    previous = mine.catch(() => undefined);
    await mine;
  };
  const kill = async (): Promise<void> => {
    // After the previous kill the operator may still be coming back (its container restarting, a
    // new pod starting): wait for a process to kill rather than skip the kill.
    await until(
      'a running operator to kill',
      async () => {
        const pod = (await operatorPods(sb))[0];
        const name = pod?.metadata?.name;
        if (!pod || !name) return undefined;
        if (kills % 2 === 0) {
          if ((await killInPod(sb, RELEASE.namespace, name, 'node')) === 0) return undefined;
          opts.log(`operator chaos: SIGKILL of the operator's process in ${name}`);
        } else {
          const r = await sb.kubectl(['-n', RELEASE.namespace, 'delete', 'pod', name, '--wait=false']);
          if (!r.ok) throw new Error(`kubectl delete pod ${name}: ${r.out}`);
          opts.log(`operator chaos: pod ${name} deleted`);
        }
        last = { pod: name, restarts: restarts(pod) };
        kills++;
        return true;
      },
      180_000,
      stopped.signal,
    );
  };
  return {
    killSoon(): void {
      pending.push(
        killOnce().catch((e: unknown) => {
          if (!stopped.signal.aborted) opts.log(`operator chaos: ${(e as Error).message}`);
        }),
      );
    },
    async settled(): Promise<number> {
      await Promise.all(pending);
      // "Converges after restart": the checks that follow must see an operator that came back.
      await until(
        'the operator running and ready again after its last kill',
        async () => {
          const back = (await operatorPods(sb)).find(
            (p) => podReady(p) && (last === undefined || p.metadata?.name !== last.pod || restarts(p) > last.restarts),
          );
          return back ?? undefined;
        },
        READY_MS,
        stopped.signal,
      );
      return kills;
    },
    async stop(): Promise<void> {
      stopped.abort();
      await Promise.all(pending);
    },
  };
}

/**
 * A client writing one row every `everyMs` through the master Service, each on a new connection
 * (as an application reconnecting after an error would), as `as`. Before the fence
 * (docs/fencing.md) root held READ_ONLY ADMIN on MariaDB and wrote to a read-only server, so a root
 * write reaching the old master during a graceful takeover was acknowledged there and never reached
 * the new one (seen in scale.test.ts: an errant transaction on the old master); the init-file now
 * takes it from root at every start. `acked`
 * holds the ids the server acknowledged: none of them may be lost.
 */
export type Writer = ReturnType<typeof startWriter>;

export function startWriter(sb: Sandbox, c: ExampleCluster, table: string, everyMs: number, as: { user: string; password: string }) {
  const acked: number[] = [];
  /** Why writes failed (the driver's message, ids left out) → how often. */
  const errors = new Map<string, number>();
  let failed = 0;
  let next = 1;
  let paused = false;
  let stopped = false;
  let idle: Promise<void> = Promise.resolve();
  const loop = (async () => {
    while (!stopped) {
      if (!paused) {
        const id = next++;
        let tick!: () => void;
        idle = new Promise((r) => {
          tick = r;
        });
        try {
          await sqlThroughService(sb, c, names.masterService(c.name), `INSERT INTO ${table} (id, v) VALUES (${id}, 'w${id}')`, as);
          acked.push(id);
        } catch (e) {
          failed++;
          const why = (e as Error).message.replace(/\d+/g, 'N');
          errors.set(why, (errors.get(why) ?? 0) + 1);
        }
        tick();
      }
      await sleep(everyMs);
    }
  })();
  return {
    acked,
    failures: () => failed,
    /** The failures by reason, for the progress line (diagnostics, never asserted). */
    failureReasons: () => [...errors].map(([why, n]) => `${n}× ${why}`).join('; '),
    /** Stops writing; resolves once the write under way, if any, has its answer. */
    async pause(): Promise<void> {
      paused = true;
      await idle;
    },
    resume(): void {
      paused = false;
    },
    async stop(): Promise<void> {
      stopped = true;
      await loop;
    },
  };
}

export async function tableChecksum(sb: Sandbox, c: ExampleCluster, pod: string, table: string): Promise<string> {
  const rows = await sqlOnPod(sb, c, pod, `CHECKSUM TABLE ${table}`);
  return String(rows[0]?.Checksum);
}

/**
 * Waits until the cluster is Ready with `replicas` pods, each Running with every container ready
 * (the Ready condition alone may still be the one written before a pod went); returns the master.
 */
export async function waitAllReady(sb: Sandbox, c: ExampleCluster, replicas: number, timeoutMs: number): Promise<string> {
  await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs });
  const view = await eventually(
    `${c.name}: ${replicas} pods Running and ready, the cluster Ready`,
    async () => {
      const v = await clusterView(sb.client, c.namespace, c.name);
      const allReady = v.pods.every((p) => p.phase === 'Running' && p.ready.split('/')[0] === p.ready.split('/')[1]);
      return v.ready && v.pods.length === replicas && allReady ? v : undefined;
    },
    timeoutMs,
  );
  return view.master!;
}

/** With the writer paused, every server's checksum of `table` equals the master's. */
export async function checksumsEqual(sb: Sandbox, c: ExampleCluster, table: string, writer: Writer, what: string): Promise<void> {
  await writer.pause();
  try {
    await eventually(
      `${what}: every server's checksum of ${table} equal to the master's`,
      async () => {
        const view = await clusterView(sb.client, c.namespace, c.name);
        const sums = await Promise.all(view.pods.map(async (p) => [p.name, await tableChecksum(sb, c, p.name, table)] as const));
        const want = sums.find(([p]) => p === view.master)?.[1];
        assert.ok(want !== undefined, 'one pod labelled master');
        assert.deepEqual(
          sums.filter(([, sum]) => sum !== want),
          [],
          `master ${view.master} has ${want}`,
        );
        return true;
      },
      120_000,
    );
  } finally {
    writer.resume();
  }
}

/** Every write the writer had acknowledged is on the master. */
export async function ackedWritesOnMaster(sb: Sandbox, c: ExampleCluster, table: string, writer: Writer): Promise<void> {
  const master = (await clusterView(sb.client, c.namespace, c.name)).master!;
  const present = new Set((await sqlOnPod(sb, c, master, `SELECT id FROM ${table}`)).map((r) => Number(r.id)));
  assert.deepEqual(
    writer.acked.filter((id) => !present.has(id)),
    [],
    'every acknowledged write is on the master',
  );
}

/** The values of the cluster's Secret and of its operated Secret: what no log may show. */
export async function clusterSecretValues(sb: Sandbox, c: ExampleCluster): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const name of [c.secretName, names.operatedSecret(c.name)]) {
    const s = await sb.client.get<Obj<V1Secret>>({ apiVersion: 'v1', kind: 'Secret', namespace: c.namespace, name });
    for (const [key, b64] of Object.entries(s.data ?? {})) {
      const value = Buffer.from(b64, 'base64').toString('utf8');
      // Short values (a user name like "root", a port) would match unrelated text; every generated password is long.
      if (/PASSWORD/.test(key) && value.length >= 8) values.set(`${name}/${key}`, value);
    }
  }
  return values;
}

/**
 * Every log of the run, and what the API server shows: `kubectl logs` of every container of every
 * pod in every namespace (init containers and previous runs too); every log file of the sandbox:
 * its own log, each run of each container of the pods that run (`pods/<uid>/logs/`) and of the
 * pods removed meanwhile (`logs/removed-pods/`: the operator pods the chaos deleted, MySQL pods
 * removed by a scale-down or a deletion); every Event, and the project's objects with their
 * status conditions. `found`: `<where>: <secret name>` for each secret value found, and
 * `<where>: unreadable` for a log kubectl could not give; `scanned`: every place read.
 */
export async function secretsInLogs(
  sb: Sandbox,
  workDir: string,
  secrets: ReadonlyMap<string, string>,
): Promise<{ found: string[]; scanned: string[] }> {
  const found: string[] = [];
  const scanned: string[] = [];
  const check = (where: string, text: string) => {
    scanned.push(where);
    for (const [what, value] of secrets) if (text.includes(value)) found.push(`${where}: ${what}`);
  };
  const pods = await sb.client.list<Obj<V1Pod>>({ apiVersion: 'v1', kind: 'Pod' }, {});
  for (const pod of pods.items) {
    const ns = pod.metadata!.namespace!;
    const name = pod.metadata!.name!;
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    for (const s of statuses) {
      for (const previous of s.restartCount > 0 ? [false, true] : [false]) {
        const where = `kubectl logs ${ns}/${name} -c ${s.name}${previous ? ' --previous' : ''}`;
        const r = await sb.kubectl(['-n', ns, 'logs', name, '-c', s.name, ...(previous ? ['--previous'] : [])]);
        // A log that cannot be read would pass the scan unread. A pod deleted meanwhile, or a
        // container restarting right now (the operator after a chaos kill), has no log to read.
        if (!r.ok && !/NotFound|is not on this node|waiting to start/.test(r.out)) found.push(`${where}: unreadable: ${r.out.trim()}`);
        check(where, r.out);
      }
    }
  }
  for (const file of logFiles(workDir)) check(file, readFileSync(file, 'utf8'));
  const kinds = ['events', ...Object.values(PLURALS).map((plural) => `${plural}.${API_GROUP}`)].join(',');
  const objects = await sb.kubectl(['get', kinds, '-A', '-o', 'yaml']);
  if (!objects.ok) found.push(`kubectl get ${kinds}: unreadable: ${objects.out.trim()}`);
  check(`kubectl get ${kinds} -A`, objects.out);
  return { found, scanned };
}

/** Every file under `<workDir>/logs/` (the sandbox's log, removed pods' logs) and `<workDir>/pods/<uid>/logs/`. */
function logFiles(workDir: string): string[] {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).map((e) => join(dir, e)) : []);
  const walk = (dir: string): string[] => list(dir).flatMap((p) => (statSync(p).isDirectory() ? walk(p) : [p]));
  return [...walk(join(workDir, 'logs')), ...list(join(workDir, 'pods')).flatMap((pod) => walk(join(pod, 'logs')))];
}

export interface Scenario {
  sb: Sandbox;
  c: ExampleCluster;
  workDir: string;
  writer: Writer;
  chaos: ReturnType<typeof operatorChaos>;
  /** A progress line with the seconds since the scenario began (diagnostics, never asserted). */
  say(line: string): void;
  /** waitAllReady, said. */
  ready(what: string, replicas: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * What the self-healing and scale scenarios share: a sandbox (quick kubelet restarts, so the
 * operator killed many times does not wait minutes), the example MariaDB cluster with a random
 * root password (a log scan for it must find only leaks), Ready; a table written through the
 * master Service every 200 ms by an application user (not root: see startWriter); the operator's
 * chaos.
 */
export async function startScenario(o: {
  name: string;
  replicas: number;
  table: string;
  chartValues?: readonly string[];
}): Promise<Scenario> {
  const workDir = mkdtempSync(join(tmpdir(), `sandbox-e2e-${o.name}-`));
  const began = Date.now();
  const say = (line: string) => console.log(`[+${((Date.now() - began) / 1000).toFixed(1)}s] ${line}`);
  const sb = await startSandbox({ workDir, backoff: { baseMs: 1000, maxMs: 10_000 }, chartValues: o.chartValues ?? [] });
  let writer: Writer | undefined;
  const chaos = operatorChaos(sb, { maxDelayMs: 20_000, log: say });
  const stop = async () => {
    await chaos.stop();
    await writer?.stop();
    await sb.stop();
  };
  try {
    await sb.ready;
    say('sandbox ready');
    const c = await applyMariaDBExample(sb, o.replicas, 'default', randomBytes(12).toString('hex'));
    const ready = async (what: string, replicas: number) => {
      const master = await waitAllReady(sb, c, replicas, READY_MS);
      say(`${what}: every pod ready, cluster Ready, master ${master}`);
      return master;
    };
    await ready(`${o.replicas} nodes`, o.replicas);
    const schema = o.table.split('.')[0];
    const app = { user: 'e2e_app', password: randomBytes(12).toString('hex') };
    await sqlThroughService(
      sb,
      c,
      names.masterService(c.name),
      [
        `CREATE DATABASE IF NOT EXISTS ${schema}`,
        `CREATE TABLE ${o.table} (id INT PRIMARY KEY, v VARCHAR(20))`,
        `CREATE USER '${app.user}'@'%' IDENTIFIED BY '${app.password}'`,
        `GRANT SELECT, INSERT ON ${schema}.* TO '${app.user}'@'%'`,
      ].join('; '),
    );
    writer = startWriter(sb, c, o.table, 200, app);
    return { sb, c, workDir, writer, chaos, say, ready, stop };
  } catch (e) {
    await printSandboxState(sb, `the ${o.name} scenario did not start: ${e instanceof Error ? e.message : String(e)}`);
    await stop();
    throw e;
  }
}

/** No log of the run holds a value of the cluster's Secret or of its operated Secret. */
export async function assertNoSecretInLogs(s: Scenario): Promise<void> {
  const secrets = await clusterSecretValues(s.sb, s.c);
  assert.ok(secrets.size >= 3, `found the passwords to look for: ${[...secrets.keys()].join(', ')}`);
  const { found, scanned } = await secretsInLogs(s.sb, s.workDir, secrets);
  const count = (re: RegExp) => scanned.filter((w) => re.test(w)).length;
  s.say(
    `scanned for ${secrets.size} passwords: ${count(/^kubectl logs /)} kubectl logs (${count(/ --previous$/)} of previous runs), ` +
      `${count(/\/pods\/[^/]+\/logs\//)} log files of running pods, ${count(/\/removed-pods\//)} of removed pods, the sandbox's log, Events and the project's objects`,
  );
  // The chaos deleted operator pods: their logs must have been read, not lost with the pods.
  assert.ok(count(/\/removed-pods\/mysql-operator_/) > 0, 'the logs of the deleted operator pods were scanned');
  assert.deepEqual(found, []);
}
