// Ingress NetworkPolicies enforced by the sandbox network (sandbox/network/policy-enforcer.ts),
// in the kernel of each pod's network namespace: a pod a policy selects takes only what its
// rules allow, by pod and namespace selector and port, directly and through a Service's
// ClusterIP (the proxy connects from the client's alias, so the rules still see the client);
// the node is always let in; changes of policies, labels and namespaces apply; a pod no policy
// selects takes everything.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../../support/wait.ts';
import { createService, echoServer, greeting, networkEnv, runningPod, skipReason } from './helpers.ts';

const skip = skipReason() ?? (process.getuid?.() === 0 && !(await hasNft()) ? 'needs `nft` (nftables)' : undefined);

async function hasNft(): Promise<boolean> {
  const { spawnSync } = await import('node:child_process');
  return spawnSync('nft', ['--version']).status === 0;
}

test('a policy lets in only the pods and namespaces it names, on its ports, directly and through a ClusterIP', { skip }, async (t) => {
  const env = await networkEnv(t);
  const other = `${env.namespace}-other`;
  await env.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: other } });
  const ports = [
    { name: 'mysql', containerPort: 3306 },
    { name: 'sidecar', containerPort: 8080 },
  ];
  const db = await runningPod(env, 'db-0', { labels: { app: 'db' }, ports });
  const web = await runningPod(env, 'web-0', { labels: { app: 'web' } });
  const intruder = await runningPod(env, 'intruder-0', { labels: { app: 'web' }, namespace: other });
  await echoServer(t, db.net, 'db-0', 3306);
  await echoServer(t, db.net, 'db-0:8080', 8080);
  const svc = await createService(env, { name: 'db', selector: { app: 'db' }, ports: [{ name: 'mysql', port: 3306 }] });
  const clusterIp = svc.spec!.clusterIP!;
  await eventually('the proxy to listen on the ClusterIP', () => env.net.listeners().some((l) => l.ip === clusterIp));

  // No policy: everyone gets in.
  assert.equal(await greeting(t, intruder.net, db.net.ip, 3306), 'db-0');
  assert.equal(await greeting(t, intruder.net, clusterIp, 3306), 'db-0');

  await env.client.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db', namespace: env.namespace },
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 'mysql' }] }],
    },
  });
  await eventually('the intruder refused', async () => (await greeting(t, intruder.net, db.net.ip, 3306)) === 'error:EHOSTUNREACH');
  assert.equal(await greeting(t, web.net, db.net.ip, 3306), 'db-0', 'a pod the policy names gets in');
  assert.equal(await greeting(t, web.net, clusterIp, 3306), 'db-0', 'through the ClusterIP too');
  assert.notEqual(await greeting(t, intruder.net, clusterIp, 3306), 'db-0', 'the proxy does not let the intruder in');
  assert.equal(await greeting(t, web.net, db.net.ip, 8080), 'error:EHOSTUNREACH', 'a port the policy does not name is closed');
  assert.equal(await hostGreeting(db.net.ip, 8080), 'db-0:8080', 'the node always gets in');

  // A second policy adds a namespace, by a label it gets later.
  await env.client.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db-from-team', namespace: env.namespace },
    spec: {
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'blue' } }, podSelector: { matchLabels: { app: 'web' } } }] }],
    },
  });
  await env.net.settled();
  assert.equal(await greeting(t, intruder.net, db.net.ip, 3306), 'error:EHOSTUNREACH', 'the namespace has no such label yet');
  await env.client.patch({ apiVersion: 'v1', kind: 'Namespace', name: other }, { metadata: { labels: { team: 'blue' } } });
  await eventually('the labelled namespace let in', async () => (await greeting(t, intruder.net, db.net.ip, 8080)) === 'db-0:8080');
  assert.equal(await greeting(t, intruder.net, clusterIp, 3306), 'db-0');

  // Policies gone: the pod takes everything again.
  for (const name of ['db', 'db-from-team']) {
    await env.client.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: env.namespace, name });
  }
  await eventually('the rules removed', async () => (await greeting(t, web.net, db.net.ip, 8080)) === 'db-0:8080');
  assert.equal(env.net.policyRules(db.pod.metadata!.uid!), 'table ip sandbox_netpol\ndelete table ip sandbox_netpol\n');
});

test('a new pod a policy names gets in from its first connection', { skip }, async (t) => {
  const env = await networkEnv(t);
  const db = await runningPod(env, 'db-0', { labels: { app: 'db' } });
  await echoServer(t, db.net, 'db-0', 3306);
  await env.client.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db', namespace: env.namespace },
    spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] },
  });
  await eventually('the db pod isolated', () => /reject/.test(env.net.policyRules(db.pod.metadata!.uid!) ?? ''));
  // attach returns once the new pod's address is in its peers' rules: no waiting here.
  for (let i = 0; i < 3; i++) {
    const web = await runningPod(env, `web-${i}`, { labels: { app: 'web' } });
    assert.equal(await greeting(t, web.net, db.net.ip, 3306), 'db-0', `web-${i}'s first connection`);
  }
});

/** From this process (the node): the first line the server says. */
async function hostGreeting(host: string, port: number): Promise<string> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 5000 });
    let buf = '';
    s.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) {
        resolve(buf.split('\n')[0]!);
        s.destroy();
      }
    });
    s.on('timeout', () => {
      resolve('error:ETIMEDOUT');
      s.destroy();
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(`error:${e.code}`));
  });
}
