// End to end on the composed sandbox (docs/sandbox.md): a MariaDB cluster scaled 3 → 5 → 2 with
// a client writing through the master Service and the operator killed at random moments. New pods
// clone and replicate; before the scale-down the master is moved to the highest ordinal, which the
// scale-down removes: the operator holds the StatefulSet and hands the master to a pod that stays
// first (docs/switchover.md, "Scale-down"), so it moves once; removed pods leave status.nodes
// and Orchestrator (the forget grace shortened through the chart's extraArgs); no acknowledged
// write is lost; no log holds a password. Flavour: MariaDB. One sandbox for the file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_GROUP_VERSION, CONTAINER, KIND_MYSQL_CLUSTER } from '../../src/api/constants.ts';
import { names, podFqdn } from '../../src/api/names.ts';
import { clusterView } from '../../sandbox/cluster-view.ts';
import { printSandboxOnFailure, sandboxOrchestrator, sandboxSkip, sqlOnPod } from '../support/sandbox.ts';
import {
  ackedWritesOnMaster,
  assertNoSecretInLogs,
  checksumsEqual,
  OPERATOR_KILLS,
  operatorKillsLine,
  startScenario,
  type Scenario,
} from '../support/sandbox-faults.ts';
import { eventually } from '../support/wait.ts';

const TABLE = 'e2e.scale';

describe('a MariaDB cluster on the sandbox scaled 3 → 5 → 2', { skip: sandboxSkip() }, () => {
  let s: Scenario;
  const scale = async (replicas: number) => {
    const r = await s.sb.kubectl(['-n', s.c.namespace, 'scale', 'mysqlcluster', s.c.name, `--replicas=${replicas}`]);
    assert.ok(r.ok, r.out);
    s.say(`scaled to ${replicas}`);
  };
  const master = async () => (await clusterView(s.sb.client, s.c.namespace, s.c.name)).master;
  /** Orchestrator's HTTP API at its Service's ClusterIP, as the operator reaches it. */
  const orchestrator = async (path: string): Promise<unknown> => {
    const orc = await sandboxOrchestrator(s.sb);
    const res = await fetch(`${orc.baseUrl}/${path}`, {
      headers: { authorization: orc.authorization },
      signal: AbortSignal.timeout(30_000),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`Orchestrator ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  before(async () => {
    // The chart's forget grace (2m) would make the last scenario wait minutes.
    s = await startScenario({ name: 'scale', replicas: 3, table: TABLE, chartValues: ['extraArgs[0]=--orchestrator-forget-grace=10s'] });
  });
  after(() => s?.stop());
  printSandboxOnFailure(() => s?.sb);

  it('scaled to 5, the new pods clone from a healthy server and replicate', async () => {
    s.chaos.killSoon();
    await scale(5);
    s.chaos.killSoon();
    s.chaos.killSoon();
    await s.ready('5 nodes', 5);
    await checksumsEqual(s.sb, s.c, TABLE, s.writer, '5 nodes');
    for (const ordinal of [3, 4]) {
      const pod = names.pod(s.c.name, ordinal);
      const init = await s.sb.kubectl(['-n', s.c.namespace, 'logs', pod, '-c', CONTAINER.init]);
      assert.match(init.out, /cloning from the (replicas|master)/, `${pod} cloned:\n${init.out}`);
    }
  });

  it('scaled to 2 while the master is the highest ordinal, the master moves to a pod that stays', async () => {
    const { c } = s;
    const highest = names.pod(c.name, 4);
    if ((await master()) !== highest) {
      // Orchestrator refuses while its own view of the new pod lags the cluster's Ready ("not a
      // direct replica"): asked again until it takes it.
      await eventually(
        `Orchestrator to take over to ${highest}`,
        async () => {
          await orchestrator(
            `graceful-master-takeover/${names.orchestratorAlias(c.name, c.namespace)}/${podFqdn(highest, c.namespace)}/3306`,
          );
          return true;
        },
        60_000,
      );
      await eventually(`${highest} labelled master`, async () => (await master()) === highest, 120_000);
    }
    s.say(`master is ${highest}`);
    // Diagnostics: each pod the master label visits on the way down, and the writes refused meanwhile.
    const visited = [highest];
    const failedBefore = s.writer.failures();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const m = await master().catch(() => undefined);
        if (m && m !== visited.at(-1)) visited.push(m);
        await sleep(250);
      }
    })();
    let now: string | undefined;
    try {
      s.chaos.killSoon();
      await scale(2);
      s.chaos.killSoon();
      s.chaos.killSoon();
      now = await s.ready('2 nodes', 2);
    } catch (e) {
      // What each pod that stays says of its replication: the first thing to look at when it fails.
      for (const pod of [0, 1].map((i) => names.pod(c.name, i))) {
        const rows = await sqlOnPod(
          s.sb,
          c,
          pod,
          'SHOW ALL SLAVES STATUS; SELECT @@gtid_binlog_pos AS binlog, @@gtid_slave_pos AS slave, @@read_only AS ro',
        ).catch((err: Error) => err.message);
        s.say(`${pod}: ${JSON.stringify(rows)}`);
      }
      throw e;
    } finally {
      // Also when the wait fails: a loop left polling keeps the test process from exiting.
      watching = false;
      await watch;
    }
    s.say(`master on the way down: ${visited.join(' → ')}; ${s.writer.failures() - failedBefore} writes refused meanwhile`);
    assert.ok([0, 1].map((i) => names.pod(c.name, i)).includes(now), `master ${now} is a pod that stays`);
    // Handed over once, by the operator, before the StatefulSet shrank (docs/switchover.md,
    // "Scale-down"): not to a pod the same scale-down removes next.
    assert.deepEqual(visited, [highest, now], 'the master moved once, straight to a pod that stays');
    await checksumsEqual(s.sb, c, TABLE, s.writer, '2 nodes');
  });

  it('removed pods leave status.nodes and Orchestrator', async () => {
    const { c } = s;
    const kept = [0, 1].map((i) => podFqdn(names.pod(c.name, i), c.namespace)).sort();
    await eventually(
      'status.nodes names only the pods that stay',
      async () => {
        const cluster = await s.sb.client.get<{ status?: { nodes?: { name: string }[] } } & { metadata: object }>({
          apiVersion: API_GROUP_VERSION,
          kind: KIND_MYSQL_CLUSTER,
          namespace: c.namespace,
          name: c.name,
        });
        assert.deepEqual((cluster.status?.nodes ?? []).map((n) => n.name).sort(), kept);
        return true;
      },
      120_000,
    );
    await eventually(
      'Orchestrator knows only the pods that stay (forgotten after the grace)',
      async () => {
        const instances = (await orchestrator(`cluster/alias/${names.orchestratorAlias(c.name, c.namespace)}`)) as {
          Key: { Hostname: string };
        }[];
        assert.deepEqual(instances.map((i) => i.Key.Hostname).sort(), kept);
        return true;
      },
      180_000,
    );
  });

  it('converges after the operator was killed at random moments, with no acknowledged write lost', async () => {
    const kills = await s.chaos.settled();
    s.say(operatorKillsLine(kills));
    assert.ok(kills >= OPERATOR_KILLS.scale, `the operator was killed ${kills} times`);
    await s.writer.stop();
    s.say(`writer: ${s.writer.acked.length} rows acknowledged, ${s.writer.failures()} writes failed (${s.writer.failureReasons()})`);
    await s.ready('after the operator kills', 2);
    await checksumsEqual(s.sb, s.c, TABLE, s.writer, 'after the operator kills');
    await ackedWritesOnMaster(s.sb, s.c, TABLE, s.writer);
  });

  it('no log of the run holds a password (cluster Secret, operated Secret)', () => assertNoSecretInLogs(s));
});
