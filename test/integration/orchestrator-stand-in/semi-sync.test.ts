// The stand-in with the chart's DetectSemiSyncEnforcedQuery does what Orchestrator 3.2.6 does
// (sandbox/orchestrator/semi-sync.ts, docs/semi-sync.md): the promoted replica gets the master
// side before it is writable, the repointed replica the replica side, so the new master's
// commits wait for an acknowledgement from its first write on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALIAS, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { neverTimeoutMs } from '../../../src/mysql/index.ts';

const MASTER = { master: true, replica: false, acks: 1, timeoutMs: undefined };
const REPLICA = { master: false, replica: true, acks: 1, timeoutMs: undefined };

test('a failover of the stand-in moves semi-sync with the role, as 3.2.6 does', async (t) => {
  const { servers, get } = await startStandInLab(t, 'semisync');
  const [s0, s1, s2] = servers;
  for (const r of [s1, s2]) await (await r.node()).setSemiSync(REPLICA);
  await (await s0.node()).setSemiSync(MASTER);
  await eventually('both replicas acknowledge', async () => (await (await s0.node()).semiSyncState()).clients === 2);
  await s0.kill();
  const host = await eventually(
    'a replica promoted',
    async () => {
      const h = (await get(`/api/master/${ALIAS}`)).body?.Key?.Hostname as string | undefined;
      return h !== undefined && h !== s0.host ? h : undefined;
    },
    60_000,
  );
  const promoted = [s1, s2].find((s) => s.host === host)!;
  const other = [s1, s2].find((s) => s !== promoted)!;
  const p = await (await promoted.node()).semiSyncState();
  assert.deepEqual(
    [p.masterEnabled, p.waitPoint],
    [true, 'AFTER_SYNC'],
    'the master side on before writes, with the parameters the operator had set',
  );
  const o = await (await other.node()).semiSyncState();
  assert.deepEqual([o.masterEnabled, o.replicaEnabled], [false, true]);
  await eventually(
    'the other replica acknowledges the new master',
    async () => (await (await promoted.node()).semiSyncState()).clients === 1,
  );
  await promoted.sql('INSERT INTO app.t VALUES (2)');
  assert.equal(
    (await (await promoted.node()).semiSyncState()).masterActive,
    true,
    'the commit was acknowledged, not passed on asynchronously',
  );
});

test("a server whose semi-sync timeout has the high bit set is never stored again, as 3.2.6 cannot; the operator's longest timeout is", async (t) => {
  const { servers, get } = await startStandInLab(t, 'semisync-timeout');
  const [s0, s1] = servers;
  const valid = async (s: typeof s0) => (await get(`/api/instance/${s.host}/${s.port}`)).body.IsLastCheckValid as boolean;
  // The operator's longest timeout (neverTimeoutMs) on the master side of both.
  for (const s of [s0, s1]) await (await s.node()).setSemiSync({ master: 'keep', replica: false, acks: 1, timeoutMs: undefined });
  await s1.sql('SET GLOBAL rpl_semi_sync_master_timeout = 18446744073709551615');
  await eventually(`${s1.host}: its check fails once its timeout is 2^64-1`, async () => (await valid(s1)) === false);
  assert.equal(await valid(s0), true, 'a timeout of 2^63-1 is stored');
  await s1.sql(`SET GLOBAL rpl_semi_sync_master_timeout = ${neverTimeoutMs((await s1.node()).flavour)}`);
  await eventually(`${s1.host}: checked again with the operator's timeout`, async () => (await valid(s1)) === true);
});
