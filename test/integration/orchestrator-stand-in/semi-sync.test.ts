// The stand-in with the chart's DetectSemiSyncEnforcedQuery does what Orchestrator 3.2.6 does
// (sandbox/orchestrator/semi-sync.ts, docs/semi-sync.md): the promoted replica gets the master
// side before it is writable, the repointed replica the replica side, so the new master's
// commits wait for an acknowledgement from its first write on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALIAS, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

const MASTER = { master: true, replica: false, acks: 1, timeoutMs: undefined };
const REPLICA = { master: false, replica: true, acks: 1, timeoutMs: undefined };

test('a failover of the stand-in moves semi-sync with the role, as 3.2.6 does', async (t) => {
  const { servers, get } = await startStandInLab(t, 'semisync');
  const [s0, s1, s2] = servers;
  for (const r of [s1, s2]) await (await r.node()).setSemiSync(REPLICA);
  await (await s0.node()).setSemiSync(MASTER);
  await eventually('both replicas acknowledge', async () => (await (await s0.node()).semiSyncState()).clients === 2);
  await s0.kill();
  const host = await eventually('a replica promoted', async () => {
    const h = (await get(`/api/master/${ALIAS}`)).body?.Key?.Hostname as string | undefined;
    return h !== undefined && h !== s0.host ? h : undefined;
  }, 60_000);
  const promoted = [s1, s2].find((s) => s.host === host)!;
  const other = [s1, s2].find((s) => s !== promoted)!;
  const p = await (await promoted.node()).semiSyncState();
  assert.deepEqual([p.masterEnabled, p.waitPoint], [true, 'AFTER_SYNC'], 'the master side on before writes, with the parameters the operator had set');
  const o = await (await other.node()).semiSyncState();
  assert.deepEqual([o.masterEnabled, o.replicaEnabled], [false, true]);
  await eventually('the other replica acknowledges the new master', async () => (await (await promoted.node()).semiSyncState()).clients === 1);
  await promoted.sql('INSERT INTO app.t VALUES (2)');
  assert.equal((await (await promoted.node()).semiSyncState()).masterActive, true, 'the commit was acknowledged, not passed on asynchronously');
});
