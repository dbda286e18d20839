// The life of containers under the sandbox kubelet: probes flip readiness and restart a dead
// container, a crashing container restarts with backoff, preStop runs before SIGTERM on deletion
// and the kubelet then deletes the pod, `kubectl logs` reads the current and previous runs, a
// finished pod ends Succeeded, an image no program plays leaves a clear waiting reason, and a
// finished container's termination message comes from its file or its log, with /dev intact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Pod } from '@kubernetes/client-node';
import { REASON_NO_LOCAL_PROGRAM } from '../../../sandbox/kubelet/images.ts';
import { eventually } from '../../support/wait.ts';
import { getPod, withKubelet, shellPod, SHELL_IMAGE, SKIP_REAL } from './harness.ts';

const KUBECTL = fileURLToPath(new URL('../../../.tools/bin/kubectl', import.meta.url));

function ready(p: V1Pod | undefined): string | undefined {
  return p?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

test('probes: readiness follows exec and httpGet checks, a failing liveness probe restarts the container', { skip: SKIP_REAL }, (t) =>
  withKubelet(t, {}, async (env) => {
    const { client, namespace: ns } = env;
    const flag = join(env.scratch, 'ready');
    const alive = join(env.scratch, 'alive');
    writeFileSync(alive, '');
    const port = await freePort();
    const server = `require('http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`;
    await client.create(
      shellPod(ns, 'probed', {
        containers: [
          {
            name: 'exec',
            image: SHELL_IMAGE,
            args: ['-c', 'exec sleep 1000'],
            volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
            startupProbe: { exec: { command: ['test', '-f', '/shared/alive'] }, periodSeconds: 1 },
            readinessProbe: { exec: { command: ['test', '-f', '/shared/ready'] }, periodSeconds: 1, failureThreshold: 1 },
            livenessProbe: { exec: { command: ['test', '-f', '/shared/alive'] }, periodSeconds: 1, failureThreshold: 2 },
          },
          {
            name: 'http',
            image: SHELL_IMAGE,
            command: [process.execPath, '-e', server],
            ports: [{ name: 'web', containerPort: port }],
            readinessProbe: { httpGet: { path: '/', port: 'web' }, periodSeconds: 1 },
            livenessProbe: { tcpSocket: { port }, periodSeconds: 1 },
          },
        ],
        volumes: [{ name: 'shared', hostPath: { path: env.scratch } }],
      }),
    );
    const notReady = await eventually('both containers to run, the exec one not ready', async () => {
      const p = await getPod(client, ns, 'probed');
      const cs = p?.status?.containerStatuses ?? [];
      return cs.length === 2 && cs.every((c) => c.state?.running && c.started) && cs.find((c) => c.name === 'http')?.ready && p;
    });
    assert.equal(ready(notReady), 'False');
    assert.equal(notReady.status?.containerStatuses?.find((c) => c.name === 'exec')?.ready, false);

    writeFileSync(flag, '');
    await eventually(
      'the pod to turn Ready once the readiness check passes',
      async () => ready(await getPod(client, ns, 'probed')) === 'True',
    );
    rmSync(flag);
    await eventually('the pod to turn not Ready again', async () => ready(await getPod(client, ns, 'probed')) === 'False');

    rmSync(alive);
    await eventually('the liveness probe to restart the exec container', async () => {
      const c = (await getPod(client, ns, 'probed'))?.status?.containerStatuses?.find((x) => x.name === 'exec');
      return (c?.restartCount ?? 0) >= 1 && c?.lastState?.terminated !== undefined;
    });
    const http = (await getPod(client, ns, 'probed'))?.status?.containerStatuses?.find((x) => x.name === 'http');
    assert.equal(http?.restartCount, 0, 'the container whose liveness holds is not restarted');
  }),
);

test('a crashing container restarts with backoff, and kubectl logs shows its current and previous runs', { skip: SKIP_REAL }, (t) =>
  withKubelet(t, { backoff: { baseMs: 300, maxMs: 1200 } }, async (env) => {
    const { client, namespace: ns } = env;
    const counter = join(env.scratch, 'runs');
    await client.create(
      shellPod(ns, 'crashy', {
        containers: [
          {
            name: 'app',
            image: SHELL_IMAGE,
            volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
            args: ['-c', 'echo x >> /shared/runs; echo "run $(wc -l < /shared/runs)"; echo "to stderr" >&2; exit 3'],
          },
        ],
        volumes: [{ name: 'shared', hostPath: { path: env.scratch } }],
      }),
    );
    const backingOff = await eventually('the container to be in CrashLoopBackOff after restarts', async () => {
      const c = (await getPod(client, ns, 'crashy'))?.status?.containerStatuses?.[0];
      return c?.state?.waiting?.reason === 'CrashLoopBackOff' && (c.restartCount ?? 0) >= 1 && c;
    });
    assert.equal(backingOff.lastState?.terminated?.exitCode, 3);
    assert.equal(backingOff.lastState?.terminated?.reason, 'Error');
    assert.match(backingOff.state?.waiting?.message ?? '', /^back-off \d+s restarting failed container=app pod=crashy_/);
    await eventually(
      'more restarts',
      async () => ((await getPod(client, ns, 'crashy'))?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 3,
    );
    const phase = (await getPod(client, ns, 'crashy'))?.status?.phase;
    assert.equal(phase, 'Running', 'a restarting pod of restartPolicy Always stays Running');

    const kubeconfig = join(env.scratch, 'kubeconfig');
    env.server!.writeKubeconfig(kubeconfig);
    // Not spawnSync: the API server and the kubelet kubectl talks to live in this process.
    const kubectl = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(KUBECTL, ['--kubeconfig', kubeconfig, '-n', ns, ...args], (err, stdout, stderr) =>
          resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
        );
      });
    const runs = () => readFileSync(counter, 'utf8').trim().split('\n').length;
    const prev = await eventually('kubectl logs --previous to show the run before the current one', async () => {
      const n = runs();
      const r = await kubectl('logs', 'crashy', '--previous');
      const m = /run (\d+)/.exec(r.stdout);
      return r.status === 0 && m !== null && Number(m[1]) < n && r;
    });
    assert.match(prev.stdout, /to stderr/, 'stderr is in the log too');
    // A run that has just started has written nothing yet (as on a node): its log fills as it runs.
    const cur = await eventually('kubectl logs to show the current run', async () => {
      const r = await kubectl('logs', 'crashy', '-c', 'app');
      assert.equal(r.status, 0, r.stderr);
      return /run \d+/.test(r.stdout) && r;
    });
    assert.match(
      cur.stdout,
      /^\[sandbox kubelet\] image registry\.test\/test-shell:1 runs as /,
      'the log opens with what the image runs as',
    );
  }),
);

test('deleting a pod runs preStop before SIGTERM, then the kubelet deletes the pod; kubectl logs -f follows', { skip: SKIP_REAL }, (t) =>
  withKubelet(t, {}, async (env) => {
    const { client, namespace: ns } = env;
    const order = join(env.scratch, 'order');
    await client.create(
      shellPod(ns, 'graceful', {
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: 'app',
            image: SHELL_IMAGE,
            volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
            args: ['-c', 'trap "echo TERM >> /shared/order; echo got TERM; exit 0" TERM; echo serving; while true; do sleep 0.1; done'],
            lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo preStop >> /shared/order'] } } },
          },
        ],
        volumes: [{ name: 'shared', hostPath: { path: env.scratch } }],
      }),
    );
    await eventually('the pod to run', async () => (await getPod(client, ns, 'graceful'))?.status?.containerStatuses?.[0]?.state?.running);

    const kubeconfig = join(env.scratch, 'kubeconfig');
    env.server!.writeKubeconfig(kubeconfig);
    const follower = spawn(KUBECTL, ['--kubeconfig', kubeconfig, '-n', ns, 'logs', '-f', 'graceful'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let followed = '';
    follower.stdout.on('data', (b: Buffer) => (followed += b.toString()));
    const followerDone = new Promise((resolve) => follower.on('close', resolve));
    await eventually('kubectl logs -f to show the output so far', () => followed.includes('serving'));

    await client.delete({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'graceful' });
    await eventually('the kubelet to delete the pod for good', async () => (await getPod(client, ns, 'graceful')) === undefined);
    assert.equal(readFileSync(order, 'utf8'), 'preStop\nTERM\n');
    await followerDone;
    assert.match(followed, /got TERM/, "the follower saw the output up to the container's end");
    assert.deepEqual(readdirSync(join(env.workDir, 'pods')), [], "the pod's directory is removed");
  }),
);

test(
  'a pod of restartPolicy OnFailure ends Succeeded; an image with no local program waits with a clear reason',
  { skip: SKIP_REAL },
  (t) =>
    withKubelet(t, {}, async (env) => {
      const { client, namespace: ns } = env;
      await client.create(
        shellPod(ns, 'job-like', {
          restartPolicy: 'OnFailure',
          containers: [{ name: 'once', image: SHELL_IMAGE, args: ['-c', 'echo done'] }],
        }),
      );
      await client.create(shellPod(ns, 'unknown', { containers: [{ name: 'mystery', image: 'example.com/no-such-thing:1.0' }] }));
      const done = await eventually('the pod to succeed', async () => {
        const p = await getPod(client, ns, 'job-like');
        return p?.status?.phase === 'Succeeded' && p;
      });
      assert.equal(done.status?.containerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
      const waiting = await eventually(
        'the unknown image to wait',
        async () => (await getPod(client, ns, 'unknown'))?.status?.containerStatuses?.[0]?.state?.waiting,
      );
      assert.equal(waiting.reason, REASON_NO_LOCAL_PROGRAM);
      assert.match(waiting.message ?? '', /no local program for image example\.com\/no-such-thing:1\.0/);
      assert.equal((await getPod(client, ns, 'unknown'))?.status?.phase, 'Pending');
    }),
);

test('a readiness gate holds Ready until its owner sets it, and the kubelet keeps conditions it does not own', { skip: SKIP_REAL }, (t) =>
  withKubelet(t, {}, async (env) => {
    const { client, namespace: ns } = env;
    const gate = 'example.com/replicated';
    await client.create(
      shellPod(ns, 'gated', {
        readinessGates: [{ conditionType: gate }],
        containers: [{ name: 'app', image: SHELL_IMAGE, args: ['-c', 'exec sleep 1000'] }],
      }),
    );
    const waiting = await eventually('the container to be ready while the pod waits for its gate', async () => {
      const p = await getPod(client, ns, 'gated');
      return p?.status?.conditions?.find((c) => c.type === 'ContainersReady')?.status === 'True' && p;
    });
    assert.equal(ready(waiting), 'False');
    assert.equal(waiting.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'ReadinessGatesNotReady');

    // The gate's owner writes its condition the way a controller does: a strategic merge of the status.
    await client.patchStatus(
      { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'gated' },
      {
        status: { conditions: [{ type: gate, status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] },
      },
      'strategic',
    );
    await eventually('the pod to turn Ready', async () => ready(await getPod(client, ns, 'gated')) === 'True');
    const after = await getPod(client, ns, 'gated');
    assert.equal(after?.status?.conditions?.find((c) => c.type === gate)?.status, 'True', "the gate's condition is kept");
  }),
);

test("a hostNetwork pod gets the node's address and hostname, and the host's /etc/hosts", { skip: SKIP_REAL }, (t) =>
  withKubelet(t, {}, async (env) => {
    const { client, namespace: ns } = env;
    await client.create(
      shellPod(ns, 'on-host', {
        hostNetwork: true,
        restartPolicy: 'Never',
        containers: [
          {
            name: 'c',
            image: SHELL_IMAGE,
            volumeMounts: [{ name: 'out', mountPath: '/out' }],
            args: ['-c', 'echo "$(hostname) $HOSTNAME" > /out/names; cat /etc/hosts > /out/hosts'],
          },
        ],
        volumes: [{ name: 'out', hostPath: { path: env.scratch } }],
      }),
    );
    const done = await eventually('the pod to succeed', async () => {
      const p = await getPod(client, ns, 'on-host');
      return p?.status?.phase === 'Succeeded' && p;
    });
    assert.equal(done.status?.podIP, done.status?.hostIP);
    assert.equal(readFileSync(join(env.scratch, 'names'), 'utf8'), `${hostname()} ${hostname()}\n`);
    assert.equal(readFileSync(join(env.scratch, 'hosts'), 'utf8'), readFileSync('/etc/hosts', 'utf8'));
  }),
);

/** What the host's /dev holds and has mounted, to see that containers leave it as it was. */
function hostDev(): string {
  return execFileSync('sh', ['-c', 'ls -la --time-style=+ /dev; findmnt -R -n -o TARGET,FSTYPE /dev'], { encoding: 'utf8' });
}

test(
  "a container's termination message is the end of its terminationMessagePath file, or with FallbackToLogsOnError and an error the end of its log; /dev works inside",
  { skip: SKIP_REAL },
  (t) =>
    withKubelet(t, {}, async (env) => {
      const { client, namespace: ns } = env;
      const devBefore = hostDev();
      // What a program relies on in /dev: the null and random devices, a pseudo-terminal (ptmx and
      // the devpts mount), shared memory, the /proc/self/fd links.
      const devChecks = [
        'echo x > /dev/null',
        'test "$(head -c 16 /dev/urandom | wc -c)" = 16',
        'script -q -c tty /dev/null | grep -q "^/dev/pts/"',
        'grep -q " /dev/pts devpts " /proc/self/mounts',
        'grep -q " /dev/shm tmpfs " /proc/self/mounts',
        'test "$(readlink /dev/fd)" = /proc/self/fd',
        'test -e /dev/stdout',
      ].join(' && ');
      const node = `require('fs').writeFileSync('/dev/termination-log', 'a'.repeat(1000) + 'b'.repeat(4096))`;
      await client.create(
        shellPod(ns, 'messages', {
          restartPolicy: 'Never',
          containers: [
            { name: 'report', image: SHELL_IMAGE, args: ['-c', `${devChecks} && printf 'the report\\n' > /dev/termination-log`] },
            {
              name: 'custom-path',
              image: SHELL_IMAGE,
              terminationMessagePath: '/var/report/msg',
              args: ['-c', 'echo elsewhere > /var/report/msg; exit 4'],
            },
            { name: 'node', image: SHELL_IMAGE, command: [process.execPath, '-e', node] },
            {
              name: 'fallback',
              image: SHELL_IMAGE,
              terminationMessagePolicy: 'FallbackToLogsOnError',
              args: ['-c', 'for i in $(seq 1 100); do echo "line $i"; done; exit 2'],
            },
            { name: 'file-only', image: SHELL_IMAGE, terminationMessagePolicy: 'File', args: ['-c', 'echo logged; exit 2'] },
            { name: 'fallback-ok', image: SHELL_IMAGE, terminationMessagePolicy: 'FallbackToLogsOnError', args: ['-c', 'echo logged'] },
          ],
        }),
      );
      const done = await eventually('the pod to end', async () => {
        const p = await getPod(client, ns, 'messages');
        return (p?.status?.phase === 'Failed' || p?.status?.phase === 'Succeeded') && p;
      });
      const terminated = (name: string) => done.status?.containerStatuses?.find((c) => c.name === name)?.state?.terminated;
      assert.equal(
        terminated('report')?.exitCode,
        0,
        '/dev inside the container works as on the host (see the log with KUBELET_TEST_DEBUG=1)',
      );
      assert.equal(terminated('report')?.message, 'the report\n');
      assert.equal(terminated('custom-path')?.message, 'elsewhere\n');
      assert.equal(terminated('node')?.message, 'b'.repeat(4096), 'the last 4096 bytes, as the kubelet reads them');
      const tail = Array.from({ length: 80 }, (_, i) => `line ${i + 21}\n`).join('');
      assert.equal(terminated('fallback')?.message, tail, "the log's last 80 lines");
      assert.equal(terminated('file-only')?.message, undefined, 'policy File: no file content, no message');
      assert.equal(terminated('fallback-ok')?.message, undefined, 'a zero exit does not fall back to the log');
      assert.equal(hostDev(), devBefore, "the host's /dev is unchanged");
      assert.equal(existsSync('/dev/termination-log'), false);
    }),
);

test('each run of a container gets a fresh termination message file', { skip: SKIP_REAL }, (t) =>
  withKubelet(t, {}, async (env) => {
    const { client, namespace: ns } = env;
    await client.create(
      shellPod(ns, 'rerun', {
        restartPolicy: 'OnFailure',
        containers: [
          {
            name: 'app',
            image: SHELL_IMAGE,
            volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
            args: [
              '-c',
              'if [ -e /shared/ran ]; then cat /dev/termination-log; exit 0; fi; : > /shared/ran; echo first > /dev/termination-log; exit 1',
            ],
          },
        ],
        volumes: [{ name: 'shared', hostPath: { path: env.scratch } }],
      }),
    );
    const c = await eventually('the second run to succeed', async () => {
      const p = await getPod(client, ns, 'rerun');
      return p?.status?.phase === 'Succeeded' && p.status.containerStatuses?.[0];
    });
    assert.equal(c.lastState?.terminated?.message, 'first\n');
    assert.equal(c.state?.terminated?.message, undefined, 'the second run found its file empty');
  }),
);
