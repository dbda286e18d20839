// `node src/main.ts` as a real process: bad flags exit 2 naming the flag, --help exits 0; against an
// API server it becomes ready, serves metrics and the failover hook, and on SIGTERM releases the Lease and exits 0.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { Lease } from '../../../src/runtime/leader-election.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'src/main.ts');
const TOPOLOGY_PASSWORD = 'Topo-Secret-0815';
const HOOK_SECRET = 'Hook-Secret-4711';

/** A kubeconfig file for the process: the test server's, written to a directory removed after the test, or TEST_KUBECONFIG. */
function kubeconfigPath(t: TestContext, env: KubeEnv): string {
  if (!env.server) return process.env.TEST_KUBECONFIG ?? '';
  const dir = mkdtempSync(join(tmpdir(), 'operator-main-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'kubeconfig');
  env.server.writeKubeconfig(path);
  return path;
}

describe('operator process', () => {
  it('refuses an invalid flag with exit code 2 and a message naming it', () => {
    const r = spawnSync(process.execPath, [MAIN, '--workers', 'lots'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--workers \(or WORKERS\): 'lots'/);
  });

  for (const flag of ['--help', '-h']) {
    it(`prints the usage on stdout and exits 0 for ${flag}, without the topology password it was given`, () => {
      const r = spawnSync(process.execPath, [MAIN, flag], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ORC_TOPOLOGY_PASSWORD: TOPOLOGY_PASSWORD },
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^usage: mysql-operator \[flags\]/);
      assert.match(r.stdout, /--workers +WORKERS /);
      assert.match(r.stdout, /--orchestrator-topology-password +ORC_TOPOLOGY_PASSWORD /);
      assert.doesNotMatch(r.stdout, new RegExp(TOPOLOGY_PASSWORD));
      assert.equal(r.stderr, '');
    });
  }

  it('runs against a kubeconfig, becomes ready, never logs the topology password, and on SIGTERM releases the Lease and exits 0', async (t) => {
    const env = await kubeEnv(t); // with the project's CRDs: the registered controllers watch them
    const kcPath = kubeconfigPath(t, env);

    const child: ChildProcess = spawn(
      process.execPath,
      [
        MAIN,
        '--kubeconfig',
        kcPath,
        '--namespace',
        env.namespace,
        '--leader-election-namespace',
        env.namespace,
        '--metrics-addr',
        '127.0.0.1:0',
        '--identity',
        'main-test',
        '--retry-period',
        '200ms',
      ],
      {
        env: {
          PATH: process.env.PATH,
          ORC_TOPOLOGY_USER: 'orc',
          ORC_TOPOLOGY_PASSWORD: TOPOLOGY_PASSWORD,
          FAILOVER_HOOK_SECRET: HOOK_SECRET,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    await eventually('the operator logs its metrics address', () => /"message":"operator started"/.test(out), 20_000).catch((e: Error) => {
      throw new Error(`${e.message}\nstdout:\n${out}\nstderr:\n${err}`);
    });
    const started = out.split('\n').find((l) => l.includes('"operator started"')) ?? '';
    const port = (JSON.parse(started) as { metrics: { port: number } }).metrics.port;
    await eventually('ready', async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /leader_election_is_leader\{lease="mysql-operator-leader-election"\} 1/);
    assert.match(metrics, /process_cpu_seconds_total/);
    assert.match(metrics, /rest_client_rate_limiter_duration_seconds_count [1-9]/, 'requests went through the rate limiter');
    // The orchestrator controller serves the failover hook with the secret of FAILOVER_HOOK_SECRET.
    const hook = (secret: string) =>
      fetch(`http://127.0.0.1:${port}/hooks/orchestrator/failover`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}` },
        body: `process=PreFailover&alias=none.${env.namespace}`,
      });
    assert.deepEqual([(await hook('wrong')).status, (await hook(HOOK_SECRET)).status], [401, 404]);

    child.kill('SIGTERM');
    assert.equal(await exited, 0, `exit code (stderr: ${err})`);
    const client = new KubeClient(env.kubeConfig);
    t.after(() => client.close());
    const lease = await client.get<Lease>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: env.namespace,
      name: 'mysql-operator-leader-election',
    });
    assert.ok(!lease.spec?.holderIdentity, 'the Lease was released');
    for (const line of out.split('\n').filter(Boolean)) JSON.parse(line);
    assert.doesNotMatch(out + err, new RegExp(TOPOLOGY_PASSWORD), 'the topology password is never logged');
    assert.doesNotMatch(out + err, new RegExp(HOOK_SECRET), 'the failover hook secret is never logged');
  });

  // Seen on a fresh machine: after "cannot start" the process hung in the manager's stop, and the
  // first SIGTERM did not end it. It must end on its own, non-zero, saying why; no signal is sent.
  it('exits non-zero on its own when it cannot start (its metrics port taken), saying why', { timeout: 60_000 }, async (t) => {
    const env = await kubeEnv(t);
    const kcPath = kubeconfigPath(t, env);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as AddressInfo).port;

    const child = spawn(
      process.execPath,
      [
        MAIN,
        '--kubeconfig',
        kcPath,
        '--namespace',
        env.namespace,
        '--leader-election-namespace',
        env.namespace,
        '--metrics-addr',
        `127.0.0.1:${port}`,
        '--identity',
        'main-test-taken',
        '--retry-period',
        '200ms',
      ],
      { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    assert.equal(signal, null, out);
    assert.notEqual(code, 0, out);
    assert.notEqual(code, null, out);
    const cannot = out.split('\n').find((l) => l.includes('"cannot start"'));
    assert.ok(cannot, out);
    assert.match(cannot, /EADDRINUSE/);
  });
});
