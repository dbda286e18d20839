// Automatic failovers of the Orchestrator stand-in on real MariaDB servers after a SIGKILL of the
// master: the hook calls match the recordings of Orchestrator 3.2.6, for a plain failover and for
// one it refuses because the candidate's SQL thread has not applied what it fetched. The stand-in
// runs the chart's ReplicationCredentialsQuery, answered by the rows of each server's init-file. The two
// scenarios use their own servers and run side by side.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import { type MariaDBServer, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { ALIAS, normalize, recorded, startStandInLab, type HookCall, type StandInLab } from '../../support/orchestrator-stand-in.ts';
import { recordedCandidate, recordedStatements, recoverySteps, type LoggedStatement } from '../../support/recovery-statements.ts';
import { eventually } from '../../support/wait.ts';

const readOnly = async (s: { sql(q: string): Promise<Record<string, unknown>[]> }): Promise<unknown> =>
  (await s.sql('SELECT @@read_only AS ro'))[0]?.ro;

/** failover-unsuccessful_setup.txt: both replicas fetch the master's last writes without applying them. */
async function fetchedNotApplied({ servers: [s0, s1, s2], get }: StandInLab): Promise<void> {
  for (const r of [s1, s2]) await r.sql('STOP SLAVE SQL_THREAD');
  await s0.sql('INSERT INTO app.t VALUES (2), (3), (4)');
  const masterPos = String((await s0.sql('SELECT @@gtid_binlog_pos AS p'))[0]?.p);
  for (const r of [s1, s2]) {
    await eventually(`${r.name} fetched ${masterPos}`, async () => (await r.sql('SHOW SLAVE STATUS'))[0]?.Gtid_IO_Pos === masterPos);
    await eventually(
      `the stand-in saw ${r.name}'s SQL thread stopped`,
      async () => (await get(`/api/instance/${r.host}/${r.port}`)).body.Slave_SQL_Running === false,
    );
  }
}

/** What the stand-in's topology user sent to the servers while their general log was on. */
async function standInStatements(servers: readonly MariaDBServer[]): Promise<LoggedStatement[]> {
  const out: LoggedStatement[] = [];
  for (const s of servers) {
    const rows = await s.sql(
      "SET time_zone = '+00:00'; SELECT DATE_FORMAT(event_time, '%Y-%m-%dT%H:%i:%s.%fZ') AS at, CONVERT(argument USING utf8mb4) AS text " +
        "FROM mysql.general_log WHERE user_host LIKE ? AND command_type IN ('Query', 'Execute')",
      [`${TEST_SYSTEM_USERS.orchestrator.user}[%`],
    );
    for (const r of rows) out.push({ at: String(r.at), server: s.host, text: String(r.text) });
  }
  return out;
}

describe('automatic failover of the stand-in', { concurrency: true }, () => {
  it('promotes a replica, repoints the other and makes the recorded hook calls', async (t) => {
    const { servers, get, hookLines } = await startStandInLab(t, 'auto');
    const [s0, s1, s2] = servers;
    await s0.kill();
    await eventually('PostFailover hook', () => hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
    const lines = hookLines();
    for (const run of ['failover-auto', 'failover-auto-run2']) assert.deepEqual(normalize(lines), normalize(recorded(run)), run);
    // 3.2.6 calls the master dead one recovery tick (1 s) after it found it unreachable: the tick in
    // between reads its replicas again (recorded 0.98 s and 0.98 s apart). Not in the same tick.
    const detectionGap = (calls: HookCall[]): number => {
      const [unreachable, dead] = calls.filter((c) => c.hook === 'OnFailureDetectionProcesses').map((c) => c.at ?? NaN);
      return dead! - unreachable!;
    };
    for (const run of ['failover-auto', 'failover-auto-run2']) assert.ok(detectionGap(recorded(run)) > 900, run);
    assert.ok(detectionGap(lines) >= 500, `DeadMaster ${detectionGap(lines)} ms after UnreachableMaster: one tick later`);

    const successorHost = lines.at(-1)?.args.get('successorHost');
    const promoted = [s1, s2].find((s) => s.host === successorHost);
    const other = [s1, s2].find((s) => s !== promoted);
    assert.ok(promoted && other, `successor ${successorHost} is a replica`);
    assert.equal(await readOnly(promoted), 0);
    assert.equal(await readOnly(other), 1);
    // Repointed with what the chart's ReplicationCredentialsQuery read from its init-file's rows.
    assert.equal((await (await other.node()).replicationStatus())?.masterUser, TEST_SYSTEM_USERS.replication.user);
    await promoted.sql('INSERT INTO app.t VALUES (2)');
    await eventually(
      "the other replica applies the new master's writes",
      async () => (await other.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.n === 2,
    );
    await eventually('master switched', async () => (await get(`/api/master/${ALIAS}`)).body.Key.Hostname === promoted.host);
    const old = (await get(`/api/instance/${s0.host}/${s0.port}`)).body;
    assert.deepEqual([old.IsDowntimed, old.DowntimeReason], [true, 'lost-in-recovery']);
  });

  it('refuses a candidate whose SQL thread is behind and runs PostUnsuccessfulFailover, as recorded', async (t) => {
    const lab = await startStandInLab(t, 'unsuccessful');
    const { servers, standIn, get, hookLines } = lab;
    const [s0, s1, s2] = servers;
    await fetchedNotApplied(lab);
    await s0.kill();
    await eventually('PostUnsuccessfulFailover hook', () => hookLines().some((c) => c.hook === 'PostUnsuccessfulFailoverProcesses'));
    // The dead master is downtimed, so no attempt follows once RecoveryPeriodBlockSeconds (1 s) ended.
    const round = standIn.pollRounds;
    await eventually('three more poll rounds', () => standIn.pollRounds >= round + 3);
    assert.deepEqual(normalize(hookLines()), normalize(recorded('failover-unsuccessful')));
    for (const r of [s1, s2]) assert.equal(await readOnly(r), 1);
    const audit = (await get('/api/audit-recovery')).body as Array<{ IsSuccessful: boolean }>;
    assert.deepEqual(
      audit.map((r) => r.IsSuccessful),
      [false],
    );
  });

  it('stops both replicas before it chooses, then moves the sibling beside the promotion, in the order 3.2.6 does (recovery-mariadb a1-a3)', async (t) => {
    const { servers, hookLines } = await startStandInLab(t, 'order');
    const [s0, s1, s2] = servers;
    for (const r of [s1, s2]) await r.sql("SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 1");
    await s0.kill();
    await eventually('PostFailover hook', () => hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
    const candidate = String(hookLines().at(-1)?.args.get('successorHost'));
    const sibling = [s1, s2].find((s) => s.host !== candidate);
    assert.ok(sibling, `successor ${candidate} is a replica`);
    await eventually(
      'the sibling replicates from the candidate',
      async () => (await sibling.sql('SHOW SLAVE STATUS'))[0]?.Master_Host === candidate,
    );
    const steps = recoverySteps(await standInStatements([s1, s2]), candidate);
    for (const run of ['a1', 'a2', 'a3']) assert.deepEqual(steps, recoverySteps(recordedStatements(run), recordedCandidate(run)), run);
  });

  it("with DelayMasterPromotionIfSQLThreadNotUpToDate (the chart's), a candidate left with relay log by the stop fails the recovery, as 3.2.6 does (recovery-mariadb b2, b5)", async (t) => {
    const lab = await startStandInLab(t, 'delayed', {
      config: {
        FailMasterPromotionIfSQLThreadNotUpToDate: false,
        DelayMasterPromotionIfSQLThreadNotUpToDate: true,
        ReasonableReplicationLagSeconds: 2,
      },
    });
    const { servers, get, hookLines } = lab;
    const [s0, s1, s2] = servers;
    // Each replica's SQL thread waits for a table lock a session of the test holds: three
    // transactions fetched (semi-sync would have acknowledged them), none applied.
    const locks = await Promise.all([s1, s2].map((r) => mysql.createConnection({ host: r.host, port: r.port, user: 'root' })));
    t.after(() => Promise.all(locks.map((c) => c.end().catch(() => undefined))));
    for (const c of locks) await c.query('LOCK TABLES app.t WRITE');
    for (const id of [2, 3, 4]) await s0.sql(`INSERT INTO app.t VALUES (${id})`);
    const masterPos = String((await s0.sql('SELECT @@gtid_binlog_pos AS p'))[0]?.p);
    for (const r of [s1, s2])
      await eventually(`${r.name} fetched ${masterPos}`, async () => (await r.sql('SHOW SLAVE STATUS'))[0]?.Gtid_IO_Pos === masterPos);
    await s0.kill();
    // The recovery's STOP SLAVE waits for the SQL thread, which waits for the lock.
    for (const r of [s1, s2])
      await eventually(`a STOP SLAVE waiting on ${r.name}`, async () =>
        (await r.sql('SHOW PROCESSLIST')).some((p) => /^stop slave$/i.test(String(p.Info ?? ''))),
      );
    for (const c of locks) await c.query('UNLOCK TABLES');
    await eventually('PostUnsuccessfulFailover hook', () => hookLines().some((c) => c.hook === 'PostUnsuccessfulFailoverProcesses'));
    assert.ok(!hookLines().some((c) => c.hook === 'PostMasterFailoverProcesses'), JSON.stringify(hookLines().map((c) => c.hook)));
    // The sibling was moved below the refused candidate all the same; the candidate stays stopped,
    // read-only, with what it fetched in its relay log only.
    let candidate: (typeof servers)[number] | undefined;
    await eventually('the sibling replicates from the candidate', async () => {
      for (const [r, other] of [
        [s1, s2],
        [s2, s1],
      ] as const)
        if ((await r.sql('SHOW SLAVE STATUS'))[0]?.Master_Host === other.host) candidate = other;
      return candidate;
    });
    assert.ok(candidate);
    const st = (await candidate.sql('SHOW SLAVE STATUS'))[0];
    assert.deepEqual([st?.Slave_SQL_Running, st?.Slave_IO_Running, st?.Gtid_IO_Pos], ['No', 'No', masterPos]);
    assert.equal(await readOnly(candidate), 1);
    assert.deepEqual(
      (await candidate.sql('SELECT id FROM app.t ORDER BY id')).map((r) => r.id),
      [1],
    );
    const audit = (await get('/api/audit-recovery')).body as Array<{ IsSuccessful: boolean }>;
    assert.deepEqual(
      audit.map((r) => r.IsSuccessful),
      [false],
    );
    const old = (await get(`/api/instance/${s0.host}/${s0.port}`)).body;
    assert.deepEqual([old.IsDowntimed, old.DowntimeReason], [true, 'lost-in-recovery']);
  });
});
