// Semi-sync on real MariaDB 10.11 servers through src/mysql (docs/semi-sync.md): the settings,
// a commit that waits while no replica acknowledges and returns once one does, and the role
// switch. The MySQL statements are unit-tested in test/unit/mysql/semi-sync.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DETECT_SEMI_SYNC_ENFORCED_QUERY, neverTimeoutMs } from '../../../src/mysql/index.ts';
import { startReplicationPair } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const MASTER = { master: true, replica: false, acks: 1, timeoutMs: undefined };
const REPLICA = { master: false, replica: true, acks: 1, timeoutMs: undefined };

test('MariaDB 10.11 live: with no acknowledgement a commit waits (no fallback), and returns once the replica acknowledges', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const m = await master.node();
  const r = await replica.node();
  const detect = async (n: typeof m) => (await n.firstRowOf(DETECT_SEMI_SYNC_ENFORCED_QUERY))[0];
  assert.deepEqual([await detect(m), await detect(r)], ['0', '0'], "the chart's DetectSemiSyncEnforcedQuery: not enforced before");
  assert.deepEqual(
    await r.setSemiSync(REPLICA),
    { changed: true, ioThreadRestarted: true },
    'the replica side needs its IO thread restarted',
  );
  assert.deepEqual(await m.setSemiSync(MASTER), { changed: true, ioThreadRestarted: false });
  assert.deepEqual(await m.setSemiSync(MASTER), { changed: false, ioThreadRestarted: false }, 'nothing to do the second time');

  assert.deepEqual([await detect(m), await detect(r)], ['1', '1'], 'enforced on both sides once set');
  const state = await m.semiSyncState();
  assert.equal(state.waitPoint, 'AFTER_SYNC');
  assert.equal(state.timeoutMs, neverTimeoutMs(m.flavour), 'the longest timeout Orchestrator can store (2^63-1), not clipped by MariaDB');
  await eventually('the replica connected as a semi-sync client', async () => (await m.semiSyncState()).clients === 1);
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY)');
  assert.equal((await m.semiSyncState()).masterActive, true);

  await replica.sql('STOP SLAVE IO_THREAD');
  let returned = false;
  const commit = master.sql('INSERT INTO app.t VALUES (1)').then(() => (returned = true));
  const waiting = await eventually('the commit waits for an acknowledgement', async () => {
    const s = await m.semiSyncState();
    return s.waitSessions >= 1 ? s : undefined;
  });
  assert.equal(returned, false, 'the commit has not returned while it waits');
  assert.equal(waiting.masterActive, true, 'still semi-sync: no fallback to async');

  await replica.sql('START SLAVE IO_THREAD');
  await commit;
  assert.equal((await m.semiSyncState()).waitSessions, 0);
  // The acknowledgement means received (relay log), not yet applied.
  const received = (await r.replicationStatus())!.gtidReceived;
  const committed = String((await master.sql('SELECT @@gtid_binlog_pos AS p'))[0]!.p);
  assert.ok(
    committed !== '' && received.includes(committed),
    `the acknowledged commit ${committed} was received by the replica (${received})`,
  );
});

test('MariaDB 10.11 live: a role switch moves the settings (the old master acknowledges, the new one waits)', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const m = await master.node();
  const r = await replica.node();
  await r.setSemiSync(REPLICA);
  await m.setSemiSync(MASTER);
  // Switch: the replica stops and becomes master, the old master replicates from it.
  await r.resetReplication();
  await r.setReadOnly(false);
  await r.setSemiSync(MASTER);
  await m.setReadOnly(true);
  await m.setSemiSync(REPLICA);
  await m.pointAt({ host: replica.host, port: replica.port }, (await import('../../support/mariadb.ts')).TEST_SYSTEM_USERS.replication, {
    start: { kind: 'gtid', mariadbPos: 'current_pos' },
  });
  await m.startReplication();
  const [newMaster, oldMaster] = [await r.semiSyncState(), await m.semiSyncState()];
  assert.equal(newMaster.masterEnabled, true);
  assert.equal(newMaster.replicaEnabled, false);
  assert.equal(oldMaster.masterEnabled, false);
  assert.equal(oldMaster.replicaEnabled, true);
  await eventually('the old master acknowledges the new one', async () => (await r.semiSyncState()).clients === 1);
  await replica.sql('CREATE DATABASE after_switch');
  await eventually('replicated', async () => (await master.sql("SHOW DATABASES LIKE 'after_switch'")).length === 1);
  assert.equal((await r.semiSyncState()).masterActive, true);
});

test('MariaDB 10.11 live: a master cut off with commits waiting for an acknowledgement is still made read-only; the waiting clients get an error, not an acknowledgement', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const m = await master.node();
  await (await replica.node()).setSemiSync(REPLICA);
  await m.setSemiSync(MASTER);
  await eventually('the replica acknowledges', async () => (await m.semiSyncState()).clients === 1);
  await master.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY)');
  // The replicas gone (a partition, a failover elsewhere): the commit waits for ever (no fallback).
  await replica.sql('STOP SLAVE IO_THREAD');
  const commit = master.sql('INSERT INTO app.t VALUES (1)').then(
    () => 'acknowledged',
    (e: Error) => `refused: ${e.message}`,
  );
  await eventually('the commit waits for an acknowledgement', async () => (await m.semiSyncState()).waitSessions >= 1);
  // MariaDB's SET GLOBAL read_only waits for commits in progress: it hung behind this one, and the
  // demoted master stayed writable for every later client (the chaos suite's partition).
  await m.setReadOnly(true);
  assert.equal(await m.isReadOnly(), true);
  const outcome = await commit;
  assert.match(outcome, /^refused: /, 'the waiting client is not told its commit succeeded');
});
