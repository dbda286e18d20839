// The Orchestrator stand-in against three real MariaDB servers: the hook calls it makes in a
// graceful takeover and in a failover whose PreFailover fails first match what Orchestrator 3.2.6
// made in the recordings (test/support/orchestrator-stand-in.ts says what is masked).
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ALIAS, collapseRetries, normalize, recorded, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

test('the stand-in makes the recorded hook calls in a graceful takeover and a failover whose PreFailover fails at first', async (t) => {
  const { servers, get, hookLines, clearHookLog, ctl } = await startStandInLab(t, 'takeover');
  const [s0, s1, s2] = servers;
  const health = await get('/api/health');
  assert.equal(health.body.Code, 'OK');
  assert.equal(health.body.Details.Healthy, true);

  await t.test('graceful takeover', async () => {
    const res = await get(`/api/graceful-master-takeover/${ALIAS}/${s1.host}/${s1.port}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.Message, 'graceful-master-takeover: successor promoted');
    assert.equal((await s1.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 0);
    assert.equal((await s0.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 1);
    assert.deepEqual(normalize(hookLines()), normalize(recorded('graceful-takeover')));
    assert.equal((await get(`/api/master/${ALIAS}`)).body.Key.Hostname, s1.host);
  });

  await t.test('failover after SIGKILL with a PreFailover failing at first', async () => {
    clearHookLog();
    writeFileSync(join(ctl, 'PreFailoverProcesses.exit'), '1');
    await s1.kill();
    await eventually('PreFailover retried', () => hookLines().filter((c) => c.hook === 'PreFailoverProcesses').length >= 2);
    // Aborted attempts change nothing: both survivors stay read-only and no Post* hook ran.
    for (const s of [s0, s2]) assert.equal((await s.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 1);
    assert.ok(hookLines().every((c) => !c.hook.startsWith('Post')));
    rmSync(join(ctl, 'PreFailoverProcesses.exit'));
    await eventually('PostFailover hook', () => hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
    assert.deepEqual(normalize(collapseRetries(hookLines())), normalize(collapseRetries(recorded('prefailover-exit1'))));
    const successor = hookLines().find((c) => c.hook === 'PostFailoverProcesses')?.args.get('successorHost');
    const promoted = servers.find((s) => s.host === successor);
    assert.ok(promoted, `successor ${successor} is one of the servers`);
    assert.equal((await promoted.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 0);
    await eventually('master switched', async () => (await get(`/api/master/${ALIAS}`)).body.Key.Hostname === successor);
    const audit = (await get('/api/audit-recovery')).body as Array<{ IsSuccessful: boolean; SuccessorKey: { Hostname: string } | null }>;
    assert.equal(audit[0]?.IsSuccessful, true);
    assert.equal(audit[0]?.SuccessorKey?.Hostname, successor);
  });
});
