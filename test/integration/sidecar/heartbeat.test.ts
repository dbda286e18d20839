// The `heartbeat` subcommand as the pt-heartbeat container runs it: reads the heartbeat.conf
// clone-and-init wrote, writes sys_operator.heartbeat while the server is writable. Real MariaDB 10.11.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CONTAINER } from '../../../src/api/constants.ts';
import { startMariaDB, TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { eventually } from '../../support/wait.ts';
import { renderClientConf } from '../../../src/sidecar/render-pod-files.ts';
import { cluster, render } from '../../unit/cluster/builders.ts';
import { confDirFor, podEnv, startSidecar } from './support.ts';

test('the heartbeat subcommand writes heartbeat rows as sys_heartbeat while writable and exits on SIGTERM', async (t) => {
  const server = await startMariaDB({ name: 'hb', systemUsers: true, t });
  const confDir = await confDirFor(t);
  await writeFile(join(confDir, 'heartbeat.conf'), renderClientConf(TEST_SYSTEM_USERS.heartbeat, { host: server.host, port: server.port }));
  const hb = startSidecar(['heartbeat', `--config-dir=${confDir}`], podEnv());
  t.after(() => hb.proc.kill('SIGKILL'));

  await eventually('the read-only server to be skipped', async () => /heartbeat idle: server is read-only/.test(hb.output()));
  const node = await server.node();
  await node.setReadOnly(false);
  await eventually('a heartbeat row', async () => (await server.sql('SELECT COUNT(*) AS n FROM sys_operator.heartbeat'))[0]?.n === 1);
  const lag = await node.heartbeatLag();
  assert.ok(lag !== null && lag >= 0);
  assert.ok(!hb.output().includes(TEST_SYSTEM_USERS.heartbeat.password), 'no password in the log');
  hb.proc.kill('SIGTERM');
  assert.equal((await hb.done).code, 0);
});

test('the heartbeat subcommand fails clearly when heartbeat.conf is missing', async (t) => {
  const confDir = await confDirFor(t);
  const { code, output } = await startSidecar(['heartbeat', `--config-dir=${confDir}`], podEnv()).done;
  assert.equal(code, 1);
  assert.match(output, /heartbeat failed: .*heartbeat\.conf/);
});

test('the pt-heartbeat container args of the rendered StatefulSet run the heartbeat against their --defaults-file', async (t) => {
  const server = await startMariaDB({ name: 'pthb', systemUsers: true, t });
  const confDir = await confDirFor(t);
  const conf = join(confDir, 'hb.conf');
  await writeFile(conf, renderClientConf(TEST_SYSTEM_USERS.heartbeat, { host: server.host, port: server.port }));
  const pod = render(cluster({ mysqlVersion: 'mariadb-10.11' })).statefulSet.spec!.template.spec!;
  const args = pod.containers.find((c) => c.name === CONTAINER.heartbeat)!.args!;
  // The test's file instead of /etc/mysql/heartbeat.conf; everything else as rendered.
  const i = args.indexOf('--defaults-file');
  assert.ok(i > 0);
  const testArgs = [...args.slice(0, i + 1), conf, ...args.slice(i + 2)];
  const hb = startSidecar(testArgs, podEnv());
  t.after(() => hb.proc.kill('SIGKILL'));

  await (await server.node()).setReadOnly(false);
  await eventually('a heartbeat row', async () => (await server.sql('SELECT COUNT(*) AS n FROM sys_operator.heartbeat'))[0]?.n === 1);
  hb.proc.kill('SIGTERM');
  const exit = await hb.done;
  assert.equal(exit.code, 0, exit.output);
});

test('pt-heartbeat --fail-successive-errors exits 1 after that many failures in a row', async (t) => {
  const confDir = await confDirFor(t);
  const conf = join(confDir, 'hb.conf');
  // A port nobody listens on: every attempt fails at connect.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  await writeFile(conf, renderClientConf(TEST_SYSTEM_USERS.heartbeat, { host: '127.0.0.1', port }));
  const hb = startSidecar(['pt-heartbeat', '--update', '--defaults-file', conf, '--fail-successive-errors=2'], podEnv());
  t.after(() => hb.proc.kill('SIGKILL'));
  const { code, output } = await hb.done;
  assert.equal(code, 1);
  assert.match(output, /pt-heartbeat failed: 2 successive heartbeat failures, the last: /);
  assert.ok(!output.includes(TEST_SYSTEM_USERS.heartbeat.password), 'no password in the log');
});
