// What the sandbox network leaves on the machine: nothing outside it is reachable from a pod,
// sandboxes side by side get their own bridge and ranges, and stop (or the next start after a
// crash) removes every namespace, link and address it made.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cidrsOverlap } from '../../../sandbox/network/addresses.ts';
import { claimAddresses } from '../../../sandbox/network/index.ts';
import { createService, echoServer, greeting, networkEnv, runningPod, skipReason } from './helpers.ts';

const skip = skipReason();

function netnsList(): string[] {
  return execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter(Boolean);
}

function links(): string[] {
  return (JSON.parse(execFileSync('ip', ['-j', 'link', 'show'], { encoding: 'utf8' })) as Array<{ ifname: string }>).map((l) => l.ifname);
}

function addresses(): string[] {
  const out = JSON.parse(execFileSync('ip', ['-j', '-4', 'addr', 'show'], { encoding: 'utf8' })) as Array<{
    addr_info: Array<{ local: string }>;
  }>;
  return out.flatMap((a) => a.addr_info.map((i) => i.local));
}

/** The machine's default gateway: outside this machine, and the first hop anything leaving would take. */
function defaultGateway(): string | undefined {
  const routes = JSON.parse(execFileSync('ip', ['-j', '-4', 'route', 'show', 'default'], { encoding: 'utf8' })) as Array<{
    gateway?: string;
  }>;
  return routes[0]?.gateway;
}

test('nothing outside this machine is reachable from a pod', { skip }, async (t) => {
  const env = await networkEnv(t);
  const pod = await runningPod(env, 'app-0');
  const outside = [
    ['1.1.1.1', 443],
    [defaultGateway(), 53],
  ].filter((a): a is [string, number] => a[0] !== undefined);
  for (const [address, port] of outside) {
    const answer = await greeting(t, pod.net, address, port);
    t.diagnostic(`${address}:${port} from a pod: ${answer}`);
    // Unreachable (the host does not forward from the bridge) or no answer: never a connection.
    assert.match(answer, /^error:(EHOSTUNREACH|ENETUNREACH|ETIMEDOUT)$/, `${address}:${port} from a pod`);
  }
  const forwarding = execFileSync('cat', [`/proc/sys/net/ipv4/conf/${env.net.addresses.bridge}/forwarding`], { encoding: 'utf8' }).trim();
  assert.equal(forwarding, '0');
});

test('stop removes every namespace, link, address and file the network made', { skip }, async (t) => {
  const env = await networkEnv(t);
  const a = await runningPod(env, 'db-0', { labels: { app: 'db' } });
  await runningPod(env, 'db-1', { labels: { app: 'db' } });
  // A process still inside a pod's namespace at stop (a container the kubelet failed to kill).
  await echoServer(t, a.net, 'db-0', 3306);
  const svc = await createService(env, { name: 'db', selector: { app: 'db' }, ports: [{ port: 3306 }] });
  await greeting(t, a.net, 'db', 3306);
  const { bridge } = env.net.addresses;
  assert.ok(links().includes(bridge));
  assert.equal(netnsList().filter((n) => n.startsWith(`${bridge}-`)).length, 2);

  await env.net.stop();
  assert.deepEqual(
    netnsList().filter((n) => n.startsWith(`${bridge}-`)),
    [],
  );
  assert.deepEqual(
    links().filter((l) => l === bridge || l.startsWith(`${bridge}v`)),
    [],
  );
  assert.ok(!addresses().includes(svc.spec!.clusterIP!), 'the ClusterIP is gone from the machine');
  assert.ok(!addresses().includes(env.net.addresses.gateway));
  assert.ok(!existsSync(join(env.workDir, 'network')));
});

test('a start with the work dir of a crashed run removes what that run left', { skip }, async (t) => {
  const env = await networkEnv(t);
  const pod = await runningPod(env, 'db-0');
  const { bridge } = env.net.addresses;
  // The crashed run never stopped; the next one claims with the same work dir.
  const next = await claimAddresses(env.workDir);
  t.after(() => next.release());
  assert.ok(!netnsList().includes(pod.net.netns));
  assert.ok(next.bridge === bridge || !links().includes(bridge));
  assert.ok(links().includes(next.bridge));
});

test('a start removes the sandbox of a process that died without stopping it, whatever its work dir', { skip }, async (t) => {
  const dirs = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), 'sandbox-network-'))));
  t.after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  const code = `import(process.argv[1]).then((m) => m.claimAddresses(process.argv[2])).then((c) => console.log(c.bridge));`;
  const child = spawn(process.execPath, ['-e', code, new URL('../../../sandbox/network/claim.ts', import.meta.url).href, dirs[0]!]);
  t.after(() => void child.kill('SIGKILL'));
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const orphan = line.toString().trim();
  assert.ok(links().includes(orphan));
  child.kill('SIGKILL');
  await once(child, 'close');

  const claim = await claimAddresses(dirs[1]!);
  t.after(() => claim.release());
  assert.ok(!links().includes(orphan) || claim.bridge === orphan);
});

test('sandboxes side by side get their own bridge and address ranges', { skip }, async (t) => {
  const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), 'sandbox-network-'))));
  t.after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  const claims = await Promise.all(dirs.map((d) => claimAddresses(d)));
  t.after(() => Promise.all(claims.map((c) => c.release())));
  assert.equal(new Set(claims.map((c) => c.bridge)).size, 3);
  for (const [i, c] of claims.entries()) {
    for (const other of claims.slice(i + 1)) {
      assert.ok(
        !cidrsOverlap(c.podCIDR, other.podCIDR) && !cidrsOverlap(c.serviceCIDR, other.serviceCIDR),
        `${c.bridge} and ${other.bridge}`,
      );
    }
  }
});
