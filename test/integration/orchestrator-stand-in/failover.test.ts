// Automatic failovers of the Orchestrator stand-in on real MariaDB servers after a SIGKILL of the
// master: the hook calls match the recordings of Orchestrator 3.2.6, for a plain failover and for
// one it refuses because the candidate's SQL thread has not applied what it fetched. The stand-in
// runs the chart's ReplicationCredentialsQuery, answered by the rows of each server's init-file. The two
// scenarios use their own servers and run side by side.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { ALIAS, normalize, recorded, startStandInLab, type HookCall, type StandInLab } from '../../support/orchestrator-stand-in.ts';
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

  it("with DelayMasterPromotionIfSQLThreadNotUpToDate (the chart's), waits for the candidate's SQL thread and promotes it with every write it fetched", async (t) => {
    const lab = await startStandInLab(t, 'delayed', {
      config: {
        FailMasterPromotionIfSQLThreadNotUpToDate: false,
        DelayMasterPromotionIfSQLThreadNotUpToDate: true,
        ReasonableReplicationLagSeconds: 120,
      },
    });
    const { servers, hookLines } = lab;
    const [s0, s1, s2] = servers;
    await fetchedNotApplied(lab);
    await s0.kill();
    // The recovery began and waits: no promotion, no refusal, while the SQL threads stand still.
    await eventually('PreFailover hook', () => hookLines().some((c) => c.hook === 'PreFailoverProcesses'));
    assert.ok(!hookLines().some((c) => /Post/.test(c.hook)), JSON.stringify(hookLines().map((c) => c.hook)));
    for (const r of [s1, s2]) await r.sql('START SLAVE SQL_THREAD');
    await eventually('PostFailover hook', () => hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
    assert.ok(!hookLines().some((c) => c.hook === 'PostUnsuccessfulFailoverProcesses'));
    const successorHost = hookLines().at(-1)?.args.get('successorHost');
    const promoted = [s1, s2].find((s) => s.host === successorHost);
    assert.ok(promoted, `successor ${successorHost} is a replica`);
    assert.equal(await readOnly(promoted), 0);
    assert.deepEqual(
      (await promoted.sql('SELECT id FROM app.t ORDER BY id')).map((r) => r.id),
      [1, 2, 3, 4],
      'nothing the dead master acknowledged is lost',
    );
  });
});
