// End to end on the composed sandbox (docs/sandbox.md): a 3-node MariaDB cluster heals itself. A
// replica's mysqld killed comes back configured and caught up; a replica deleted with its PVC
// clones again from a healthy replica; a replica written to directly is flagged (errant
// transactions) and, with spec.rebuildErrantReplicas, rebuilt by a fresh clone; the operator killed at random moments meanwhile converges
// with no acknowledged write lost; no log of the run holds a password. Flavour: MariaDB (the local
// mariadbd plays every MySQL image, docs/architecture.md §5). One sandbox for the file: the scenarios run
// one after the other on the same cluster, each ending Ready with equal checksums.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  API_GROUP_VERSION,
  CONDITION_STATUS,
  CONTAINER,
  HEALTHY,
  KIND_MYSQL_CLUSTER,
  LABEL_HEALTHY,
  NODE_CONDITION,
} from '../../src/api/constants.ts';
import { names, podFqdn, podOrdinal } from '../../src/api/names.ts';
import { clusterView } from '../../sandbox/cluster-view.ts';
import { operatorAccount, printSandboxOnFailure, sandboxSkip, sqlOnPod } from '../support/sandbox.ts';
import {
  ackedWritesOnMaster,
  assertNoSecretInLogs,
  checksumsEqual,
  getPod,
  killInPod,
  OPERATOR_KILLS,
  operatorKillsLine,
  restartCount,
  startScenario,
  type Scenario,
} from '../support/sandbox-faults.ts';
import { eventually } from '../support/wait.ts';

const TABLE = 'e2e.heal';
/** Kills of one replica's mysqld in a row: the datadir and position must survive each. */
const MYSQLD_KILLS = 3;

describe('a 3-node MariaDB cluster on the sandbox heals itself', { skip: sandboxSkip() }, () => {
  let s: Scenario;
  const caughtUp = async (what: string) => {
    await s.ready(what, 3);
    await checksumsEqual(s.sb, s.c, TABLE, s.writer, what);
  };
  const aReplica = async (): Promise<string> => {
    const view = await clusterView(s.sb.client, s.c.namespace, s.c.name);
    return view.pods.map((p) => p.name).find((p) => p !== view.master)!;
  };
  /** status.nodes[pod].conditions as type → status. */
  const nodeConditions = async (pod: string): Promise<Map<string, string>> => {
    const cluster = await s.sb.client.get<{
      metadata: object;
      status?: { nodes?: { name: string; conditions?: { type: string; status: string }[] }[] };
    }>({ apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER, namespace: s.c.namespace, name: s.c.name });
    const node = cluster.status?.nodes?.find((n) => n.name === podFqdn(pod, s.c.namespace));
    return new Map((node?.conditions ?? []).map((x) => [x.type, x.status]));
  };
  const pvcUid = async (name: string) =>
    (
      await s.sb.client.get<{ metadata: { uid?: string } }>({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: s.c.namespace,
        name,
      })
    ).metadata.uid;

  before(async () => {
    s = await startScenario({ name: 'heal', replicas: 3, table: TABLE });
  });
  after(() => s?.stop());
  printSandboxOnFailure(() => s?.sb);

  it('a replica whose mysqld is killed restarts, is configured again and catches up, each time', async () => {
    const { sb, c, chaos } = s;
    const replica = await aReplica();
    // Rows on the replica before each kill: a restart that rewound its replica position to its
    // clone's replayed them (the CREATE TABLE emptied the table) until a replayed CREATE USER
    // stopped the SQL thread (docs/e2e-self-healing.md).
    await caughtUp(`${replica} before its mysqld is killed`);
    for (let kill = 1; kill <= MYSQLD_KILLS; kill++) {
      const before = restartCount(await getPod(sb, c.namespace, replica), CONTAINER.mysql);
      chaos.killSoon();
      assert.ok((await killInPod(sb, c.namespace, replica, 'mariadbd')) > 0, `a mariadbd ran in ${replica}`);
      s.say(`mariadbd of ${replica} killed (${kill}/${MYSQLD_KILLS})`);
      await eventually(
        `the kubelet restarting ${replica}'s mysql container`,
        async () => restartCount(await getPod(sb, c.namespace, replica), CONTAINER.mysql) > before,
        120_000,
      );
      await caughtUp(`${replica} after its mysqld was killed (${kill}/${MYSQLD_KILLS})`);
      const [row] = await sqlOnPod(sb, c, replica, 'SELECT @@read_only AS ro');
      assert.equal(Number(row?.ro), 1, `${replica} is read-only`);
      await eventually(
        `${replica}'s node conditions: replicating, not lagged`,
        async () => {
          const conditions = await nodeConditions(replica);
          assert.equal(conditions.get(NODE_CONDITION.replicating), CONDITION_STATUS.true);
          assert.equal(conditions.get(NODE_CONDITION.lagged), CONDITION_STATUS.false);
          return true;
        },
        60_000,
      );
    }
  });

  it('a replica deleted with its PVC clones again from a healthy replica and replicates', async () => {
    const { sb, c, chaos } = s;
    const replica = await aReplica();
    const pvc = names.pvc(c.name, podOrdinal(replica));
    const oldPod = (await getPod(sb, c.namespace, replica)).metadata!.uid;
    const oldPvc = await pvcUid(pvc);
    chaos.killSoon();
    // The PVC first: its protection keeps it while the pod uses it, and it goes with the pod.
    for (const args of [
      ['delete', 'pvc', pvc],
      ['delete', 'pod', replica],
    ]) {
      const r = await sb.kubectl(['-n', c.namespace, ...args, '--wait=false']);
      assert.ok(r.ok, r.out);
    }
    s.say(`${replica} and ${pvc} deleted`);
    chaos.killSoon();
    await eventually(
      `${replica} and ${pvc} made again`,
      async () => (await getPod(sb, c.namespace, replica)).metadata!.uid !== oldPod && (await pvcUid(pvc)) !== oldPvc,
      180_000,
    );
    await caughtUp(`${replica} after it was deleted with its PVC`);
    const init = await sb.kubectl(['-n', c.namespace, 'logs', replica, '-c', CONTAINER.init]);
    assert.match(
      init.out,
      /cloning from the replicas/,
      `the init container of the new ${replica} cloned from a healthy replica:\n${init.out}`,
    );
  });

  it('a replica written to directly is flagged ErrantTransactions and healthy=no, then rebuilt by a fresh clone once spec.rebuildErrantReplicas is set', async () => {
    const { sb, c } = s;
    const replica = await aReplica();
    await caughtUp(`${replica} before it is written to`);
    const pvc = names.pvc(c.name, podOrdinal(replica));
    const oldPod = (await getPod(sb, c.namespace, replica)).metadata!.uid;
    const oldPvc = await pvcUid(pvc);
    // Root is fenced by read_only now (docs/fencing.md): a person lifts the fence with an account
    // that may (the operator's), writes as root, and puts it back: a transaction of the replica's
    // own server_id.
    const admin = await operatorAccount(sb, c);
    await sqlOnPod(sb, c, replica, 'SET GLOBAL read_only = 0', admin);
    try {
      await sqlOnPod(sb, c, replica, `INSERT INTO ${TABLE} (id, v) VALUES (-1, 'errant')`);
    } finally {
      await sqlOnPod(sb, c, replica, 'SET GLOBAL read_only = 1', admin);
    }
    s.say(`${replica} written to directly`);
    await eventually(
      `${replica} ErrantTransactions and healthy=no`,
      async () => {
        assert.equal((await nodeConditions(replica)).get(NODE_CONDITION.errantTransactions), CONDITION_STATUS.true);
        assert.equal((await getPod(sb, c.namespace, replica)).metadata?.labels?.[LABEL_HEALTHY], HEALTHY.no);
        return true;
      },
      60_000,
    );
    const patched = await sb.kubectl([
      '-n',
      c.namespace,
      'patch',
      'mysqlcluster',
      c.name,
      '--type=merge',
      '-p',
      '{"spec":{"rebuildErrantReplicas":true}}',
    ]);
    assert.ok(patched.ok, patched.out);
    await eventually(
      `${replica} and ${pvc} made again`,
      async () => (await getPod(sb, c.namespace, replica)).metadata!.uid !== oldPod && (await pvcUid(pvc).catch(() => oldPvc)) !== oldPvc,
      180_000,
    );
    s.say(`${replica} rebuilt`);
    await caughtUp(`${replica} after its rebuild`);
    assert.deepEqual(await sqlOnPod(sb, c, replica, `SELECT id FROM ${TABLE} WHERE id = -1`), [], 'the errant row is gone');
    await eventually(
      `${replica} compared clean`,
      async () => (await nodeConditions(replica)).get(NODE_CONDITION.errantTransactions) === CONDITION_STATUS.false,
      60_000,
    );
    const events = await sb.kubectl(['-n', c.namespace, 'get', 'events', '--field-selector', 'reason=ErrantReplicaRebuilt', '-o', 'name']);
    assert.ok(events.ok && events.out.trim() !== '', `an ErrantReplicaRebuilt Event: ${events.out}`);
  });

  it('converges after the operator was killed at random moments, with no acknowledged write lost', async () => {
    s.chaos.killSoon();
    s.chaos.killSoon();
    const kills = await s.chaos.settled();
    s.say(operatorKillsLine(kills));
    assert.ok(kills >= OPERATOR_KILLS.selfHealing, `the operator was killed ${kills} times`);
    await s.writer.stop();
    s.say(`writer: ${s.writer.acked.length} rows acknowledged, ${s.writer.failures()} writes failed (${s.writer.failureReasons()})`);
    await caughtUp('after the operator kills');
    await ackedWritesOnMaster(s.sb, s.c, TABLE, s.writer);
  });

  it('no log of the run holds a password (cluster Secret, operated Secret)', async () => {
    await assertNoSecretInLogs(s);
  });
});
