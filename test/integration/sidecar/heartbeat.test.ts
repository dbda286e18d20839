// The `heartbeat` subcommand as the pt-heartbeat container runs it: reads the heartbeat.conf
// clone-and-init wrote, writes sys_operator.heartbeat while the server is writable. Real MariaDB 10.11.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startMariaDB, TEST_SYSTEM_USERS, waitFor } from '../../support/mariadb.ts';
import { renderClientConf } from '../../../src/sidecar/render-pod-files.ts';
import { confDirFor, podEnv } from './support.ts';

const MAIN = new URL('../../../src/sidecar/main.ts', import.meta.url).pathname;

test('the heartbeat subcommand writes heartbeat rows as sys_heartbeat while writable and exits on SIGTERM', async (t) => {
  const server = await startMariaDB({ name: 'hb', systemUsers: true, t });
  const confDir = await confDirFor(t);
  await writeFile(join(confDir, 'heartbeat.conf'), renderClientConf(TEST_SYSTEM_USERS.heartbeat, { host: server.host, port: server.port }));
  const proc = spawn(process.execPath, [MAIN, 'heartbeat', `--config-dir=${confDir}`], { env: podEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  t.after(() => proc.kill('SIGKILL'));

  await waitFor(async () => /heartbeat idle: server is read-only/.test(out), 'the read-only server to be skipped');
  const node = await server.node();
  await node.setReadOnly(false);
  await waitFor(async () => (await server.sql('SELECT COUNT(*) AS n FROM sys_operator.heartbeat'))[0]?.['n'] === 1, 'a heartbeat row');
  const lag = await node.heartbeatLag();
  assert.ok(lag !== null && lag >= 0);
  assert.ok(!out.includes(TEST_SYSTEM_USERS.heartbeat.password), 'no password in the log');
  proc.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('the heartbeat subcommand fails clearly when heartbeat.conf is missing', async (t) => {
  const confDir = await confDirFor(t);
  const proc = spawn(process.execPath, [MAIN, 'heartbeat', `--config-dir=${confDir}`], { env: podEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  assert.equal(code, 1);
  assert.match(out, /heartbeat failed: .*heartbeat\.conf/);
});
