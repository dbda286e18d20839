// Pods on the sandbox network: each in its own network namespace with its address on the
// sandbox's bridge, finding the others by the names the cluster DNS would answer, through a
// hosts file that follows pods and Services while it stays bind-mounted.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { podFqdn } from '../../../src/api/names.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { eventually } from '../../support/wait.ts';
import { createService, echoServer, greeting, networkEnv, output, inPod, runningPod, skipReason } from './helpers.ts';

const skip = skipReason();

test('two pods reach each other by pod FQDN and by Service name from their hosts files', { skip }, async (t) => {
  const env = await networkEnv(t);
  await createService(env, { name: 'mysql', selector: { app: 'db' }, ports: [{ name: 'mysql', port: 3306 }], headless: true });
  const a = await runningPod(env, 'db-0', { labels: { app: 'db' }, subdomain: 'mysql' });
  const b = await runningPod(env, 'db-1', { labels: { app: 'db' }, subdomain: 'mysql' });
  assert.notEqual(a.net.ip, b.net.ip);
  assert.notEqual(a.net.netns, b.net.netns);

  // The operator's short form (report-host, Orchestrator) and the full one resolve alike.
  const short = podFqdn('db-1', env.namespace);
  const full = `${short}.svc.cluster.local`;
  await eventually(`${short} in db-0's hosts file`, () => env.net.resolve(full) === b.net.ip);
  await env.net.settled();
  await echoServer(t, b.net, 'db-1', 3306);
  assert.equal(await greeting(t, a.net, short, 3306), 'db-1');
  assert.equal(await greeting(t, a.net, full, 3306), 'db-1');
  // The pod sees its own name, as the kubelet's hosts file gives it.
  await echoServer(t, a.net, 'db-0', 3306);
  assert.equal(await greeting(t, a.net, 'db-0', 3306), 'db-0');
  assert.ok(
    [a.net.ip, b.net.ip].includes(env.net.resolve(`mysql.${env.namespace}.svc.cluster.local`) ?? ''),
    'a headless Service name → its pods',
  );
});

test('a pod asks no DNS server beyond its own loopback: a name nobody has fails there, and the hosts file answers the rest', {
  skip,
}, async (t) => {
  const env = await networkEnv(t);
  const a = await runningPod(env, 'app-0');
  // The machine's nameserver lies beyond the bridge, which forwards nothing: each lookup of a
  // missing name (a pod just deleted) waited out its timeout and held the lookups behind it.
  const code = `
    const dns = require('node:dns');
    const missing = (name) => dns.promises.lookup(name).then(() => 'resolved', (e) => e.code);
    Promise.all([missing('gone-0.mysql.default'), missing('gone-1.mysql.default'), dns.promises.lookup('app-0')])
      .then(([g0, g1, own]) => console.log(JSON.stringify({ servers: dns.getServers(), g0, g1, own: own.address })));`;
  const seen = JSON.parse(await output(inPod(t, a.net, code))) as { servers: string[]; g0: string; g1: string; own: string };
  assert.deepEqual(seen.servers, ['127.0.0.1']);
  assert.ok(['EAI_AGAIN', 'ENOTFOUND'].includes(seen.g0) && seen.g0 === seen.g1, `a missing name fails: ${seen.g0}`);
  assert.equal(seen.own, a.net.ip);
});

test('a hosts file bind-mounted into a pod shows names added after the mount (rewritten in place)', { skip }, async (t) => {
  const env = await networkEnv(t);
  const a = await runningPod(env, 'app-0');
  const inode = statSync(a.net.hostsFile).ino;
  // A reader that mounted the file before the change, and reads it when told to.
  const reader = spawn('unshare', [
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    'mount --bind "$0" /etc/hosts && echo mounted && read go && cat /etc/hosts',
    a.net.hostsFile,
  ]);
  t.after(() => void reader.kill('SIGKILL'));
  let out = '';
  reader.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await eventually('the reader to mount the hosts file', () => out.includes('mounted'));

  const svc = await createService(env, { name: 'web', selector: { app: 'web' }, ports: [{ port: 80 }] });
  const name = `web.${env.namespace}.svc.cluster.local`;
  await eventually(`${name} in the lookup`, () => env.net.resolve(name) === svc.spec!.clusterIP);
  await env.net.settled();

  reader.stdin.write('go\n');
  await new Promise((resolve) => reader.once('close', resolve));
  assert.match(out, new RegExp(`^${svc.spec!.clusterIP!.replaceAll('.', '\\.')}\\t${name.replaceAll('.', '\\.')}\\t`, 'm'));
  assert.match(out, /^\S+\tweb$/m, 'the bare Service name, for pods of its namespace');
  assert.equal(statSync(a.net.hostsFile).ino, inode);
});

test("a pod not ready is left out of a headless Service's names unless it publishes not-ready addresses", { skip }, async (t) => {
  const env = await networkEnv(t);
  await createService(env, { name: 'ready-only', selector: { app: 'db' }, ports: [{ port: 3306 }], headless: true });
  await env.client.create({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'all', namespace: env.namespace },
    spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: { app: 'db' }, ports: [{ port: 3306 }] },
  });
  const p = await runningPod(env, 'db-0', { labels: { app: 'db' } });
  await env.client.patchStatus(
    { apiVersion: 'v1', kind: 'Pod', namespace: env.namespace, name: 'db-0' },
    { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
  );
  await eventually(
    'the not-ready pod under the publishing Service only',
    () => env.net.resolve(`all.${env.namespace}`) === p.net.ip && env.net.resolve(`ready-only.${env.namespace}`) === undefined,
  );
});

test('pods detached while names change: their hosts files are gone, and no refresh fails on them', { skip }, async (t) => {
  const warnings: string[] = [];
  const log = createLogger({ level: 'warn', stream: new Writable({ write: (c, _e, cb) => cb(void warnings.push(String(c))) }) });
  const env = await networkEnv(t, log);
  await createService(env, { name: 'mysql', selector: { app: 'db' }, ports: [{ port: 3306 }], headless: true });
  let hostsDir = '';
  for (let round = 0; round < 3; round++) {
    const pods = await Promise.all(
      [0, 1, 2, 3].map((i) => runningPod(env, `db-${round}-${i}`, { labels: { app: 'db' }, subdomain: 'mysql' })),
    );
    hostsDir = dirname(pods[0]!.net.hostsFile);
    // As the kubelet ends pods: the network goes while the API still changes (each change a refresh).
    await Promise.all(
      pods.flatMap((p) => [
        env.net.network.detach(p.pod.metadata!.uid!),
        env.client.delete({ apiVersion: 'v1', kind: 'Pod', namespace: env.namespace, name: p.pod.metadata!.name! }),
      ]),
    );
  }
  await env.net.settled();
  assert.deepEqual(readdirSync(hostsDir), [], 'no hosts file outlives its pod');
  assert.deepEqual(warnings, []);

  // A pod still attached whose file cannot be written is a real failure: it is said.
  const stuck = await runningPod(env, 'stuck');
  rmSync(stuck.net.hostsFile);
  mkdirSync(stuck.net.hostsFile);
  try {
    await createService(env, { name: 'web', selector: { app: 'web' }, ports: [{ port: 80 }] });
    await eventually('the failed refresh to be logged', () =>
      /EISDIR.*"message":"sandbox network: refresh failed"/.test(warnings.join('')),
    );
  } finally {
    rmSync(stuck.net.hostsFile, { recursive: true });
  }
});
