// Issue 12, item 6: switchover first. The mysql container's preStop is the anchor's
// pre-shutdown-ha.sh from the ConfigMap; run here with bash, as the kubelet runs it: the command
// of the rendered lifecycle hook, the container's environment resolved from the rendered pod
// (test/support/kubelet-env.ts), the conf volume at /etc/mysql (a bind mount in a private mount
// namespace, as the sandbox's kubelet does), Debian's `mysql` and `curl` on PATH. Real MariaDB
// 10.11 servers stand in for the pods (report_host = pod FQDN) and the Orchestrator stand-in
// knows them by FQDN, as the chart's Orchestrator (MySQLHostnameResolveMethod @@report_host) does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { CONTAINER } from '../../../src/api/constants.ts';
import { names, podFqdn } from '../../../src/api/names.ts';
import { CONF_FILE, MOUNT_PATH } from '../../../src/api/pod-contract.ts';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { renderClientConf } from '../../../src/sidecar/render-pod-files.ts';
import { containerEnv } from '../../../sandbox/kubelet/env.ts';
import { startMariaDB, TEST_SYSTEM_USERS, type MariaDBServer } from '../../support/mariadb.ts';
import { formCluster, watchWithStandIn, type StandInWatch } from '../../support/orchestrator-stand-in.ts';
import { cluster, render, ROOT_SECRET } from '../../unit/cluster/builders.ts';

const NS = 'default';
const CLUSTER = 'my-db';
const ALIAS = names.orchestratorAlias(CLUSTER, NS);
const FIXTURE_MASTER = new URL('../../fixtures/orchestrator/master_labcluster.json', import.meta.url);

const mountsWork = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', 'true']).status === 0;
const NO_MOUNT_NS = mountsWork ? false : 'needs root for a private mount namespace (the conf volume at /etc/mysql)';

/** Three servers named as the pods, pod 0 the writable master, the others replicating, and the stand-in watching them by FQDN. */
async function lab(t: { after(fn: () => unknown): void }): Promise<{ servers: MariaDBServer[]; orc: StandInWatch }> {
  const servers = await Promise.all([0, 1, 2].map((i) => {
    const pod = names.pod(CLUSTER, i);
    return startMariaDB({ name: pod, serverId: 100 + i, reportHost: podFqdn(pod, NS), systemUsers: true, t });
  }));
  await formCluster(servers);
  return { servers, orc: await watchWithStandIn(t, servers, ALIAS, { byReportHost: true }) };
}

/** The rendered cluster, with the stand-in as Orchestrator's API. */
function rendered(orcUrl: string) {
  return render(cluster({ replicas: 3, mysqlVersion: 'mariadb-10.11' }, { name: CLUSTER, namespace: NS }), clusterOptions({
    orcTopologyUser: TEST_SYSTEM_USERS.orchestrator.user,
    orcTopologyPassword: TEST_SYSTEM_USERS.orchestrator.password,
    orchestratorUri: `${orcUrl}/api`,
    failoverBeforeShutdown: true,
  }));
}

/** Runs the mysql container's preStop of pod `i` as the kubelet would; resolves with its exit code and output. */
async function runPreStop(t: { after(fn: () => unknown): void }, orcUrl: string, i: number, server: MariaDBServer): Promise<{ code: number | null; output: string }> {
  const desired = rendered(orcUrl);
  const template = desired.statefulSet.spec!.template;
  const pod: V1Pod = {
    metadata: { ...template.metadata, name: names.pod(CLUSTER, i), namespace: NS, uid: `pod-uid-${i}` },
    spec: template.spec!,
    status: { podIP: server.host, hostIP: '127.0.0.1' },
  };
  const mysql = template.spec!.containers.find((c) => c.name === CONTAINER.mysql)!;
  const command = mysql.lifecycle?.preStop?.exec?.command;
  assert.ok(command, 'the mysql container has a preStop exec hook');
  const env = containerEnv(mysql, pod, {
    secrets: {
      [names.operatedSecret(CLUSTER)]: desired.secretData,
      [ROOT_SECRET.metadata.name]: { ROOT_PASSWORD: 'r00t' },
    },
  });
  // The conf volume as clone-and-init leaves it: the ConfigMap's script copied as is, and
  // client.conf for the operator user pointing at this pod's own mysqld.
  const conf = mkdtempSync(join(tmpdir(), 'pre-stop-conf-'));
  t.after(() => rmSync(conf, { recursive: true, force: true }));
  writeFileSync(join(conf, CONF_FILE.preShutdownScript), desired.configMap.data![CONF_FILE.preShutdownScript]!);
  writeFileSync(join(conf, CONF_FILE.client), renderClientConf(TEST_SYSTEM_USERS.operator, { host: server.host, port: server.port }));
  const child = spawn('unshare', [
    '--mount', '--propagation', 'private', '--',
    'bash', '-c', 'mount --bind "$1" "$2" && shift 2 && exec "$@"', 'kubelet', conf, MOUNT_PATH.conf, ...command,
  ], { env: { ...env, PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

async function masterFqdn(orc: StandInWatch): Promise<string> {
  return String((await orc.get(`/api/master/${ALIAS}`)).body?.Key?.Hostname);
}

test('the script reads the master out of /api/master with awk: the same host from the stand-in\'s bytes as from the recorded answer', { skip: NO_MOUNT_NS }, async (t) => {
  const { orc } = await lab(t);
  const script = rendered(orc.standIn.url).configMap.data![CONF_FILE.preShutdownScript]!;
  const pipeline = /\|\s*(awk .*?)\s*\)/.exec(script)?.[1];
  assert.ok(pipeline, 'the awk pipeline of the script');
  const awk = (body: string): string => spawnSync('bash', ['-c', pipeline], { input: body, encoding: 'utf8' }).stdout.trim();
  const standInBytes = await (await fetch(`${orc.standIn.url}/api/master/${ALIAS}`)).text();
  assert.equal(awk(standInBytes), podFqdn(names.pod(CLUSTER, 0), NS));
  // The fixture is pretty-printed (its README); Orchestrator served it compact, as Go encodes.
  const recorded = JSON.parse(readFileSync(FIXTURE_MASTER, 'utf8')) as { Key: { Hostname: string } };
  assert.equal(awk(JSON.stringify(recorded)), recorded.Key.Hostname);
});

test('before the master\'s pod stops, its preStop has Orchestrator move the master to a replica; a replica\'s preStop moves nothing', { skip: NO_MOUNT_NS }, async (t) => {
  const { servers, orc } = await lab(t);
  const [s0, s1] = servers as [MariaDBServer, MariaDBServer, MariaDBServer];
  const fqdn0 = podFqdn(names.pod(CLUSTER, 0), NS);
  assert.equal(await masterFqdn(orc), fqdn0);

  const replica = await runPreStop(t, orc.standIn.url, 1, s1);
  assert.equal(replica.code, 0, replica.output);
  assert.doesNotMatch(replica.output, /graceful-master-takeover/);
  assert.equal(await masterFqdn(orc), fqdn0);

  const master = await runPreStop(t, orc.standIn.url, 0, s0);
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
