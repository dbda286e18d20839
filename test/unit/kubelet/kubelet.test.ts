// The sandbox kubelet's pure parts: the images table, where overlays go and the mounts they would
// hide, the pod phase and the status patch (only the kubelet's own conditions), what a volume is
// or waits for, and a finished container's termination message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { PT_KILL_PROGRAM } from '../../../src/api/pod-contract.ts';
import { parseImage, resolveImage, REASON_NO_LOCAL_PROGRAM } from '../../../sandbox/kubelet/images.ts';
import { DIST } from '../../../scripts/build.ts';
import { apiServerEnv } from '../../../sandbox/kubelet/env.ts';
import {
  fstabField,
  inRoot,
  overlaysFor,
  setupScript,
  submountsUnder,
  type HostEntry,
  type Mount,
} from '../../../sandbox/kubelet/launch.ts';
import { podPhase, podStatusPatch, type ContainerRecord, type PodRuntime } from '../../../sandbox/kubelet/status.ts';
import { volumeSource, type VolumeContext } from '../../../sandbox/kubelet/volumes.ts';
import { lastLines, MAX_LOG_BYTES, terminationMessage } from '../../../sandbox/kubelet/termination-message.ts';
import { nextProbeDelayMs } from '../../../sandbox/kubelet/probes.ts';

// The StatefulSets rendered per flavour (golden files) and the anchor's (recorded fixture).
const STATEFULSET_DIRS = ['../../golden/cluster/flavours/', '../../fixtures/anchor-v0.6.3/'].map((d) =>
  fileURLToPath(new URL(d, import.meta.url)),
);

test('every image the operator renders has a local program', () => {
  const images = new Set<string>();
  for (const dir of STATEFULSET_DIRS) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('statefulset.yaml'))) {
      const sts = parseAllDocuments(readFileSync(`${dir}${f}`, 'utf8'))[0]!.toJS() as V1StatefulSet;
      const spec = sts.spec!.template.spec!;
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) images.add(c.image!);
    }
  }
  assert.ok(images.size >= 8);
  for (const image of images) assert.equal(resolveImage(image, [], []).ok, true, image);
});

test("server images run the entrypoint on mariadbd and say so; the container's command replaces the entrypoint", () => {
  const r = resolveImage('percona@sha256:caab4e854bd75040d07802bf1862bfef1d2b4db0acbc9c4aaf5c21c698fdd393', [], []);
  assert.ok(r.ok);
  assert.match(r.argv[1]!, /mysql-entrypoint\.sh$/);
  assert.equal(r.argv.at(-1), 'mysqld', 'the image default CMD');
  assert.match(r.description, /local mariadbd\) standing in for percona$/);
  assert.deepEqual(r.privateDirs, ['/run/mysqld']);
  const own = resolveImage('docker.io/library/mariadb:10.11.10', ['/bin/true'], ['x']);
  assert.ok(own.ok);
  assert.deepEqual(own.argv, ['/bin/true', 'x']);
});

test('the sidecar and operator images run this checkout; orchestrator falls back to the stand-in, said plainly', () => {
  const sidecar = resolveImage('docker.io/bitpoke/mysql-operator-sidecar-8.0:v0.6.3', [], ['clone-and-init']);
  assert.ok(sidecar.ok);
  assert.deepEqual(sidecar.argv.slice(0, 1), [process.execPath]);
  assert.match(sidecar.argv[1]!, /src\/sidecar\/main\.ts$/);
  assert.equal(sidecar.argv[2], 'clone-and-init');
  // npm run sandbox runs what the images ship: the built JavaScript.
  const built = resolveImage('mysql-operator-sidecar:latest', [], ['take-backup-to'], { built: true });
  assert.ok(built.ok);
  assert.deepEqual(built.argv.slice(1), [DIST.sidecar, 'take-backup-to']);
  assert.match(built.description, /node dist\/sidecar\/main\.js/);
  const operator = resolveImage('mysql-operator:latest', [], ['--help'], { built: true });
  assert.ok(operator.ok);
  assert.deepEqual(operator.argv.slice(1), [DIST.operator, '--help']);
  // The checkout's node programs share one compile cache (a process start is what costs here);
  // the image's environment only, under the container's own variables.
  for (const r of [sidecar, built, operator])
    assert.match(r.ok ? (r.env.NODE_COMPILE_CACHE ?? '') : '', /node_modules\/\.cache\/node-compile-cache$/);
  const server = resolveImage('docker.io/library/mariadb:10.11.10', [], []);
  assert.deepEqual(server.ok && server.env, {}, 'an image played by a Debian program keeps its environment as it is');
  const ptKill = resolveImage('mysql-operator-sidecar:latest', [], [PT_KILL_PROGRAM, '--print']);
  assert.ok(ptKill.ok);
  assert.deepEqual(ptKill.argv, [PT_KILL_PROGRAM, '--print'], "pt-kill is the image's own program, Debian's percona-toolkit here");
  const orc = resolveImage('docker.io/bitpoke/mysql-operator-orchestrator:v0.6.3', [], [], { path: '/nonexistent' });
  assert.ok(orc.ok);
  assert.equal(orc.standIn, true);
  assert.match(orc.description, /stand-in .*not a real Orchestrator/);
  assert.deepEqual(orc.argv.slice(-4), ['--listen', '0.0.0.0:3000', '--config', '/etc/orchestrator/orchestrator.conf.json']);
});

test('an image with no local program gets a waiting reason naming it', () => {
  const r = resolveImage('quay.io/someone/thing:2', [], []);
  assert.deepEqual(r, {
    ok: false,
    reason: REASON_NO_LOCAL_PROGRAM,
    message: 'no local program for image quay.io/someone/thing:2 (the sandbox maps images in sandbox/kubelet/images.ts)',
  });
  assert.deepEqual(parseImage('localhost:5000/library/mariadb:11'), { name: 'mariadb', repository: 'mariadb', tag: '11' });
});

test('a missing mount point below the top level gets one overlay over its deepest existing parent', () => {
  const exists = (p: string) => ['/', '/etc', '/etc/mysql', '/var', '/var/lib'].includes(p);
  const m = (target: string): Mount => ({ source: '/src', target, readOnly: false, file: false });
  assert.deepEqual(overlaysFor([m('/etc/mysql'), m('/data'), m('/etc/mysql/a/b'), m('/etc/mysql/c'), m('/var/lib/x')], exists), [
    '/etc/mysql',
    '/var/lib',
  ]);
  assert.deepEqual(overlaysFor([m('/etc/new/deep'), m('/etc/mysql/x')], exists), ['/etc'], 'an overlay inside another is dropped');
});

test('a container launch starts the same few processes however many entries the host root and the pod have', () => {
  // What costs here is a process start: the script must not start one per entry or per volume.
  const host = (n: number): HostEntry[] => [
    ...Array.from({ length: n }, (_, i) => ({ name: `d${i}`, kind: 'dir' as const })),
    { name: 'bin', kind: 'link' },
    { name: 'lib', kind: 'link' },
    { name: '.dockerenv', kind: 'file' },
  ];
  const vol = (i: number): Mount => ({ source: `/v/${i}`, target: `/data/${i}`, readOnly: i % 2 === 0, file: false });
  const spec = (volumes: number) => ({
    netns: 'ns',
    hostname: 'pod-0',
    mounts: Array.from({ length: volumes }, (_, i) => vol(i)),
    workingDir: undefined,
    scratch: '/tmp/k/scratch',
    argv: ['true'],
  });
  const processes = (script: string) =>
    script.split('\n').filter((l) => /^(mount|mkdir|cp|ln|readlink|hostname)\b/.test(l.replace(/^\[ .*\] \|\| \{ /, ''))).length;
  const small = setupScript(spec(1), ['/etc'], [], host(3));
  const large = setupScript(spec(12), ['/etc'], [], host(30));
  assert.equal(processes(large), processes(small), large);
  assert.ok(processes(large) <= 6, large);
  // Each entry is a line of an fstab file: binds recursive but for the scratch's own top level.
  assert.match(large, /'\/d0 \/tmp\/k\/scratch\/root\/d0 none rbind 0 0'/);
  assert.match(large, /'\/v\/0 \/tmp\/k\/scratch\/root\/data\/0 none bind,ro,X-mount.mkdir 0 0'/);
  assert.match(large, /'\/v\/1 \/tmp\/k\/scratch\/root\/data\/1 none bind,X-mount.mkdir 0 0'/);
  assert.match(large, /cp -P -t '\/tmp\/k\/scratch\/root' '\/bin' '\/lib'/);
});

test('a file mount point is made after the mounts before it, and fstab fields escape what would split them', () => {
  const mounts: Mount[] = [
    { source: '/v/conf', target: '/etc/mysql', readOnly: false, file: false },
    { source: '/v/my file', target: '/etc/mysql/my.cnf', readOnly: true, file: true },
  ];
  const script = setupScript({ netns: '', hostname: undefined, mounts, workingDir: '/', scratch: '/s', argv: ['x'] }, [], [], []);
  const lines = script.split('\n');
  const made = lines.findIndex((l) => l.includes(": > '/s/root/etc/mysql/my.cnf'"));
  const firstMountAll = lines.findIndex((l) => l.startsWith('mount -a'));
  assert.ok(firstMountAll >= 0 && firstMountAll < made, 'the volume holding the file is mounted before the file is made');
  assert.ok(
    lines.slice(made).some((l) => l.includes('/v/my\\040file /s/root/etc/mysql/my.cnf none bind,ro 0 0')),
    script,
  );
  assert.equal(fstabField('a b\tc\\d\ne'), 'a\\040b\\011c\\134d\\012e');
});

test("an overlay brings back the host's outermost mounts below it (/dev/pts, /dev/shm under /dev)", () => {
  const mounts = ['/', '/dev', '/dev/shm', '/dev/shm', '/dev/pts', '/dev/pts/inner', '/devices', '/proc'];
  assert.deepEqual(submountsUnder('/dev', mounts), ['/dev/shm', '/dev/pts']);
  assert.deepEqual(submountsUnder('/etc/mysql', mounts), []);
});

test("the termination message: the file, else with FallbackToLogsOnError after an error the log's last 80 lines within 2048 bytes", () => {
  const log = (text: string) => () => Buffer.from(text);
  const noLog = () => assert.fail('the log is read only for the fallback');
  assert.equal(
    terminationMessage({ policy: 'FallbackToLogsOnError', exitCode: 1, file: Buffer.from('report'), logTail: noLog }),
    'report',
    'a written file wins',
  );
  assert.equal(terminationMessage({ policy: 'File', exitCode: 1, file: Buffer.alloc(0), logTail: noLog }), undefined);
  assert.equal(terminationMessage({ policy: 'FallbackToLogsOnError', exitCode: 0, file: Buffer.alloc(0), logTail: noLog }), undefined);
  assert.equal(
    terminationMessage({ policy: 'FallbackToLogsOnError', exitCode: 3, file: undefined, logTail: log('boom\n') }),
    'boom\n',
    'no file at all falls back too',
  );
  assert.equal(
    terminationMessage({ policy: 'FallbackToLogsOnError', exitCode: 3, file: Buffer.alloc(0), logTail: log('') }),
    undefined,
    'an empty log: no message',
  );
  const long = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(3, '0')} ${'x'.repeat(95)}\n`).join('');
  const msg = terminationMessage({ policy: 'FallbackToLogsOnError', exitCode: 1, file: Buffer.alloc(0), logTail: log(long) })!;
  assert.equal(msg, long.slice(-MAX_LOG_BYTES), 'long lines: the last 2048 bytes');
  assert.equal(lastLines('a\nb\nc\n', 2), 'b\nc\n');
  assert.equal(lastLines('a\nb\nc', 2), 'b\nc', 'an unfinished last line counts');
  assert.equal(lastLines('a\nb\n', 5), 'a\nb\n');
});

test('a mount point through a host symlink is taken where the link leads, inside the container root', () => {
  const real: Record<string, string> = { '/': '/', '/var': '/var', '/var/run': '/run', '/etc': '/etc', '/etc/mysql': '/etc/mysql' };
  const realpath = (p: string) => real[p];
  assert.equal(inRoot('/var/run/secrets/kubernetes.io/serviceaccount', realpath), '/run/secrets/kubernetes.io/serviceaccount');
  assert.equal(inRoot('/etc/mysql/conf.d', realpath), '/etc/mysql/conf.d');
  assert.equal(inRoot('/data', realpath), '/data');
});

test('the API server named by the apiServer option is in every container as the kubernetes Service', () => {
  assert.deepEqual(apiServerEnv({ host: '10.213.4.1', port: 6443 }), {
    KUBERNETES_SERVICE_HOST: '10.213.4.1',
    KUBERNETES_SERVICE_PORT: '6443',
    KUBERNETES_SERVICE_PORT_HTTPS: '6443',
    KUBERNETES_PORT: 'tcp://10.213.4.1:6443',
    KUBERNETES_PORT_6443_TCP: 'tcp://10.213.4.1:6443',
    KUBERNETES_PORT_6443_TCP_PROTO: 'tcp',
    KUBERNETES_PORT_6443_TCP_PORT: '6443',
    KUBERNETES_PORT_6443_TCP_ADDR: '10.213.4.1',
  });
  assert.deepEqual(apiServerEnv(undefined), {});
});

function rec(name: string, state: ContainerRecord['state'], extra: Partial<ContainerRecord> = {}): ContainerRecord {
  return { name, image: 'i', state, lastState: undefined, restartCount: 0, ready: false, started: false, containerID: undefined, ...extra };
}

function runtime(containers: ContainerRecord[], extra: Partial<PodRuntime> = {}): PodRuntime {
  return {
    init: [],
    containers,
    initialized: true,
    initFailed: false,
    podIP: '10.0.0.2',
    hostIP: '10.0.0.1',
    startTime: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

const done = (exitCode: number): ContainerRecord['state'] => ({
  terminated: { exitCode, reason: exitCode ? 'Error' : 'Completed', startedAt: 't', finishedAt: 't' },
});

test("a probe runs every periodSeconds from one run's start to the next, and at once after a run that overran it", () => {
  assert.equal(nextProbeDelayMs(10_000, 10_400, 1), 600);
  assert.equal(nextProbeDelayMs(10_000, 10_000, 2), 2000);
  assert.equal(nextProbeDelayMs(10_000, 11_300, 1), 0);
  assert.equal(nextProbeDelayMs(10_000, 10_000), 10_000, "the API's default period");
});

test('the phase follows the restart policy', () => {
  const pod = (restartPolicy: string): V1Pod => ({ spec: { restartPolicy, containers: [] } });
  assert.equal(podPhase(pod('Always'), runtime([rec('a', done(0))])), 'Running');
  assert.equal(podPhase(pod('OnFailure'), runtime([rec('a', done(0))])), 'Succeeded');
  assert.equal(podPhase(pod('OnFailure'), runtime([rec('a', done(1))])), 'Running');
  assert.equal(podPhase(pod('Never'), runtime([rec('a', done(0)), rec('b', done(2))])), 'Failed');
  assert.equal(podPhase(pod('Always'), runtime([rec('a', { waiting: { reason: 'ContainerCreating' } })])), 'Pending');
  assert.equal(podPhase(pod('Always'), runtime([], { initialized: false })), 'Pending');
  assert.equal(podPhase(pod('Never'), runtime([], { initialized: false, initFailed: true })), 'Failed');
});

test("the status patch names only the kubelet's conditions and waits for readiness gates", () => {
  const pod: V1Pod = {
    spec: { containers: [], readinessGates: [{ conditionType: 'example.com/gate' }] },
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'example.com/gate', status: 'False' },
      ],
    },
  };
  const patch = podStatusPatch(pod, runtime([rec('a', { running: { startedAt: 't' } }, { ready: true, started: true })]));
  const conditions = patch.conditions as Array<{ type: string; status: string; message: string | null }>;
  assert.deepEqual(
    conditions.map((c) => c.type),
    ['Initialized', 'Ready', 'ContainersReady'],
  );
  assert.equal(conditions.find((c) => c.type === 'ContainersReady')?.status, 'True');
  const readyCond = conditions.find((c) => c.type === 'Ready')!;
  assert.equal(readyCond.status, 'False');
  assert.equal(readyCond.message, 'the status of pod readiness gate "example.com/gate" is not "True", but False');
  const gated = {
    ...pod,
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'example.com/gate', status: 'True' },
      ],
    },
  };
  const ok = (
    podStatusPatch(gated, runtime([rec('a', { running: { startedAt: 't' } }, { ready: true })])).conditions as typeof conditions
  ).find((c) => c.type === 'Ready')!;
  assert.deepEqual([ok.status, ok.message], ['True', null], 'a True condition clears an earlier message');
});

test("condition times come from the kubelet's own last status, so a stale copy of the pod cannot make the writes flip", () => {
  const since = '2026-01-01T00:00:00Z';
  // The API's copy still says not ready: the kubelet's write that made it Ready has not come back yet.
  const stale: V1Pod = {
    spec: { containers: [] },
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'False', lastTransitionTime: '2025-12-31T23:59:00Z' as unknown as Date },
      ],
    },
  };
  const rt = runtime([rec('a', { running: { startedAt: 't' } }, { ready: true, started: true })]);
  const first = podStatusPatch(stale, rt);
  const previous = { ...first, conditions: first.conditions.map((c) => ({ ...c, lastTransitionTime: since })) };
  const again = podStatusPatch(stale, rt, previous);
  assert.deepEqual(again, previous, 'the same runtime gives the same patch: nothing more to write');
  const notReady = podStatusPatch(stale, runtime([rec('a', { running: { startedAt: 't' } }, { ready: false, started: true })]), previous);
  const ready = notReady.conditions.find((c) => c.type === 'Ready')!;
  assert.equal(ready.status, 'False');
  assert.notEqual(ready.lastTransitionTime, since, 'a real transition takes a new time');
});

test("volumes: a missing required object waits with the kubelet's message, an optional one is empty, an unbound claim uses the work dir", () => {
  const ctx: VolumeContext = {
    pod: { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [] } },
    podDir: '/w/pods/u',
    workDir: '/w',
    allocatable: {},
    serviceAccountToken: '',
    secrets: new Map([['s', undefined]]),
    configMaps: new Map([['c', { data: { a: '1' } }]]),
    claims: new Map([['data', { spec: {} }]]),
    volumes: new Map(),
  };
  assert.deepEqual(volumeSource({ name: 'v', secret: { secretName: 's' } }, ctx), {
    kind: 'wait',
    message: 'MountVolume.SetUp failed for volume "v": secret "s" not found',
  });
  const optional = volumeSource({ name: 'v', secret: { secretName: 's', optional: true } }, ctx);
  assert.ok(optional.kind === 'files' && optional.files.size === 0);
  assert.deepEqual(volumeSource({ name: 'v', configMap: { name: 'c', items: [{ key: 'b', path: 'b' }] } }, ctx), {
    kind: 'wait',
    message: 'MountVolume.SetUp failed for volume "v": configmap references non-existent config key: b',
  });
  assert.deepEqual(volumeSource({ name: 'd', persistentVolumeClaim: { claimName: 'data' } }, ctx), {
    kind: 'dir',
    path: '/w/volumes/ns/data',
    readOnly: false,
  });
  assert.deepEqual(volumeSource({ name: 'd', persistentVolumeClaim: { claimName: 'other' } }, ctx), {
    kind: 'wait',
    message: 'persistentvolumeclaim "other" not found',
  });
});
