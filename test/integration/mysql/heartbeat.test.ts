// The heartbeat loop (src/sidecar/heartbeat.ts) against real servers. Flavour live: MariaDB 10.11.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHeartbeat, type HeartbeatTick } from '../../../src/sidecar/heartbeat.ts';
import { startMariaDB, startReplicationPair, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const U = TEST_SYSTEM_USERS;

function startLoop(server: MariaDBServer, t: { after(fn: () => unknown): void }, intervalMs = 200) {
  const ac = new AbortController();
  const ticks: HeartbeatTick[] = [];
  const done = runHeartbeat({
    connection: server.paramsFor(U.heartbeat.user, U.heartbeat.password),
    intervalMs,
    maxBackoffMs: 500,
    signal: ac.signal,
    onTick: (tick) => ticks.push(tick),
  });
  const stop = async (): Promise<void> => {
    ac.abort();
    await done;
  };
  t.after(stop);
  return { ticks, stop, done };
}

async function heartbeatRows(s: MariaDBServer): Promise<Record<string, unknown>[]> {
  return s.sql('SELECT ts, server_id, file, position FROM sys_operator.heartbeat').catch(() => []);
}

test('MariaDB 10.11 live: heartbeat rows appear on the writable master, replicate, and lag is >= 0 and grows when replication stops', async (t) => {
  const { master, replica } = await startReplicationPair({ t });
  const loop = startLoop(master, t);
  await eventually('a heartbeat row on the master', async () => (await heartbeatRows(master)).length === 1);
  const row = (await heartbeatRows(master))[0] ?? {};
  assert.equal(Number(row.server_id), master.serverId, 'the server id is read from the server');
  assert.match(String(row.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/, 'pt-heartbeat timestamp format');
  assert.match(String(row.file), /^mysql-bin\.\d+$/);
  assert.ok(Number(row.position) > 0);

  // What pt-heartbeat's other readers run on the table: mysqld_exporter --collect.heartbeat and
  // an Orchestrator ReplicationLagQuery in the anchor's style. Both must parse our ts.
  const readers = await master.sql(
    'SELECT UNIX_TIMESTAMP(ts) AS exporter_ts, UNIX_TIMESTAMP(UTC_TIMESTAMP(6)) AS now_ts, ' +
      'TIMESTAMPDIFF(SECOND, ts, UTC_TIMESTAMP()) AS drift FROM sys_operator.heartbeat',
  );
  assert.ok(Number(readers[0]?.exporter_ts) > 0, 'UNIX_TIMESTAMP(ts) parses');
  assert.ok(Math.abs(Number(readers[0]?.now_ts) - Number(readers[0]?.exporter_ts)) < 60);
  assert.ok(readers[0]?.drift !== null && Number(readers[0]?.drift) >= 0, 'TIMESTAMPDIFF parses ts');

  await eventually('the heartbeat row on the replica', async () => (await heartbeatRows(replica)).length === 1);
  const r = await replica.node(replica.paramsFor(U.operator.user, U.operator.password));
  const lag = await r.heartbeatLag();
  assert.ok(lag !== null && lag >= 0, `lag ${lag}`);

  await r.stopReplication();
  const atStop = (await r.heartbeatLag()) ?? 0;
  await eventually('the lag to grow past the value at stop + 1 s', async () => ((await r.heartbeatLag()) ?? 0) > atStop + 1);
  await r.startReplication();
  await eventually('the lag to shrink once replication runs again', async () => ((await r.heartbeatLag()) ?? 99) < 1);
  await loop.stop();
  assert.ok(loop.ticks.some((x) => x.outcome === 'written'));
});

test('MariaDB 10.11 live: heartbeat skips while the server is read-only and writes once it is writable', async (t) => {
  const s = await startMariaDB({ name: 'hb-ro', systemUsers: true, t });
  const loop = startLoop(s, t, 100);
  await eventually('three skipped ticks', async () => loop.ticks.filter((x) => x.outcome === 'skipped-read-only').length >= 3);
  assert.equal(
    loop.ticks.some((x) => x.outcome === 'written'),
    false,
  );
  assert.deepEqual(await heartbeatRows(s), [], 'nothing written while read-only');
  const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
  await op.setReadOnly(false);
  await eventually('a heartbeat row after the server became writable', async () => (await heartbeatRows(s)).length === 1);
});

test('MariaDB 10.11 live: heartbeat survives a server restart and stops on its signal', async (t) => {
  const s = await startMariaDB({ name: 'hb-restart', systemUsers: true, t });
  // The init-file sets read_only at every start; a master is made writable again by the operator.
  const makeWritable = async (): Promise<void> => {
    const op = await s.node(s.paramsFor(U.operator.user, U.operator.password));
    await op.setReadOnly(false);
    await op.close();
  };
  await makeWritable();
  const loop = startLoop(s, t, 100);
  await eventually('a first write', async () => loop.ticks.some((x) => x.outcome === 'written'));
  await s.kill();
  await eventually('an unreachable tick', async () => loop.ticks.some((x) => x.outcome === 'error' && x.kind === 'unreachable'));
  await s.start();
  await makeWritable();
  const before = loop.ticks.length;
  await eventually('writes after the restart', async () => loop.ticks.slice(before).some((x) => x.outcome === 'written'));
  for (const tick of loop.ticks) {
    if (tick.outcome === 'error') assert.doesNotMatch(tick.message, new RegExp(U.heartbeat.password));
  }
  // stop() resolves once runHeartbeat has returned, so its loop, the only caller of onTick, is
  // over; what is left to see is that it let go of the server.
  await loop.stop();
  const n = loop.ticks.length;
  await eventually('the heartbeat connection to close', async () => {
    const rows = await s.sql(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = '${U.heartbeat.user}'`);
    return Number(rows[0]?.n) === 0;
  });
  assert.equal(loop.ticks.length, n, 'no tick after the signal');
});
