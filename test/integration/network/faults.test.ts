// The sandbox's link faults (sandbox/faults/, docs/sandbox-faults.md) on the pod network alone:
// a delayed link shows in a measured round trip, a partition blocks connections both ways and
// through the Service proxy until undone, and clear() leaves no rule and no delayer behind.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { test, type TestContext } from 'node:test';
import { DELAY_QUEUE, FAULT_CHAIN, IPTABLES, LinkFaults } from '../../../sandbox/faults/index.ts';
import type { PodNetworkAttachment } from '../../../sandbox/network/index.ts';
import { eventually } from '../../support/wait.ts';
import { createService, echoServer, greeting, inPod, networkEnv, output, runningPod, skipReason } from './helpers.ts';

function faultSkip(): string | undefined {
  const base = skipReason();
  if (base) return base;
  if (spawnSync(IPTABLES, ['--version']).status !== 0) return `needs ${IPTABLES} (Debian's iptables; scripts/install-deps.sh)`;
  if (spawnSync('python3', ['--version']).status !== 0) return 'needs python3 (the delayer, sandbox/faults/nfqueue-delay.py)';
  return undefined;
}
const skip = faultSkip();

/** From inside `from`: the time (ms) of each of `n` TCP connects to host:port, or -1 for a failed one. */
async function connectTimes(t: TestContext, from: PodNetworkAttachment, host: string, port: number, n: number): Promise<number[]> {
  const code = `
    const [host, port, n] = process.argv.slice(1);
    const net = require('node:net');
    (async () => {
      const out = [];
      for (let i = 0; i < Number(n); i++) {
        out.push(await new Promise((resolve) => {
          const began = process.hrtime.bigint();
          const s = net.connect({ host, port: Number(port), timeout: 5000 });
          s.once('connect', () => { resolve(Number(process.hrtime.bigint() - began) / 1e6); s.destroy(); });
          s.once('timeout', () => { resolve(-1); s.destroy(); });
          s.once('error', () => resolve(-1));
        }));
      }
      console.log(JSON.stringify(out));
    })();`;
  return JSON.parse(await output(inPod(t, from, code, [host, String(port), String(n)]))) as number[];
}

function rulesIn(netns: string): string[] {
  try {
    return execFileSync('ip', ['netns', 'exec', netns, IPTABLES, '-S', FAULT_CHAIN], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.startsWith('-A'));
  } catch {
    return [];
  }
}

function delayersIn(netns: string): number {
  const pids = execFileSync('ip', ['netns', 'pids', netns], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /^\d+$/.test(l));
  return pids.filter((pid) => {
    try {
      return execFileSync('cat', [`/proc/${pid}/cmdline`], { encoding: 'utf8' }).includes('nfqueue-delay.py');
    } catch {
      return false;
    }
  }).length;
}

/** Two pods on the sandbox network, an echo server on port 7000 of one, and faults cleared at the end. */
async function echoPair(t: TestContext) {
  const env = await networkEnv(t);
  const server = await runningPod(env, 'server');
  const client = await runningPod(env, 'client');
  await echoServer(t, server.net, 'server', 7000);
  const faults = new LinkFaults();
  t.after(() => faults.clear());
  return { env, server, client, faults };
}

test('a delayed link: each packet in and out of the pod waits, so a TCP connect takes at least twice the delay; undo restores it', {
  skip,
}, async (t) => {
  const { server, client, faults } = await echoPair(t);
  const before = await connectTimes(t, client.net, server.net.ip, 7000, 5);
  const ms = 150;
  const fault = await faults.delay(server.net.netns, ms);
  const during = await connectTimes(t, client.net, server.net.ip, 7000, 5);
  t.diagnostic(
    `connect ms before: ${before.map((x) => x.toFixed(1)).join(', ')}; with ${ms} ms on the server's link: ${during.map((x) => x.toFixed(1)).join(', ')}`,
  );
  // The SYN waits on its way in, the SYN-ACK on its way out: the property of the fault itself.
  for (const x of during) assert.ok(x >= 2 * ms, `a connect through the delayed link took ${x} ms, less than 2 × ${ms}`);
  assert.equal(delayersIn(server.net.netns), 1, "one delayer runs in the pod's namespace");
  await fault.undo();
  assert.deepEqual(rulesIn(server.net.netns), [], 'undo removes the rules');
  assert.equal(delayersIn(server.net.netns), 0, 'undo ends the delayer');
  await eventually('connects to be quick again', async () =>
    (await connectTimes(t, client.net, server.net.ip, 7000, 3)).every((x) => x >= 0 && x < ms),
  );
  assert.equal(DELAY_QUEUE > 0, true);
});

test('a partition cuts the pod from other pods both ways and from the Service proxy; undo restores them', { skip }, async (t) => {
  const env = await networkEnv(t);
  const a = await runningPod(env, 'a', { labels: { app: 'a' } });
  const b = await runningPod(env, 'b');
  await echoServer(t, a.net, 'a', 7000);
  await echoServer(t, b.net, 'b', 7000);
  const svc = await createService(env, { name: 'a', selector: { app: 'a' }, ports: [{ port: 80, targetPort: 7000 }] });
  const ip = svc.spec!.clusterIP!;
  await eventually('the proxy to listen on the ClusterIP', () => env.net.listeners().some((l) => l.ip === ip));
  const fromHost = (): Promise<string> =>
    new Promise((resolve) => {
      const s = createConnection({ host: ip, port: 80, timeout: 5000 });
      s.once('timeout', () => {
        resolve('error:ETIMEDOUT');
        s.destroy();
      });
      s.once('data', (d) => {
        resolve(d.toString().trim());
        s.destroy();
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(`error:${e.code}`));
      s.once('close', () => resolve('closed'));
    });
  await eventually('the Service to reach a', async () => (await fromHost()) === 'a');
  assert.equal(await greeting(t, b.net, a.net.ip, 7000), 'a');
  assert.equal(await greeting(t, a.net, b.net.ip, 7000), 'b');

  const faults = new LinkFaults();
  t.after(() => faults.clear());
  const cut = await faults.partition(a.net.netns);
  const [ba, ab, viaProxy] = await Promise.all([greeting(t, b.net, a.net.ip, 7000), greeting(t, a.net, b.net.ip, 7000), fromHost()]);
  assert.equal(ba, 'error:ETIMEDOUT', 'b cannot reach a');
  assert.equal(ab, 'error:ETIMEDOUT', 'a cannot reach b');
  assert.notEqual(viaProxy, 'a', `the Service proxy cannot reach a (got ${viaProxy})`);
  // The pod's own loopback still works (exec probes, the pod's containers among themselves).
  assert.equal(await greeting(t, a.net, '127.0.0.1', 7000), 'a');

  await cut.undo();
  assert.deepEqual(rulesIn(a.net.netns), []);
  assert.equal(await greeting(t, b.net, a.net.ip, 7000), 'a');
  assert.equal(await greeting(t, a.net, b.net.ip, 7000), 'b');
  await eventually('the Service to reach a again', async () => (await fromHost()) === 'a');
});

test('clear() removes every rule and delayer left in place; loss validates its percent', { skip }, async (t) => {
  const env = await networkEnv(t);
  const a = await runningPod(env, 'a');
  const b = await runningPod(env, 'b');
  const faults = new LinkFaults();
  t.after(() => faults.clear());
  await faults.delay(a.net.netns, 50);
  await faults.partition(b.net.netns);
  await faults.loss(b.net.netns, 30);
  await assert.rejects(faults.loss(a.net.netns, 0), RangeError);
  await assert.rejects(faults.delay(a.net.netns, 20), /already delayed/);
  assert.equal(rulesIn(a.net.netns).length, 2);
  assert.equal(rulesIn(b.net.netns).length, 4);
  assert.equal(faults.active().length, 3);
  await faults.clear();
  assert.deepEqual(rulesIn(a.net.netns), []);
  assert.deepEqual(rulesIn(b.net.netns), []);
  assert.equal(delayersIn(a.net.netns), 0);
  assert.equal(faults.active().length, 0);
});

test("a delay between pods only: another pod's connect waits, the host's does not", { skip }, async (t) => {
  const { env, server, client, faults } = await echoPair(t);
  const ms = 150;
  await faults.delay(server.net.netns, ms, { podCIDR: env.net.addresses.podCIDR, gateway: env.net.addresses.gateway });
  const fromPod = await connectTimes(t, client.net, server.net.ip, 7000, 3);
  for (const x of fromPod) assert.ok(x >= 2 * ms, `a connect from another pod took ${x} ms, less than 2 × ${ms}`);
  const fromHost = async (): Promise<number> => {
    const began = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const s = createConnection({ host: server.net.ip, port: 7000, timeout: 5000 });
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', reject);
    });
    return Number(process.hrtime.bigint() - began) / 1e6;
  };
  await eventually('a connect from the host (the gateway) to pass undelayed', async () => (await fromHost()) < ms);
  t.diagnostic(`from another pod: ${fromPod.map((x) => x.toFixed(1)).join(', ')} ms`);
});
