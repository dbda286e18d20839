// The stand-in keeps a recovery's active period as Orchestrator 3.2.6 did in the recording of
// test/fixtures/orchestrator/README.md ("second set"): a recovery that ended stays IsActive, the
// master it promoted is not failed over while it is (the attempt is listed in
// /api/blocked-recoveries), and an ack lifts the block at once. The period is long (300 s, the
// chart's) so that nothing but the ack can end it during the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALIAS, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

interface RecoveryJson {
  Id: number;
  IsActive: boolean;
  IsSuccessful: boolean;
  RecoveryEndTimestamp: string;
  Acknowledged: boolean;
  SuccessorKey: { Hostname: string } | null;
  AnalysisEntry: { AnalyzedInstanceKey: { Hostname: string } };
}

test('a recovery stays active after it ended, blocks failing over the master it promoted, and an ack lifts the block', async (t) => {
  const { servers, standIn, get } = await startStandInLab(t, 'period', { recoveryPeriodBlockSeconds: 300 });
  const [s0, s1, s2] = servers;
  const recoveries = async (): Promise<RecoveryJson[]> => (await get(`/api/audit-recovery/alias/${ALIAS}`)).body as RecoveryJson[];

  await s0.kill();
  const [first] = await eventually('the first recovery ended', async () => {
    const list = await recoveries();
    return list[0]?.RecoveryEndTimestamp ? list : undefined;
  });
  assert.ok(first);
  assert.deepEqual([first.IsSuccessful, first.IsActive, first.Acknowledged], [true, true, false], 'ended, still in its active period');
  const promoted = servers.find((s) => s.host === first.SuccessorKey?.Hostname);
  assert.ok(promoted && promoted !== s0, `promoted ${first.SuccessorKey?.Hostname}`);
  const last = [s1, s2].find((s) => s !== promoted)!;
  await eventually(
    'the other replica replicates from the promoted master',
    async () => (await get(`/api/instance/${last.host}/${last.port}`)).body.MasterKey.Hostname === promoted.host,
  );

  await promoted.kill();
  const [blocked] = await eventually("the promoted master's DeadMaster blocked", async () => {
    const rows = (await get('/api/blocked-recoveries')).body as Array<{
      FailedInstanceKey: { Hostname: string };
      BlockingRecoveryId: number;
      Analysis: string;
    }>;
    return rows.length > 0 ? rows : undefined;
  });
  assert.deepEqual(
    [blocked?.FailedInstanceKey.Hostname, blocked?.BlockingRecoveryId, blocked?.Analysis],
    [promoted.host, first.Id, 'DeadMaster'],
  );
  const round = standIn.pollRounds;
  await eventually('three more poll rounds', () => standIn.pollRounds >= round + 3);
  assert.equal((await recoveries()).length, 1, 'no second recovery while the first is active');

  const ack = (await get(`/api/ack-recovery/cluster/${ALIAS}?comment=test`)).body;
  assert.equal(ack.Code, 'OK');
  const after = await eventually('the blocked recovery ran once acknowledged', async () => {
    const list = await recoveries();
    return list.length === 2 && list[0]?.RecoveryEndTimestamp ? list : undefined;
  });
  assert.deepEqual(
    after.map((r) => [r.AnalysisEntry.AnalyzedInstanceKey.Hostname, r.IsSuccessful]),
    [
      [promoted.host, true],
      [s0.host, true],
    ],
  );
  assert.deepEqual([after[1]?.IsActive, after[1]?.Acknowledged], [false, true]);
  assert.equal(after[0]?.IsActive, true);
  assert.equal(after[0]?.SuccessorKey?.Hostname, last.host);
  assert.deepEqual((await get('/api/blocked-recoveries')).body, [], 'the block is gone with the ack');
});
