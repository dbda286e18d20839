// The Orchestrator stand-in against three real MariaDB servers: the hook calls it makes in a
// graceful takeover and in a failover whose PreFailover fails first match what Orchestrator 3.2.6
// made in the recordings (test/support/orchestrator-stand-in.ts says what is masked), and its
// answers decode with the project's client, its errors being the recorded ones.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanMessage, kindOfMessage } from '../../../src/orchestrator/errors.ts';
import { orchestratorClient, OrchestratorError, type InstanceKey } from '../../../src/orchestrator/index.ts';
import { ALIAS, collapseRetries, normalize, recorded, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

const FIXTURES = new URL('../../fixtures/orchestrator/', import.meta.url);

test('the stand-in makes the recorded hook calls in a graceful takeover and a failover whose PreFailover fails at first', async (t) => {
  const { servers, standIn, get, hookLines, clearHookLog, ctl } = await startStandInLab(t, 'takeover');
  const client = orchestratorClient({ baseUrl: `${standIn.url}/api` });
  const [s0, s1, s2] = servers;
  const health = await get('/api/health');
  assert.equal(health.body.Code, 'OK');
  assert.equal(health.body.Details.Healthy, true);

  await t.test('graceful takeover', async () => {
    const res = await get(`/api/graceful-master-takeover/${ALIAS}/${s1.host}/${s1.port}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.Message, 'graceful-master-takeover: successor promoted');
    assert.equal((await s1.sql('SELECT @@read_only AS ro'))[0]?.ro, 0);
    assert.equal((await s0.sql('SELECT @@read_only AS ro'))[0]?.ro, 1);
    assert.deepEqual(normalize(hookLines()), normalize(recorded('graceful-takeover')));
    assert.equal((await get(`/api/master/${ALIAS}`)).body.Key.Hostname, s1.host);
  });

  await t.test('failover after SIGKILL with a PreFailover failing at first', async () => {
    clearHookLog();
    writeFileSync(join(ctl, 'PreFailoverProcesses.exit'), '1');
    await s1.kill();
    await eventually('PreFailover retried', () => hookLines().filter((c) => c.hook === 'PreFailoverProcesses').length >= 2);
    // Aborted attempts change nothing: both survivors stay read-only and no Post* hook ran.
    for (const s of [s0, s2]) assert.equal((await s.sql('SELECT @@read_only AS ro'))[0]?.ro, 1);
    assert.ok(hookLines().every((c) => !c.hook.startsWith('Post')));
    const analysis = await client.replicationAnalysis(ALIAS);
    assert.deepEqual(
      analysis.map((a) => [a.instance.host, a.analysis, a.isMaster, a.lastCheckValid]),
      [[s1.host, 'DeadMaster', true, false]],
    );
    rmSync(join(ctl, 'PreFailoverProcesses.exit'));
    await eventually('PostFailover hook', () => hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
    assert.deepEqual(normalize(collapseRetries(hookLines())), normalize(collapseRetries(recorded('prefailover-exit1'))));
    const successor = hookLines()
      .find((c) => c.hook === 'PostFailoverProcesses')
      ?.args.get('successorHost');
    const promoted = servers.find((s) => s.host === successor);
    assert.ok(promoted, `successor ${successor} is one of the servers`);
    assert.equal((await promoted.sql('SELECT @@read_only AS ro'))[0]?.ro, 0);
    await eventually('master switched', async () => (await get(`/api/master/${ALIAS}`)).body.Key.Hostname === successor);
    const audit = (await get('/api/audit-recovery')).body as Array<{ IsSuccessful: boolean; SuccessorKey: { Hostname: string } | null }>;
    assert.equal(audit[0]?.IsSuccessful, true);
    assert.equal(audit[0]?.SuccessorKey?.Hostname, successor);
  });

  await t.test("every client method decodes the stand-in's answer; its errors are the recorded ones", async () => {
    const master = await client.master(ALIAS);
    const replica = (await client.clusterByAlias(ALIAS)).find((i) => i.master !== null);
    assert.ok(replica, 'a replica in the cluster');
    const dead = await client.instance({ host: s1.host, port: s1.port });
    assert.deepEqual([dead.lastCheckValid, dead.downtimed, dead.downtimeReason], [false, true, 'lost-in-recovery']);
    assert.deepEqual((await client.discover(replica.key)).master, master.key);
    assert.equal((await client.instance(master.key)).readOnly, false);
    assert.ok(
      (await client.clustersInfo()).some((c) => c.clusterAlias === ALIAS && c.clusterName === `${master.key.host}:${master.key.port}`),
    );
    assert.deepEqual(await client.replicationAnalysis(ALIAS), []);
    const [newest] = await client.recoveries(ALIAS);
    assert.deepEqual([newest?.successful, newest?.successor, newest?.acknowledged], [true, master.key, false]);
    assert.equal(await client.ackRecoveries(ALIAS, 'seen by the test'), master.clusterName);
    assert.ok((await client.recoveries(ALIAS)).every((r) => r.acknowledged));

    await client.beginDowntime(replica.key, { owner: 'test', reason: 'maintenance', seconds: 60 });
    assert.deepEqual([(await client.instance(replica.key)).downtimed, (await client.instance(replica.key)).downtimeOwner], [true, 'test']);
    await client.endDowntime(replica.key);
    await client.endDowntime(replica.key);
    assert.equal((await client.instance(replica.key)).downtimed, false);
    assert.equal((await client.setWriteable(replica.key)).readOnly, false);
    assert.equal((await client.setReadOnly(replica.key)).readOnly, true);
    await client.forget(replica.key);
    await assert.rejects(client.instance(replica.key), { kind: 'unknown-instance' });
    await client.discover(replica.key);

    const auto = await client.gracefulMasterTakeoverAuto(ALIAS, replica.key);
    assert.deepEqual([auto.successful, auto.failed, auto.successor], [true, master.key, replica.key]);
    const back = await client.gracefulMasterTakeover(ALIAS, master.key);
    assert.deepEqual([back.successful, back.failed, back.successor], [true, replica.key, master.key]);

    // Nothing listens on 127.0.0.1:1, as nothing did on the recorded 127.0.0.99:3306.
    const nobody: InstanceKey = { host: '127.0.0.1', port: 1 };
    const errors: Array<[string, () => Promise<unknown>]> = [
      ['error_instance_unknown_127.0.0.99_3306.json', () => client.instance(nobody)],
      ['error_forget_unknown_127.0.0.99_3306.json', () => client.forget(nobody)],
      ['error_discover_unreachable_127.0.0.99_3306.json', () => client.discover(nobody)],
      ['error_set-read-only_unknown.json', () => client.setReadOnly(nobody)],
      ['error_cluster-alias_unknown.json', () => client.clusterByAlias('nosuch.ns')],
      ['error_master_unknown.json', () => client.master('nosuchcluster')],
      ['error_graceful-master-takeover_unknown-cluster.json', () => client.gracefulMasterTakeover('nosuchcluster', master.key)],
      ['error_ack-recovery_unknown-cluster.json', () => client.ackRecoveries('nosuchcluster', 'c')],
      ['error_ack-recovery_missing-comment.json', () => client.ackRecoveries(ALIAS, '')],
    ];
    for (const [fixture, call] of errors) {
      const message = cleanMessage((JSON.parse(readFileSync(new URL(fixture, FIXTURES), 'utf8')) as { Message: string }).Message).replace(
        '127.0.0.99:3306',
        `${nobody.host}:${nobody.port}`,
      );
      await assert.rejects(call(), (e: unknown) => {
        assert.ok(e instanceof OrchestratorError, String(e));
        assert.deepEqual([e.kind, e.status], [kindOfMessage(message), 500], fixture);
        assert.ok(e.message.endsWith(`: ${message}`), `${fixture}: ${e.message}`);
        return true;
      });
    }
  });
});
