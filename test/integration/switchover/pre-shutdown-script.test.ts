// Issue 12, item 6: switchover first. The mysql container's preStop is the anchor's
// pre-shutdown-ha.sh from the ConfigMap, run as the kubelet runs it (test/support/pre-stop.ts).
// Real MariaDB 10.11 servers stand in for the pods (report_host = pod FQDN) and the Orchestrator
// stand-in knows them by FQDN, as the chart's Orchestrator (MySQLHostnameResolveMethod
// @@report_host) does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { names, podFqdn } from '../../../src/api/names.ts';
import { CONF_FILE } from '../../../src/api/pod-contract.ts';
import { startMariaDB, type MariaDBServer } from '../../support/mariadb.ts';
import { formCluster, watchWithStandIn, type StandInWatch } from '../../support/orchestrator-stand-in.ts';
import { NO_MOUNT_NS, renderedForPreStop, runPreStop, type PreStopTarget } from '../../support/pre-stop.ts';

const NS = 'default';
const CLUSTER = 'my-db';
const ALIAS = names.orchestratorAlias(CLUSTER, NS);
const FIXTURE_MASTER = new URL('../../fixtures/orchestrator/master_labcluster.json', import.meta.url);

/** Three servers named as the pods, pod 0 the writable master, the others replicating, and the stand-in watching them by FQDN. */
async function lab(
  t: { after(fn: () => unknown): void },
  config?: Record<string, unknown>,
): Promise<{ servers: MariaDBServer[]; orc: StandInWatch }> {
  const servers = await Promise.all(
    [0, 1, 2].map((i) => {
      const pod = names.pod(CLUSTER, i);
      return startMariaDB({ name: pod, serverId: 100 + i, reportHost: podFqdn(pod, NS), systemUsers: true, t });
    }),
  );
  await formCluster(servers);
  return { servers, orc: await watchWithStandIn(t, servers, ALIAS, { byReportHost: true, ...(config ? { config } : {}) }) };
}

const target = (orcUrl: string): PreStopTarget => ({ cluster: CLUSTER, namespace: NS, orchestratorUrl: orcUrl });

async function masterFqdn(orc: StandInWatch): Promise<string> {
  return String((await orc.get(`/api/master/${ALIAS}`)).body?.Key?.Hostname);
}

test("the script reads the master out of /api/master with awk: the same host from the stand-in's bytes as from the recorded answer", {
  skip: NO_MOUNT_NS,
}, async (t) => {
  const { orc } = await lab(t);
  const script = renderedForPreStop(target(orc.standIn.url)).configMap.data![CONF_FILE.preShutdownScript]!;
  const pipeline = /\|\s*(awk .*?)\s*\)/.exec(script)?.[1];
  assert.ok(pipeline, 'the awk pipeline of the script');
  const awk = (body: string): string => spawnSync('bash', ['-c', pipeline], { input: body, encoding: 'utf8' }).stdout.trim();
  const standInBytes = await (await fetch(`${orc.standIn.url}/api/master/${ALIAS}`)).text();
  assert.equal(awk(standInBytes), podFqdn(names.pod(CLUSTER, 0), NS));
  // The fixture is pretty-printed (its README); Orchestrator served it compact, as Go encodes.
  const recorded = JSON.parse(readFileSync(FIXTURE_MASTER, 'utf8')) as { Key: { Hostname: string } };
  assert.equal(awk(JSON.stringify(recorded)), recorded.Key.Hostname);
});

test("before the master's pod stops, its preStop has Orchestrator move the master to a replica; a replica's preStop moves nothing", {
  skip: NO_MOUNT_NS,
}, async (t) => {
  const { servers, orc } = await lab(t);
  const [s0, s1] = servers as [MariaDBServer, MariaDBServer, MariaDBServer];
  const fqdn0 = podFqdn(names.pod(CLUSTER, 0), NS);
  assert.equal(await masterFqdn(orc), fqdn0);

  const replica = await runPreStop(t, target(orc.standIn.url), 1, s1);
  assert.equal(replica.code, 0, replica.output);
  assert.doesNotMatch(replica.output, /graceful-master-takeover/);
  assert.equal(await masterFqdn(orc), fqdn0);

  const master = await runPreStop(t, target(orc.standIn.url), 0, s0);
  assert.equal(master.code, 0, master.output);
  assert.match(master.output, /master from orchestrator: my-db-mysql-0\.mysql\.default/);
  // Checked once the script returned, without waiting: the takeover happened before it did.
  const now = await masterFqdn(orc);
  const promoted = servers.find((s) => s.reportHost === now);
  assert.ok(promoted && promoted !== s0, `a replica is the master now (${now})`);
  const old = await s0.node();
  assert.equal(await old.isReadOnly(), true, 'the old master is read-only');
  const rs = await old.replicationStatus();
  assert.equal(rs?.masterHost, promoted.host, 'the old master replicates from the new one');
  assert.equal(await (await promoted.node()).isReadOnly(), false);
});

// Issue 23 item 1: Orchestrator's API wants credentials (AuthenticationMethod multi, as the chart
// configures it). The script's bytes stay the anchor's; its curl reads `$CURL_HOME/.curlrc`.
const API = { user: 'orc-operator', password: 'pw-of-the-api' };
const AUTH_CONFIG = { AuthenticationMethod: 'multi', HTTPAuthUser: API.user, HTTPAuthPassword: API.password };

test("with authentication on, the master's preStop with the mounted credentials moves the master; the same script without them moves nothing", {
  skip: NO_MOUNT_NS,
}, async (t) => {
  const { servers, orc } = await lab(t, AUTH_CONFIG);
  const [s0] = servers as [MariaDBServer, MariaDBServer, MariaDBServer];
  const fqdn0 = podFqdn(names.pod(CLUSTER, 0), NS);
  assert.equal((await fetch(`${orc.standIn.url}/api/master/${ALIAS}`)).status, 401, 'the stand-in wants credentials');

  // An adopted pod's template has no credentials mounted: Orchestrator refuses, the master stays.
  const adopted = await runPreStop(t, target(orc.standIn.url), 0, s0);
  assert.equal(adopted.code, 0, adopted.output);
  assert.match(adopted.output, /master from orchestrator: \n/);
  assert.doesNotMatch(adopted.output, /graceful-master-takeover-auto is ongoing/);
  assert.equal(await masterFqdn(orc), fqdn0);

  const withCredentials = { ...target(orc.standIn.url), orchestratorCredentials: API };
  assert.equal(
    renderedForPreStop(withCredentials).configMap.data![CONF_FILE.preShutdownScript],
    renderedForPreStop(target(orc.standIn.url)).configMap.data![CONF_FILE.preShutdownScript],
    'the same script bytes',
  );
  const ours = await runPreStop(t, withCredentials, 0, s0);
  assert.equal(ours.code, 0, ours.output);
  assert.match(ours.output, /master from orchestrator: my-db-mysql-0\.mysql\.default/);
  assert.ok(!ours.output.includes(API.password), "the password is not in the hook's output");
  const now = await masterFqdn(orc);
  assert.ok(now !== fqdn0 && servers.some((s) => s.reportHost === now), `a replica is the master now (${now})`);
});
