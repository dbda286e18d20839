// The Orchestrator stand-in against three real MariaDB servers: the hook calls it makes in a
// graceful takeover and in a failover whose PreFailover fails first match what Orchestrator 3.2.6
// made in the recordings of test/fixtures/orchestrator/hooks/ (a copy of ../shared's) (order, placeholder and ORC_*
// values; hosts by role, recovery UIDs by identity, times, coordinates and aliases masked).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../../sandbox/orchestrator/config.ts';
import { startOrchestratorStandIn } from '../../../sandbox/orchestrator/index.ts';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';

const HOOKS = new URL('../../fixtures/orchestrator/hooks/', import.meta.url).pathname;

interface HookCall {
  hook: string;
  args: Map<string, string>;
  orc: Map<string, string>;
}

function parseLog(text: string): HookCall[] {
  return text.split('\n').filter((l) => l !== '').map((line) => {
    const fields = line.split('\t');
    const call: HookCall = { hook: '', args: new Map(), orc: new Map() };
    for (const f of fields) {
      const eq = f.indexOf('=');
      const [k, v] = [f.slice(0, eq), f.slice(eq + 1)];
      if (k === 'hook') call.hook = v;
      else if (k === 'ts') continue;
      else if (k.startsWith('ORC_')) call.orc.set(k, v);
      else call.args.set(k, v);
    }
    return call;
  });
}

/** Hosts by role (FAILED, SUCCESSOR, OTHER), UIDs numbered by first appearance, volatile values masked. */
function normalize(calls: HookCall[]): string[] {
  const first = calls[0];
  assert.ok(first, 'no hook call');
  const roles = new Map<string, string>([[first.args.get('failedHost') ?? '', 'FAILED']]);
  const succ = calls.map((c) => c.args.get('successorHost') ?? '').find((h) => h !== '' && !h.startsWith('{'));
  if (succ) roles.set(succ, 'SUCCESSOR');
  const uids = new Map<string, string>();
  const mapHost = (hp: string): string => {
    const i = hp.lastIndexOf(':');
    const host = i < 0 ? hp : hp.slice(0, i);
    if (!roles.has(host)) roles.set(host, 'OTHER');
    return (roles.get(host) ?? host) + (i < 0 ? '' : hp.slice(i));
  };
  const value = (name: string, v: string): string => {
    if (v === '' || v.startsWith('{')) return v;
    if (/^(failedHost|successorHost|failureCluster|failureClusterDomain)$/.test(name) || /_(FAILED_HOST|SUCCESSOR_HOST|FAILURE_CLUSTER|FAILURE_CLUSTER_DOMAIN)$/.test(name)) return mapHost(v);
    if (/^(slaveHosts|replicaHosts|ORC_REPLICA_HOSTS)$/.test(name)) return v.split(',').map(mapHost).sort().join(',');
    if (/^(recoveryUID|ORC_RECOVERY_UID)$/.test(name)) {
      if (!uids.has(v)) uids.set(v, `UID${uids.size + 1}`);
      return uids.get(v) ?? v;
    }
    if (/^(successorBinlogCoordinates|ORC_SUCCESSOR_BINLOG_COORDINATES)$/.test(name)) return 'COORDINATES';
    if (/^(successorAlias|ORC_SUCCESSOR_ALIAS)$/.test(name)) return 'ALIAS';
    return v;
  };
  // Roles first from the failed and successor hosts, so OTHER is whatever is left.
  return calls.map((c) => [
    `hook=${c.hook}`,
    ...[...c.args].map(([k, v]) => `${k}=${value(k, v)}`),
    ...[...c.orc].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${value(k, v)}`),
  ].join(' | '));
}

/** Orchestrator retried a failing PreFailover a timing-dependent number of times: keep the first and the last. */
function collapseRetries(calls: HookCall[]): HookCall[] {
  const pre = (c: HookCall | undefined): boolean => c?.hook === 'PreFailoverProcesses';
  return calls.filter((c, i) => !(pre(c) && pre(calls[i - 1]) && pre(calls[i + 1])));
}

const recorded = (scenario: string): HookCall[] => parseLog(readFileSync(join(HOOKS, `${scenario}.txt`), 'utf8'));

test('the stand-in makes the recorded hook calls in a graceful takeover and a failover whose PreFailover fails at first', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'orc-stand-in-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'hooks.log');
  Object.assign(process.env, { HOOK_SH: join(HOOKS, 'hook-log.sh'), HOOK_LOG: log, HOOK_CTL: dir });

  const servers: MariaDBServer[] = await Promise.all([0, 1, 2].map((i) =>
    startMariaDB({ name: `pod${i}`, systemUsers: true, extraConfig: ['gtid-strict-mode=1'], t })));
  const [s0, s1, s2] = servers as [MariaDBServer, MariaDBServer, MariaDBServer];
  await (await s0.node()).setReadOnly(false);
  for (const r of [s1, s2]) {
    const n = await r.node();
    await n.pointAt({ host: s0.host, port: s0.port }, TEST_SYSTEM_USERS.replication);
    await n.startReplication();
  }
  await s0.sql('CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY); INSERT INTO app.t VALUES (1)');

  const recordedConf = JSON.parse(readFileSync(join(HOOKS, 'orchestrator.conf.json'), 'utf8')) as Record<string, unknown>;
  const { orchestrator: orc, replication: repl } = TEST_SYSTEM_USERS;
  const config = parseConfig(JSON.stringify({
    ...recordedConf,
    MySQLTopologyUser: orc.user,
    MySQLTopologyPassword: orc.password,
    DetectClusterAliasQuery: "SELECT 'my-db.default'",
    ReplicationCredentialsQuery: `SELECT '${repl.user}', '${repl.password}'`,
    RecoveryPeriodBlockSeconds: 1,
  }));
  const standIn = await startOrchestratorStandIn({ config, orchestratorHost: 'mysql-operator-0' });
  t.after(() => standIn.stop());
  const get = async (path: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${standIn.url}${path}`);
    return { status: res.status, body: await res.json() };
  };

  const health = await get('/api/health');
  assert.equal(health.body.Code, 'OK');
  assert.equal(health.body.Details.Healthy, true);
  for (const s of servers) assert.equal((await get(`/api/discover/${s.host}/${s.port}`)).body.Code, 'OK');
  await eventually('all three in one cluster', async () => (await get('/api/cluster/my-db.default')).body.length === 3);
  const hookLines = (): HookCall[] => (existsSync(log) ? parseLog(readFileSync(log, 'utf8')) : []);

  await t.test('graceful takeover', async () => {
    const res = await get(`/api/graceful-master-takeover/my-db.default/${s1.host}/${s1.port}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.Message, 'graceful-master-takeover: successor promoted');
    assert.equal((await s1.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 0);
    assert.equal((await s0.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 1);
    assert.deepEqual(normalize(hookLines()), normalize(recorded('graceful-takeover')));
    assert.equal((await get('/api/master/my-db.default')).body.Key.Hostname, s1.host);
  });

  await t.test('failover after SIGKILL with a PreFailover failing at first', async () => {
    rmSync(log, { force: true });
    writeFileSync(join(dir, 'PreFailoverProcesses.exit'), '1');
    await s1.kill();
    await eventually('PreFailover retried', () => hookLines().filter((c) => c.hook === 'PreFailoverProcesses').length >= 2);
    // Aborted attempts change nothing: both survivors stay read-only and no Post* hook ran.
    for (const s of [s0, s2]) assert.equal((await s.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 1);
    assert.ok(hookLines().every((c) => !c.hook.startsWith('Post')));
    rmSync(join(dir, 'PreFailoverProcesses.exit'));
    await eventually('PostFailover hook', () => hookLines().some((c) => c.hook === 'PostFailoverProcesses'));
    assert.deepEqual(normalize(collapseRetries(hookLines())), normalize(collapseRetries(recorded('prefailover-exit1'))));
    const successor = hookLines().find((c) => c.hook === 'PostFailoverProcesses')?.args.get('successorHost');
    const promoted = servers.find((s) => s.host === successor);
    assert.ok(promoted, `successor ${successor} is one of the servers`);
    assert.equal((await promoted.sql('SELECT @@read_only AS ro'))[0]?.['ro'], 0);
    await eventually('master switched', async () => (await get('/api/master/my-db.default')).body.Key.Hostname === successor);
    const audit = (await get('/api/audit-recovery')).body as Array<{ IsSuccessful: boolean; SuccessorKey: { Hostname: string } | null }>;
    assert.equal(audit[0]?.IsSuccessful, true);
    assert.equal(audit[0]?.SuccessorKey?.Hostname, successor);
  });
});
