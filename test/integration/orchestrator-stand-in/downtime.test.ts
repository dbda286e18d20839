// Downtimes in the Orchestrator stand-in on real MariaDB servers, as Orchestrator 3.2.6 treated
// them in the recordings: a downtimed replica is still promoted when the master dies
// (hooks/failover-stopped-downtimed-replicas), a downtimed dead master is listed but never
// recovered (SkippableDueToDowntime), and the lost-in-recovery downtime a failover puts on the old
// master ends by itself once that server replicates again (hooks/README.md, "Rejoin facts";
// go/inst/downtime_dao.go expireLostInRecoveryDowntime), not while it is back alone. The scenarios
// use their own servers and run side by side.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { normalize, recorded, startStandInLab, type StandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

type Server = StandInLab['servers'][number];
const readOnly = async (s: Server): Promise<unknown> => (await s.sql('SELECT @@read_only AS ro'))[0]?.['ro'];
const instance = async (lab: StandInLab, s: Server): Promise<any> => (await lab.get(`/api/instance/${s.host}/${s.port}`)).body;

/** Kills the master (servers[0]) and waits for the stand-in's PostFailover: the promoted server and the other replica. */
async function failOver(lab: StandInLab): Promise<{ promoted: Server; other: Server }> {
  const [s0, s1, s2] = lab.servers;
  await s0.kill();
  await eventually('PostFailover hook', () => lab.hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
  const successor = lab.hookLines().find((c) => c.hook === 'PostFailoverProcesses')?.args.get('successorHost');
  const promoted = [s1, s2].find((s) => s.host === successor);
  const other = [s1, s2].find((s) => s !== promoted);
  assert.ok(promoted && other, `successor ${successor} is a replica`);
  return { promoted, other };
}

describe('downtimes in the stand-in, as Orchestrator 3.2.6 treated them', { concurrency: true }, () => {
  it('promotes a downtimed replica when the master dies with both replicas stopped and downtimed, and ends only its downtime', async (t) => {
    const lab = await startStandInLab(t, 'dt-replicas');
    const [, s1, s2] = lab.servers;
    for (const r of [s1, s2]) {
      // Stopped with everything applied: a candidate behind would be refused, which is another recording.
      await eventually(`${r.name} applied the master's row`, async () => (await r.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.['n'] === 1);
      await r.sql('STOP SLAVE');
      assert.equal((await lab.get(`/api/begin-downtime/${r.host}/${r.port}/lab/test/5m`)).body.Code, 'OK');
      await eventually(`the stand-in saw ${r.name} stopped`, async () => (await instance(lab, r)).Slave_SQL_Running === false);
    }
    const { promoted, other } = await failOver(lab);
    assert.deepEqual(normalize(lab.hookLines()), normalize(recorded('failover-stopped-downtimed-replicas')));
    assert.equal(await readOnly(promoted), 0);
    // As recorded (_topology.json): the promoted server is no longer downtimed, the other still is,
    // and it replicates from the new master.
    assert.equal((await instance(lab, promoted)).IsDowntimed, false);
    assert.deepEqual([(await instance(lab, other)).IsDowntimed, (await instance(lab, other)).DowntimeOwner], [true, 'lab']);
    await promoted.sql('INSERT INTO app.t VALUES (2)');
    await eventually('the other replica applies the new master\'s writes', async () =>
      (await other.sql('SELECT COUNT(*) AS n FROM app.t'))[0]?.['n'] === 2);
  });

  it('lists a downtimed dead master as SkippableDueToDowntime and neither detects nor recovers it', async (t) => {
    const lab = await startStandInLab(t, 'dt-master');
    const [s0, s1, s2] = lab.servers;
    assert.equal((await lab.get(`/api/begin-downtime/${s0.host}/${s0.port}/lab/test/5m`)).body.Code, 'OK');
    await s0.kill();
    const entry = await eventually('DeadMaster in the analysis', async () =>
      ((await lab.get('/api/replication-analysis')).body.Details as any[]).find((a) => a.Analysis === 'DeadMaster'));
    assert.deepEqual([entry.AnalyzedInstanceKey.Hostname, entry.IsDowntimed, entry.SkippableDueToDowntime], [s0.host, true, true]);
    const round = lab.standIn.pollRounds;
    await eventually('three more poll rounds', () => lab.standIn.pollRounds >= round + 3);
    assert.deepEqual(lab.hookLines().map((c) => c.hook), []);
    assert.deepEqual((await lab.get('/api/audit-recovery')).body, []);
    for (const r of [s1, s2]) assert.equal(await readOnly(r), 1);
  });

  it('ends the old master\'s lost-in-recovery downtime once it replicates from the new master, not while it is back alone', async (t) => {
    const minAgeMs = 1000;
    const lab = await startStandInLab(t, 'dt-expiry', { lostInRecoveryMinAgeMs: minAgeMs });
    const old = lab.servers[0];
    const { promoted } = await failOver(lab);
    await old.start();
    await eventually('the stand-in to see the old master answer again', async () => (await instance(lab, old)).IsLastCheckValid === true);
    // Older than the minimum age and answering, but alone: the new master suggests the same alias,
    // so the old one is not its sole owner, and the downtime stays (old-master-rejoin_1-downtimed).
    const since = Date.now();
    await eventually('the minimum age past', () => Date.now() - since > minAgeMs);
    const round = lab.standIn.pollRounds;
    await eventually('two more poll rounds', () => lab.standIn.pollRounds >= round + 2);
    const alone = await instance(lab, old);
    assert.deepEqual([alone.IsDowntimed, alone.DowntimeReason, alone.DowntimeOwner], [true, 'lost-in-recovery', 'mysql-operator-0']);

    // The rejoin that worked on 3.2.6 (old-master-rejoin_sql.txt).
    const n = await old.node();
    await n.setReadOnly(true);
    await n.pointAt({ host: promoted.host, port: promoted.port }, TEST_SYSTEM_USERS.replication, { start: { kind: 'gtid', mariadbPos: 'current_pos' } });
    await n.startReplication();
    await eventually('the stand-in to end the downtime of the rejoined old master', async () => (await instance(lab, old)).IsDowntimed === false);
  });
});
