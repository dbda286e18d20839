// A takeover that names no replica, against three real MariaDB servers: the stand-in deduces the
// designated replica as 3.2.6's getGracefulMasterTakeoverDesignatedInstance does
// (docs/orchestrator-stand-in.md), starting the candidate's replication before it waits for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALIAS, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

test('a takeover that names no replica: refused without -auto while the master has two; with -auto the candidate, though stopped, is started and promoted', async (t) => {
  const { servers, get } = await startStandInLab(t, 'deduce');
  const [s0, s1, s2] = servers;
  const plain = await get(`/api/graceful-master-takeover/${ALIAS}`);
  assert.equal(plain.status, 500);
  assert.match(String(plain.body.Message), /target instance not indicated, auto=false, and master .* has 2 replicas/);

  // Both replicas stopped (as a plain takeover leaves its demoted master): the best candidate
  // catches up only if the takeover starts it.
  for (const s of [s1, s2]) await (await s.node()).stopReplication();
  await eventually('the stand-in sees both stopped', async () => {
    const members = (await get(`/api/cluster/alias/${ALIAS}`)).body as Array<{ Key: { Hostname: string }; Slave_IO_Running: boolean }>;
    return members.filter((m) => m.Key.Hostname !== s0.host).every((m) => !m.Slave_IO_Running);
  });
  await s0.sql('INSERT INTO app.t VALUES (2)');
  const auto = await get(`/api/graceful-master-takeover-auto/${ALIAS}`);
  assert.equal(auto.status, 200, JSON.stringify(auto.body));
  const successor = String(auto.body.Details?.SuccessorKey?.Hostname);
  const promoted = servers.find((s) => s.host === successor);
  assert.ok(promoted && promoted !== s0, `successor ${successor} is a former replica`);
  assert.deepEqual(
    (await promoted.sql('SELECT id FROM app.t ORDER BY id')).map((r) => Number(r.id)),
    [1, 2],
  );
});
