// The Service proxy: a connection to a Service's ClusterIP (or its name) goes to a ready pod its
// selector matches, and the next connection follows a label change as soon as the network has
// seen it.
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { test } from 'node:test';
import { eventually } from '../../support/wait.ts';
import { createService, echoServer, greeting, networkEnv, runningPod, skipReason } from './helpers.ts';

const skip = skipReason();

test('a Service routes to the pod with role=master and follows the label when it moves', { skip }, async (t) => {
  const env = await networkEnv(t);
  const ports = [{ name: 'mysql', containerPort: 3306 }];
  const p0 = await runningPod(env, 'db-0', { labels: { app: 'db', role: 'master' }, ports });
  const p1 = await runningPod(env, 'db-1', { labels: { app: 'db', role: 'replica' }, ports });
  const client = await runningPod(env, 'client');
  await echoServer(t, p0.net, 'db-0', 3306);
  await echoServer(t, p1.net, 'db-1', 3306);
  // Port 3307 → the container port named `mysql`: the proxy resolves names per pod.
  const svc = await createService(env, {
    name: 'db-master',
    selector: { app: 'db', role: 'master' },
    ports: [{ name: 'mysql', port: 3307, targetPort: 'mysql' }],
  });
  const ip = svc.spec!.clusterIP!;
  await eventually('the proxy to listen on the ClusterIP', () => env.net.listeners().some((l) => l.ip === ip));
  await eventually('the master Service to reach db-0', async () => (await greeting(t, client.net, ip, 3307)) === 'db-0');
  assert.equal(await greeting(t, client.net, `db-master.${env.namespace}.svc.cluster.local`, 3307), 'db-0');
  assert.equal(await greeting(t, client.net, 'db-master', 3307), 'db-0');

  // A connection opened before the move stays with db-0, as kube-proxy leaves established ones.
  const held = createConnection({ host: ip, port: 3307 });
  t.after(() => void held.destroy());
  let heldText = '';
  held.on('data', (d: Buffer) => (heldText += d.toString()));
  await eventually('the held connection to greet', () => heldText === 'db-0\n');

  const label = (name: string, role: string) =>
    env.client.patch({ apiVersion: 'v1', kind: 'Pod', namespace: env.namespace, name }, { metadata: { labels: { role } } });
  const moved = Date.now();
  await label('db-0', 'replica');
  await label('db-1', 'master');
  await eventually('the master Service to follow the label to db-1', async () => (await greeting(t, client.net, ip, 3307)) === 'db-1');
  t.diagnostic(`label move to first connection reaching db-1: ${Date.now() - moved} ms (includes spawning a client in the pod)`);
  for (let i = 0; i < 4; i++) assert.equal(await greeting(t, client.net, ip, 3307), 'db-1', 'every new connection goes to the new master');

  held.write('still here\n');
  await eventually('the held connection to echo through db-0', () => heldText === 'db-0\nstill here\n');
});

test('connections spread over the ready endpoints; none ready: refused', { skip }, async (t) => {
  const env = await networkEnv(t);
  const a = await runningPod(env, 'web-0', { labels: { app: 'web' } });
  const b = await runningPod(env, 'web-1', { labels: { app: 'web' } });
  await echoServer(t, a.net, 'web-0', 8080);
  await echoServer(t, b.net, 'web-1', 8080);
  const svc = await createService(env, { name: 'web', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] });
  const ip = svc.spec!.clusterIP!;
  await eventually('the proxy to listen on the ClusterIP', () => env.net.listeners().some((l) => l.ip === ip));
  const fromHost = (): Promise<string> =>
    new Promise((resolve) => {
      const s = createConnection({ host: ip, port: 80, timeout: 5000 });
      s.once('timeout', () => s.destroy());
      s.once('data', (d) => {
        resolve(d.toString().trim());
        s.destroy();
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(`error:${e.code}`));
      s.once('close', () => resolve('closed'));
    });
  await eventually('the Service to answer', async () => (await fromHost()).startsWith('web-'));
  const seen = new Set<string>();
  for (let i = 0; i < 4; i++) seen.add(await fromHost());
  assert.deepEqual([...seen].sort(), ['web-0', 'web-1']);

  for (const name of ['web-0', 'web-1']) {
    await env.client.patchStatus(
      { apiVersion: 'v1', kind: 'Pod', namespace: env.namespace, name },
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
    );
  }
  await eventually('connections to be refused with no ready endpoint', async () => (await fromHost()) === 'error:ECONNRESET');
});
