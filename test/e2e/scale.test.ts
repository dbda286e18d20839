// End to end on the composed sandbox (docs/sandbox.md): a MariaDB cluster scaled 3 → 5 → 2 with
// a client writing through the master Service and the operator killed at random moments. New pods
// clone and replicate; before the scale-down the master is moved to the highest ordinal, so the
// StatefulSet's first removal is the master's pod: its preStop hands the master over
// (docs/switchover.md) and the master ends on a pod that stays; removed pods leave status.nodes
// and Orchestrator (the forget grace shortened through the chart's extraArgs); no acknowledged
// write is lost; no log holds a password. Flavour: MariaDB. One sandbox for the file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_GROUP_VERSION, CONTAINER, KIND_MYSQL_CLUSTER } from '../../src/api/constants.ts';
import { names, podFqdn } from '../../src/api/names.ts';
import { clusterView } from '../../sandbox/cluster-view.ts';
import { RELEASE, startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { applyMariaDBExample, sandboxSkip, sqlThroughService, type ExampleCluster } from '../support/sandbox.ts';
import {
  ackedWritesOnMaster, checksumsEqual, clusterSecretValues, operatorChaos, secretsInLogs, startWriter, waitAllReady, type Writer,
} from '../support/sandbox-faults.ts';
import { eventually } from '../support/wait.ts';

const TABLE = 'e2e.scale';
const READY_MS = 400_000;

describe('a MariaDB cluster on the sandbox scaled 3 → 5 → 2', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-scale-'));
  const started = Date.now();
  const say = (line: string) => console.log(`[+${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
  let sb: Sandbox;
  let c: ExampleCluster;
  let writer: Writer;
  let chaos: ReturnType<typeof operatorChaos>;

  const ready = async (what: string, replicas: number) => {
    const master = await waitAllReady(sb, c, replicas, READY_MS);
    say(`${what}: every pod ready, cluster Ready, master ${master}`);
  };
  const scale = async (replicas: number) => {
    const r = await sb.kubectl(['-n', c.namespace, 'scale', 'mysqlcluster', c.name, `--replicas=${replicas}`]);
    assert.ok(r.ok, r.out);
    say(`scaled to ${replicas}`);
  };
  /** Orchestrator's HTTP API at its Service's ClusterIP, as the operator reaches it. */
  const orchestrator = async (path: string): Promise<unknown> => {
    const svc = await sb.client.get<{ spec: { clusterIP: string } } & { metadata: object }>({ apiVersion: 'v1', kind: 'Service', namespace: RELEASE.namespace, name: RELEASE.name });
    const res = await fetch(`http://${svc.spec.clusterIP}/api/${path}`, { signal: AbortSignal.timeout(30_000) });
    const body = await res.json();
    if (!res.ok) throw new Error(`Orchestrator ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  before(async () => {
    sb = await startSandbox({
      workDir,
      backoff: { baseMs: 1000, maxMs: 10_000 },
      // The chart's default (2m) would make the forget scenario wait minutes.
      chartValues: ['extraArgs[0]=--orchestrator-forget-grace=10s'],
    });
    await sb.ready;
    say('sandbox ready');
    c = await applyMariaDBExample(sb, 3, 'default', randomBytes(12).toString('hex'));
    await ready('3 nodes', 3);
    await sqlThroughService(sb, c, names.masterService(c.name), `CREATE DATABASE IF NOT EXISTS e2e; CREATE TABLE ${TABLE} (id INT PRIMARY KEY, v VARCHAR(20))`);
    writer = startWriter(sb, c, TABLE, 200);
    chaos = operatorChaos(sb, { maxDelayMs: 20_000, log: say });
  });
  after(async () => {
    await writer?.stop();
    await sb?.stop();
  });

  it('scaled to 5, the new pods clone from a healthy server and replicate', async () => {
    chaos.killSoon();
    await scale(5);
    chaos.killSoon();
    chaos.killSoon();
    await ready('5 nodes', 5);
    await checksumsEqual(sb, c, TABLE, writer, '5 nodes');
    for (const ordinal of [3, 4]) {
      const pod = names.pod(c.name, ordinal);
      const init = await sb.kubectl(['-n', c.namespace, 'logs', pod, '-c', CONTAINER.init]);
      assert.match(init.out, /cloning from the (replicas|master)/, `${pod} cloned:\n${init.out}`);
    }
  });

  it('scaled to 2 while the master is the highest ordinal, the master moves to a pod that stays', async () => {
    const highest = names.pod(c.name, 4);
    const alias = names.orchestratorAlias(c.name, c.namespace);
    if ((await clusterView(sb.client, c.namespace, c.name)).master !== highest) {
      await orchestrator(`graceful-master-takeover/${alias}/${podFqdn(highest, c.namespace)}/3306`);
      await eventually(`${highest} labelled master`, async () => (await clusterView(sb.client, c.namespace, c.name)).master === highest, 120_000);
    }
    say(`master is ${highest}`);
    chaos.killSoon();
    await scale(2);
    chaos.killSoon();
    chaos.killSoon();
    await ready('2 nodes', 2);
    const view = await clusterView(sb.client, c.namespace, c.name);
    assert.deepEqual(view.pods.map((p) => p.name), [names.pod(c.name, 0), names.pod(c.name, 1)]);
    assert.ok(view.master === names.pod(c.name, 0) || view.master === names.pod(c.name, 1), `master ${view.master} is a pod that stays`);
    await checksumsEqual(sb, c, TABLE, writer, '2 nodes');
  });

  it('removed pods leave status.nodes and Orchestrator', async () => {
    const kept = [0, 1].map((i) => podFqdn(names.pod(c.name, i), c.namespace)).sort();
    await eventually('status.nodes names only the pods that stay', async () => {
      const cluster = await sb.client.get<{ status?: { nodes?: { name: string }[] } } & { metadata: object }>(
        { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER, namespace: c.namespace, name: c.name },
      );
      assert.deepEqual((cluster.status?.nodes ?? []).map((n) => n.name).sort(), kept);
      return true;
    }, 120_000);
    await eventually('Orchestrator knows only the pods that stay (forgotten after the grace)', async () => {
      const instances = await orchestrator(`cluster/alias/${names.orchestratorAlias(c.name, c.namespace)}`) as { Key: { Hostname: string } }[];
      assert.deepEqual(instances.map((i) => i.Key.Hostname).sort(), kept);
      return true;
    }, 180_000);
  });

  it('converges after the operator was killed at random moments, with no acknowledged write lost', async () => {
    const kills = await chaos.settled();
    say(`operator killed ${kills} times`);
    assert.ok(kills >= 6, `the operator was killed ${kills} times`);
    await writer.stop();
    say(`writer: ${writer.acked.length} rows acknowledged, ${writer.failures()} writes failed`);
    await ready('after the operator kills', 2);
    await checksumsEqual(sb, c, TABLE, writer, 'after the operator kills');
    await ackedWritesOnMaster(sb, c, TABLE, writer);
  });

  it('no log of the run holds a password (cluster Secret, operated Secret)', async () => {
    const secrets = await clusterSecretValues(sb, c);
    assert.ok(secrets.size >= 3, `found the passwords to look for: ${[...secrets.keys()].join(', ')}`);
    assert.deepEqual(await secretsInLogs(sb, workDir, secrets), []);
  });
});
