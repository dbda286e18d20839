// connectToMaster against real servers (flavour: MariaDB 10.11, started with the operator's
// system users by src/mysql's init-file): Pod objects as the cache holds them, the operated
// Secret's data, and a resolver mapping pod names to the servers' loopback addresses.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { podFqdn } from '../../../src/api/names.ts';
import type { MysqlNode } from '../../../src/mysql/index.ts';
import { connectToMaster, type ClusterView, type MasterConnection, type PodObject } from '../../../src/topology/index.ts';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { secretData, TEST_OPERATED_SECRET } from '../../support/secrets.ts';
import { eventually } from '../../support/wait.ts';

const NS = 'prod';
const CLUSTER = 'my-db';
const podName = (i: number): string => `${CLUSTER}-mysql-${i}`;

interface Cluster {
  servers: MariaDBServer[];
  root(i: number): Promise<MysqlNode>;
  /** connectToMaster over every server's pod, with `secret` overriding the operated Secret's values. */
  connect(over?: { cluster?: Partial<ClusterView>; secret?: Record<string, string> }): Promise<MasterConnection>;
  /** Sessions of the operator user on server i. */
  operatorSessions(i: number): Promise<number>;
}

async function cluster(t: TestContext, n: number): Promise<Cluster> {
  const servers = await Promise.all(Array.from({ length: n }, (_, i) => startMariaDB({ name: podName(i), systemUsers: true, t })));
  const pods: PodObject[] = servers.map((_, i) => ({
    metadata: { name: podName(i), namespace: NS },
    status: { phase: 'Running', containerStatuses: [{ name: 'mysql', state: { running: { startedAt: '2026-01-01T10:00:00Z' } } }] },
  }));
  const byPod = new Map(servers.map((s, i) => [podName(i), s]));
  const c: Cluster = {
    servers,
    root: (i) => servers[i]!.node(),
    async connect(over = {}) {
      const result = await connectToMaster({
        cluster: { name: CLUSTER, namespace: NS, failoverInProgress: false, failoverMessage: '', orchestrator: undefined, ...over.cluster },
        pods,
        operatedSecretData: secretData({ ...TEST_OPERATED_SECRET, ...over.secret }),
        resolve: (p) => {
          const s = byPod.get(p.name);
          if (!s) throw new Error(`no server for ${p.name}`);
          return { host: s.host, port: s.port };
        },
      });
      if (result.kind === 'connected') t.after(() => result.node.close());
      return result;
    },
    async operatorSessions(i) {
      const rows = await servers[i]!.sql('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ?', [
        TEST_SYSTEM_USERS.operator.user,
      ]);
      return Number(rows[0]?.n);
    },
  };
  return c;
}

/** As the node controller leaves them: the master writable, the replicas replicating from it; all configured. */
async function replicatingFrom(c: Cluster, master: number): Promise<void> {
  const m = await c.root(master);
  await m.setReadOnly(false);
  await m.markConfigured();
  for (let i = 0; i < c.servers.length; i++) {
    if (i === master) continue;
    const r = await c.root(i);
    await r.pointAt({ host: c.servers[master]!.host, port: c.servers[master]!.port }, TEST_SYSTEM_USERS.replication);
    await r.startReplication();
    await r.markConfigured();
    await eventually(`${podName(i)} replicating`, async () => (await r.replicationStatus())?.ioRunning === true);
  }
}

function described(r: MasterConnection): string {
  return r.kind === 'connected' ? `${r.master.pod} by ${r.by}` : `${r.reason}: ${r.message}`;
}

async function noOperatorSessions(c: Cluster, except?: number): Promise<void> {
  for (let i = 0; i < c.servers.length; i++) {
    if (i === except) continue;
    await eventually(`no operator session left on ${podName(i)}`, async () => (await c.operatorSessions(i)) === 0);
  }
}

test('the writable master of a replicating cluster is connected to; every other connection is closed', async (t) => {
  const c = await cluster(t, 3);
  await replicatingFrom(c, 1);

  const r = await c.connect();
  assert.equal(described(r), `${podName(1)} by writable`);
  assert.ok(r.kind === 'connected');
  assert.equal(r.master.fqdn, podFqdn(podName(1), NS));
  assert.equal(r.server.readOnly, false);
  assert.equal(r.server.configured, true);
  assert.equal(r.server.gtidExecuted, await (await c.root(1)).gtidExecuted());
  // The connection is the master's, logged in as the operator, and it is the caller's now.
  assert.equal(r.node.host, c.servers[1]!.host);
  assert.equal(await r.node.isReadOnly(), false);
  await noOperatorSessions(c, 1);
  assert.equal(await c.operatorSessions(1), 1);
  await r.node.close();
  await noOperatorSessions(c);
});

test('a master that came back read-only is found as the source its replicas share, and says it is read-only', async (t) => {
  const c = await cluster(t, 3);
  await replicatingFrom(c, 0);
  await (await c.root(0)).setReadOnly(true);

  const r = await c.connect();
  assert.equal(described(r), `${podName(0)} by replicaSource`);
  assert.equal(r.kind === 'connected' && r.server.readOnly, true);
});

test("Orchestrator's view is followed, and refused when the master it names is a replica", async (t) => {
  const c = await cluster(t, 2);
  await replicatingFrom(c, 0);

  const followed = await c.connect({ cluster: { orchestrator: { masters: [podFqdn(podName(0), NS)] } } });
  assert.equal(described(followed), `${podName(0)} by orchestrator`);
  if (followed.kind === 'connected') await followed.node.close();

  const stale = await c.connect({ cluster: { orchestrator: { masters: [podFqdn(podName(1), NS)] } } });
  assert.equal(stale.kind === 'none' && stale.reason, 'MasterViewStale');
  assert.match(stale.kind === 'none' ? stale.message : '', new RegExp(`${podName(1)} is itself a replica`));
  await noOperatorSessions(c);
});

test('two writable configured servers are a conflict: no connection, none left open', async (t) => {
  const c = await cluster(t, 2);
  for (const i of [0, 1]) {
    await (await c.root(i)).setReadOnly(false);
    await (await c.root(i)).markConfigured();
  }

  const r = await c.connect();
  assert.equal(r.kind === 'none' && r.reason, 'MasterConflict');
  assert.match(described(r), new RegExp(`${podName(0)}, ${podName(1)}`));
  await noOperatorSessions(c);
});

test('a master that is down is unreachable, named with the error, while its replicas still point at it', async (t) => {
  const c = await cluster(t, 2);
  await replicatingFrom(c, 0);
  await c.servers[0]!.stop();

  const r = await c.connect();
  assert.equal(r.kind === 'none' && r.reason, 'MasterUnreachable');
  assert.match(described(r), new RegExp(`the master ${podName(0)} \\(replicaSource\\) is not reachable: .*ECONNREFUSED`));
  await noOperatorSessions(c, 0);
});

test('a wrong operator password is reported by the master as access denied, without the password', async (t) => {
  const c = await cluster(t, 2);
  await replicatingFrom(c, 0);
  const wrong = 'not-the-Operator-Password-7';

  const r = await c.connect({ secret: { OPERATOR_PASSWORD: wrong } });
  assert.equal(r.kind === 'none' && r.reason, 'MasterUnreachable');
  assert.match(described(r), /Access denied for user 'sys_operator'/);
  assert.ok(!described(r).includes(wrong));
});

test('an incomplete operated Secret and a failover in progress are reasons given before any connection', async (t) => {
  const c = await cluster(t, 1);
  await replicatingFrom(c, 0);

  const incomplete = await c.connect({ secret: { REPLICATION_PASSWORD: '' } });
  assert.equal(
    described(incomplete),
    `OperatedSecretIncomplete: key REPLICATION_PASSWORD of Secret ${CLUSTER}-mysql-operated is missing or empty`,
  );
  const failover = await c.connect({ cluster: { failoverInProgress: true, failoverMessage: 'DeadMaster' } });
  assert.equal(described(failover), `FailoverInProgress: a failover of ${CLUSTER} is in progress: DeadMaster`);
  assert.equal(await c.operatorSessions(0), 0);
});
