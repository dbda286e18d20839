// One pod on this node, from its first sight to its removal: network, volumes, init containers in
// order, then the containers, each supervised with its probes and restarted by the pod's restart
// policy with the kubelet's backoff; on deletion preStop, SIGTERM, SIGKILL after the grace
// period, then the pod is deleted for good. Status is reported through `onChange`.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join, posix } from 'node:path';
import type { V1Container, V1PersistentVolume, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import type { KubeClient } from '../../src/runtime/kube/client.ts';
import type { EventRecorder } from '../../src/runtime/events.ts';
import type { Logger } from '../../src/runtime/logger.ts';
import { ContainerConfigError, containerEnv, expandArgs } from './env.ts';
import { HOST_HOSTS_FILE, RESOLV_CONF_PATH, type PodNetwork, type PodNetworkAttachment } from './host-network.ts';
import { resolveImage, type ImageTableOptions } from './images.ts';
import { launchArgv, mountOrder, type HostEntry, type Mount } from './launch.ts';
import { ProbeLoop, runAction, type ProbeTarget } from './probes.ts';
import { now, restarts, type ContainerRecord, type ContainerState, type PodRuntime } from './status.ts';
import { MAX_LOG_BYTES, MAX_MESSAGE_BYTES, terminationMessage } from './termination-message.ts';
import type { TokenSource } from './tokens.ts';
import {
  envData,
  referencedObjects,
  volumeSource,
  writeAtomically,
  type FileContent,
  type VolumeObjects,
  type VolumeSource,
} from './volumes.ts';

export interface WorkerContext {
  client: KubeClient;
  events: EventRecorder;
  log: Logger;
  workDir: string;
  nodeIP: string;
  allocatable: Readonly<Record<string, string>>;
  /** Pods of their own network. */
  network: PodNetwork;
  /** `hostNetwork: true` pods. */
  hostNetwork: PodNetwork;
  images: ImageTableOptions;
  /** Restart backoff: first delay and cap (the kubelet's 10 s and 5 min). */
  backoff: { baseMs: number; maxMs: number };
  /** How often configMap/secret volumes are compared with their objects. */
  volumeSyncMs: number;
  /** What a projected serviceAccountToken holds (tokens.ts). */
  serviceAccountToken: TokenSource;
  /** The `kubernetes` Service's variables (env.ts apiServerEnv). */
  apiServerEnv: Readonly<Record<string, string>>;
  onChange: (worker: PodWorker) => void;
}

interface Run {
  proc: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited: boolean;
  target: ProbeTarget;
  probes: ProbeLoop[];
  spec: V1Container;
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15, SIGABRT: 6, SIGSEGV: 11 };
const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function record(c: V1Container): ContainerRecord {
  return {
    name: c.name,
    image: c.image ?? '',
    state: { waiting: { reason: 'PodInitializing' } },
    lastState: undefined,
    restartCount: 0,
    ready: false,
    started: false,
    containerID: undefined,
  };
}

function hostRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The container path that gets a directory of the container's own instead of the host's. */
const CONTAINER_TMP = '/tmp';

/**
 * The entries of the host's `/` a container's root repeats (the shell's `/*` and `/.[!.]*`):
 * directories, symlinks, and other files (bound as files).
 */
function hostTopLevel(): HostEntry[] {
  return readdirSync('/', { withFileTypes: true })
    .filter((d) => d.name !== '.' && d.name !== '..')
    .map((d) => ({ name: d.name, kind: d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : 'file' }));
}

/** The host's mount points (an overlay over a directory must bring back the mounts below it). */
function hostMountPoints(): string[] {
  // mountinfo's fifth field, with space, tab, newline and backslash as octal escapes.
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[4]!.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
}

/** At most the last `max` bytes of a file, none before offset `from`; empty when it is missing. */
function readTail(path: string, max: number, from = 0): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(size - max, from);
    const buf = Buffer.alloc(Math.max(size - start, 0));
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, start));
  } finally {
    closeSync(fd);
  }
}

/** The pod's hostname as the kubelet sets it (spec.hostname, else the pod name; at most 63 characters). */
export function podHostname(pod: V1Pod): string {
  return (pod.spec?.hostname || pod.metadata?.name || '').slice(0, 63);
}

/** Under `<workDir>/logs/`: `<namespace>_<pod>_<uid>/<container>/<restartCount>.log` of each removed pod. */
const REMOVED_POD_LOGS = 'removed-pods';

export class PodWorker {
  pod: V1Pod;
  readonly uid: string;
  readonly podDir: string;
  readonly init: ContainerRecord[];
  readonly containers: ContainerRecord[];
  readonly #ctx: WorkerContext;
  readonly #runs = new Map<string, Run>();
  readonly #stop = new AbortController();
  readonly #crashes = new Map<string, number>();
  readonly #written = new Map<string, ReadonlyMap<string, FileContent>>();
  readonly #warned = new Set<string>();
  #attachment: PodNetworkAttachment | undefined;
  #objects: VolumeObjects | undefined;
  #volumes = new Map<string, VolumeSource>();
  #initialized = false;
  #initFailed = false;
  readonly startTime = now();
  /** Resolves when the pod's containers are all stopped for good. */
  readonly done: Promise<void>;

  constructor(ctx: WorkerContext, pod: V1Pod) {
    this.#ctx = ctx;
    this.pod = pod;
    this.uid = pod.metadata!.uid!;
    this.podDir = join(ctx.workDir, 'pods', this.uid);
    this.init = (pod.spec?.initContainers ?? []).map(record);
    this.containers = (pod.spec?.containers ?? []).map(record);
    if (this.init.length === 0) this.#initialized = true;
    this.done = this.#main().catch((e: unknown) => {
      this.#ctx.log.error('pod worker failed', { pod: this.#key, error: (e as Error).message });
    });
  }

  get #key(): string {
    return `${this.pod.metadata?.namespace}/${this.pod.metadata?.name}`;
  }

  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  runtime(): PodRuntime {
    return {
      init: this.init,
      containers: this.containers,
      initialized: this.#initialized,
      initFailed: this.#initFailed,
      podIP: this.#attachment?.ip,
      hostIP: this.#ctx.nodeIP,
      startTime: this.startTime,
    };
  }

  /** The log file of a container's current run, or of the one before (`previous`). */
  logPath(container: string, previous: boolean): string | undefined {
    const rec = [...this.init, ...this.containers].find((c) => c.name === container);
    if (!rec) return undefined;
    const hasRun = !('waiting' in rec.state) || rec.lastState !== undefined;
    const n = previous ? rec.restartCount - 1 : rec.restartCount;
    if (n < 0 || (!previous && !hasRun)) return undefined;
    const path = join(this.podDir, 'logs', container, `${n}.log`);
    return existsSync(path) ? path : undefined;
  }

  /** Whether the container's current run is over (a follower stops at the end of its log). */
  isRunning(container: string): boolean {
    const run = this.#runs.get(container);
    return run !== undefined && !run.hasExited;
  }

  #changed(): void {
    this.#ctx.onChange(this);
  }

  #warnOnce(reason: string, message: string): void {
    if (this.#warned.has(`${reason}|${message}`)) return;
    this.#warned.add(`${reason}|${message}`);
    this.#ctx.events.warning(this.pod, reason, message);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopping) return resolve();
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.#stop.signal.addEventListener('abort', done, { once: true });
    });
  }

  async #main(): Promise<void> {
    mkdirSync(this.podDir, { recursive: true });
    await this.#attach();
    if (this.stopping) return;
    this.#changed();
    while (!this.stopping && !(await this.#syncVolumes())) await this.#sleep(this.#ctx.volumeSyncMs);
    void this.#refreshVolumes();
    for (const [i, spec] of (this.pod.spec?.initContainers ?? []).entries()) {
      const rec = this.init[i]!;
      for (;;) {
        const code = await this.#runOnce(rec, spec, true);
        if (this.stopping) return;
        if (code === 0) break;
        if (code === undefined) continue;
        if ((this.pod.spec?.restartPolicy ?? 'Always') === 'Never') {
          this.#initFailed = true;
          this.#changed();
          return;
        }
        await this.#backoff(rec);
      }
    }
    this.#initialized = true;
    this.#changed();
    await Promise.all((this.pod.spec?.containers ?? []).map((spec, i) => this.#supervise(this.containers[i]!, spec)));
  }

  async #attach(): Promise<void> {
    const net = this.#network();
    while (!this.stopping) {
      try {
        this.#attachment = await net.attach({
          uid: this.uid,
          namespace: this.pod.metadata!.namespace!,
          name: this.pod.metadata!.name!,
          hostname: podHostname(this.pod),
          subdomain: this.pod.spec?.subdomain,
        });
        return;
      } catch (e) {
        this.#warnOnce('FailedCreatePodSandBox', `Failed to create pod sandbox: ${(e as Error).message}`);
        await this.#sleep(this.#ctx.volumeSyncMs);
      }
    }
  }

  #network(): PodNetwork {
    return this.pod.spec?.hostNetwork === true ? this.#ctx.hostNetwork : this.#ctx.network;
  }

  async #gather(): Promise<VolumeObjects> {
    const ns = this.pod.metadata!.namespace!;
    const refs = referencedObjects(this.pod);
    const get = async <T>(kind: string, name: string): Promise<T | undefined> =>
      (await this.#ctx.client.getIfExists({ apiVersion: 'v1', kind, namespace: ns, name })) as T | undefined;
    const byName = async <T>(kind: string, names: Set<string>): Promise<Map<string, T | undefined>> =>
      new Map(await Promise.all([...names].map(async (n) => [n, await get<T>(kind, n)] as const)));
    const claims = await byName<V1PersistentVolumeClaim>('PersistentVolumeClaim', refs.claims);
    const pvNames = new Set([...claims.values()].map((c) => c?.spec?.volumeName).filter((n): n is string => Boolean(n)));
    const volumes = new Map(
      await Promise.all(
        [...pvNames].map(
          async (n) =>
            [
              n,
              (await this.#ctx.client.getIfExists({ apiVersion: 'v1', kind: 'PersistentVolume', name: n })) as
                | V1PersistentVolume
                | undefined,
            ] as const,
        ),
      ),
    );
    return {
      secrets: await byName('Secret', refs.secrets),
      configMaps: await byName('ConfigMap', refs.configMaps),
      claims,
      volumes,
    };
  }

  /** Makes every volume real; false (with the reason on the containers) while one must wait. */
  async #syncVolumes(): Promise<boolean> {
    let objects: VolumeObjects;
    try {
      objects = await this.#gather();
    } catch (e) {
      this.#ctx.log.warn("could not read the pod's objects", { pod: this.#key, error: (e as Error).message });
      return false;
    }
    this.#objects = objects;
    const waits: string[] = [];
    let serviceAccountToken = '';
    let noToken = false;
    const tokenProjection = (this.pod.spec?.volumes ?? [])
      .flatMap((v) => v.projected?.sources ?? [])
      .find((s) => s.serviceAccountToken)?.serviceAccountToken;
    if (tokenProjection) {
      try {
        serviceAccountToken = await this.#ctx.serviceAccountToken(this.pod, tokenProjection.expirationSeconds ?? 3600);
      } catch (e) {
        noToken = true;
        waits.push(
          `MountVolume.SetUp failed: cannot get the service account token of ${this.pod.spec?.serviceAccountName ?? 'default'}: ${(e as Error).message}`,
        );
      }
    }
    const ctx = {
      ...objects,
      pod: this.#podWithIP(),
      podDir: this.podDir,
      workDir: this.#ctx.workDir,
      allocatable: this.#ctx.allocatable,
      serviceAccountToken,
    };
    for (const v of this.pod.spec?.volumes ?? []) {
      let src: VolumeSource;
      try {
        src = volumeSource(v, ctx);
      } catch (e) {
        src = { kind: 'wait', message: (e as Error).message };
      }
      if (src.kind === 'wait') {
        waits.push(src.message);
        continue;
      }
      // Without a token now, the volume keeps the one written before (its renewal failed).
      if (noToken && v.projected?.sources?.some((x) => x.serviceAccountToken)) continue;
      if (src.kind === 'files') {
        if (writeAtomically(src.path, src.files, this.#written.get(v.name))) this.#written.set(v.name, src.files);
      } else if (!existsSync(src.path)) {
        mkdirSync(src.path, { recursive: true });
      }
      this.#volumes.set(v.name, src);
    }
    if (waits.length > 0) {
      for (const m of waits) this.#warnOnce('FailedMount', m);
      // Containers already running keep running (a real kubelet does not stop them either).
      for (const rec of [...this.init, ...this.containers]) {
        if ('waiting' in rec.state) rec.state = { waiting: { reason: 'ContainerCreating', message: waits.join('; ') } };
      }
      this.#changed();
      return false;
    }
    return true;
  }

  /** configMap and secret volumes follow their objects, as the kubelet's periodic sync does. */
  async #refreshVolumes(): Promise<void> {
    while (!this.stopping) {
      await this.#sleep(this.#ctx.volumeSyncMs);
      if (this.stopping) return;
      await this.#syncVolumes();
    }
  }

  #podWithIP(): V1Pod {
    return { ...this.pod, status: { ...this.pod.status, podIP: this.#attachment?.ip, hostIP: this.#ctx.nodeIP } };
  }

  #mounts(spec: V1Container, privateDirs: readonly string[], runDir: string): Mount[] {
    const mounts: Mount[] = [];
    for (const m of spec.volumeMounts ?? []) {
      const src = this.#volumes.get(m.name);
      if (!src || src.kind === 'wait') throw new ContainerConfigError(`volumeMount ${m.name}: no such volume in the pod`);
      const readOnly = m.readOnly === true || src.kind === 'files' || (src.kind === 'dir' && src.readOnly);
      let source = src.path;
      if (m.subPath) {
        source = join(src.path, m.subPath);
        if (!existsSync(source)) mkdirSync(source, { recursive: true });
        // The kubelet resolves a subPath's symlinks when the container starts (so it never follows updates).
        source = realpathSync(source);
      }
      mounts.push({ source, target: posix.normalize(m.mountPath), readOnly, file: statSync(source).isFile() });
    }
    const net = this.#attachment!;
    const ordered = mountOrder(mounts);
    // The image's own writable places come after the volumes, then the volumes inside them.
    const isInside = (m: Mount) => privateDirs.some((d) => m.target === d || m.target.startsWith(`${d}/`));
    const extra: Mount[] = [];
    if (net.hostsFile !== HOST_HOSTS_FILE && !mounts.some((m) => m.target === HOST_HOSTS_FILE)) {
      extra.push({ source: net.hostsFile, target: HOST_HOSTS_FILE, readOnly: false, file: true });
    }
    if (net.resolvFile && !mounts.some((m) => m.target === RESOLV_CONF_PATH)) {
      extra.push({ source: net.resolvFile, target: RESOLV_CONF_PATH, readOnly: true, file: true });
    }
    privateDirs.forEach((d, i) => {
      const dir = join(runDir, 'layer', String(i));
      mkdirSync(dir, { recursive: true });
      extra.push({ source: dir, target: d, readOnly: false, file: false });
    });
    // A /tmp of the container's own, as its image gives it: empty at each start, world-writable
    // with the sticky bit, gone with the pod's directory. A volume at /tmp takes its place.
    if (!mounts.some((m) => m.target === CONTAINER_TMP)) {
      const tmp = join(runDir, 'tmp');
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { recursive: true });
      chmodSync(tmp, 0o1777);
      extra.push({ source: tmp, target: CONTAINER_TMP, readOnly: false, file: false });
    }
    const isPrivate = (m: Mount) => isInside(m) || m.target.startsWith(`${CONTAINER_TMP}/`);
    return [...ordered.filter((m) => !isPrivate(m)), ...extra, ...ordered.filter(isPrivate)];
  }

  /** One run of a container; its exit code, or undefined when it could not start (reason on the record). */
  async #runOnce(rec: ContainerRecord, spec: V1Container, init: boolean): Promise<number | undefined> {
    // Nothing below awaits before the spawn: a termination either comes first or sees the run.
    if (this.stopping) return undefined;
    const pod = this.#podWithIP();
    let env: Record<string, string>;
    try {
      env = containerEnv(spec, pod, { ...envData(this.#objects!), allocatable: this.#ctx.allocatable });
    } catch (e) {
      if (!(e instanceof ContainerConfigError)) throw e;
      return this.#cannotStart(rec, 'CreateContainerConfigError', e.message);
    }
    // A host-network pod shares the node's UTS namespace, so its hostname is the node's.
    const hostNet = this.pod.spec?.hostNetwork === true;
    const hostname = hostNet ? osHostname() : podHostname(this.pod);
    env = { PATH: HOST_PATH, HOSTNAME: hostname, ...this.#ctx.apiServerEnv, ...env };
    const image = resolveImage(spec.image ?? '', expandArgs(spec.command, env), expandArgs(spec.args, env), this.#ctx.images);
    if (!image.ok) {
      rec.state = { waiting: { reason: image.reason, message: image.message } };
      this.#warnOnce(image.reason, `container ${spec.name}: ${image.message}`);
      this.#changed();
      // Nothing will make the image runnable: wait for the pod's deletion.
      await new Promise<void>((resolve) => this.#stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      return undefined;
    }
    const runDir = join(this.podDir, 'containers', spec.name);
    const scratch = join(runDir, 'scratch');
    mkdirSync(scratch, { recursive: true });
    // A new file per run, mounted last (it may lie inside a volume), as the kubelet makes it.
    const messageFile = spec.terminationMessagePath ? join(runDir, `termination-message-${rec.restartCount}`) : undefined;
    if (messageFile) writeFileSync(messageFile, '', { mode: 0o666 });
    let argv: string[];
    try {
      const mounts = this.#mounts(spec, image.privateDirs, runDir);
      if (messageFile)
        mounts.push({ source: messageFile, target: posix.normalize(spec.terminationMessagePath!), readOnly: false, file: true });
      argv = launchArgv(
        {
          netns: this.#attachment!.netns,
          hostname: hostNet ? undefined : hostname,
          mounts,
          workingDir: spec.workingDir,
          scratch,
          argv: image.argv,
        },
        existsSync,
        hostRealpath,
        hostMountPoints(),
        hostTopLevel(),
      );
    } catch (e) {
      return this.#cannotStart(rec, 'CreateContainerError', (e as Error).message);
    }
    const logDir = join(this.podDir, 'logs', spec.name);
    mkdirSync(logDir, { recursive: true });
    const logFile = join(logDir, `${rec.restartCount}.log`);
    const fd = openSync(logFile, 'a');
    const note = `${image.standIn ? 'STAND-IN: ' : ''}image ${spec.image} runs as ${image.description}`;
    writeSync(fd, `[sandbox kubelet] ${note}\n`);
    // The fallback message is the container's own output, not the kubelet's line above.
    const outputStart = fstatSync(fd).size;
    // The image's environment under the container's, as a runtime merges them.
    const proc = spawn('setpriv', ['--pdeathsig', 'KILL', '--', ...argv], {
      env: { ...image.env, ...env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      proc.on('exit', (code, signal) => resolve({ code, signal }));
      proc.on('error', (e) => {
        this.#ctx.log.warn('container did not start', { pod: this.#key, container: spec.name, error: e.message });
        resolve({ code: 128, signal: null });
      });
    });
    const startedAt = now();
    const run: Run = {
      proc,
      pid: proc.pid ?? -1,
      exited,
      hasExited: false,
      probes: [],
      spec,
      target: { pid: proc.pid ?? -1, env, podIP: this.#attachment!.ip, container: spec },
    };
    void exited.then(() => {
      run.hasExited = true;
    });
    this.#runs.set(spec.name, run);
    rec.state = { running: { startedAt } };
    rec.containerID = `sandbox://${this.uid}/${spec.name}/${rec.restartCount}`;
    rec.started = init || !spec.startupProbe;
    rec.ready = !init && rec.started && !spec.readinessProbe;
    this.#ctx.log.info('container started', { pod: this.#key, container: spec.name, image: spec.image, runsAs: image.description });
    this.#ctx.events.normal(this.pod, 'Started', `Started container ${spec.name}: ${note}`);
    this.#changed();
    if (!init) this.#startProbes(rec, run);
    const { code, signal } = await exited;
    for (const p of run.probes) p.stop();
    // The container is gone when its first process is: whatever it left behind goes with it.
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {
      /* nothing left */
    }
    const exitCode = code ?? 128 + (SIGNALS[signal ?? ''] ?? 0);
    const message = terminationMessage({
      policy: spec.terminationMessagePolicy,
      exitCode,
      file: messageFile ? readTail(messageFile, MAX_MESSAGE_BYTES) : undefined,
      logTail: () => readTail(logFile, MAX_LOG_BYTES, outputStart),
    });
    rec.state = {
      terminated: {
        exitCode,
        ...(signal ? { signal: SIGNALS[signal] } : {}),
        reason: exitCode === 0 ? 'Completed' : 'Error',
        ...(message !== undefined ? { message } : {}),
        startedAt,
        finishedAt: now(),
        containerID: rec.containerID,
      },
    };
    rec.ready = false;
    rec.started = false;
    this.#changed();
    return exitCode;
  }

  async #cannotStart(rec: ContainerRecord, reason: string, message: string): Promise<undefined> {
    rec.state = { waiting: { reason, message } };
    this.#warnOnce(reason, `Error: ${message}`);
    this.#changed();
    await this.#sleep(Math.max(this.#ctx.backoff.baseMs, 1000));
    return undefined;
  }

  #startProbes(rec: ContainerRecord, run: Run): void {
    const spec = run.spec;
    const startLivenessAndReadiness = () => {
      if (spec.readinessProbe) {
        const p = new ProbeLoop('readiness', spec.readinessProbe, run.target, (ok, output) => {
          rec.ready = ok;
          if (!ok) this.#ctx.events.warning(this.pod, 'Unhealthy', `Readiness probe failed: ${output}`);
          this.#changed();
        });
        run.probes.push(p);
        p.start();
      }
      if (spec.livenessProbe) {
        const p = new ProbeLoop('liveness', spec.livenessProbe, run.target, (ok, output) => {
          if (ok) return;
          this.#ctx.events.warning(this.pod, 'Unhealthy', `Liveness probe failed: ${output}`);
          this.#ctx.events.normal(this.pod, 'Killing', `Container ${spec.name} failed liveness probe, will be restarted`);
          void this.#kill(run, Date.now() + this.#graceSeconds(spec.livenessProbe?.terminationGracePeriodSeconds) * 1000);
        });
        run.probes.push(p);
        p.start();
      }
    };
    if (!spec.startupProbe) {
      startLivenessAndReadiness();
      return;
    }
    const startup = new ProbeLoop('startup', spec.startupProbe, run.target, (ok, output) => {
      startup.stop();
      if (!ok) {
        this.#ctx.events.warning(this.pod, 'Unhealthy', `Startup probe failed: ${output}`);
        void this.#kill(run, Date.now() + this.#graceSeconds(spec.startupProbe?.terminationGracePeriodSeconds) * 1000);
        return;
      }
      rec.started = true;
      rec.ready = !spec.readinessProbe;
      this.#changed();
      startLivenessAndReadiness();
    });
    run.probes.push(startup);
    startup.start();
  }

  #graceSeconds(override?: number): number {
    return override ?? this.pod.metadata?.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
  }

  async #supervise(rec: ContainerRecord, spec: V1Container): Promise<void> {
    const policy = this.pod.spec?.restartPolicy ?? 'Always';
    while (!this.stopping) {
      const began = Date.now();
      const code = await this.#runOnce(rec, spec, false);
      if (this.stopping) return;
      if (code === undefined) continue;
      if (Date.now() - began >= 2 * this.#ctx.backoff.maxMs) this.#crashes.delete(spec.name);
      if (!restarts(policy, code)) return;
      await this.#backoff(rec);
    }
  }

  /** Waits out the restart backoff (the first restart is immediate), then counts the restart. */
  async #backoff(rec: ContainerRecord): Promise<void> {
    const n = (this.#crashes.get(rec.name) ?? 0) + 1;
    this.#crashes.set(rec.name, n);
    const delay = n <= 1 ? 0 : Math.min(this.#ctx.backoff.baseMs * 2 ** (n - 2), this.#ctx.backoff.maxMs);
    const terminated: ContainerState = rec.state;
    if (delay > 0) {
      rec.lastState = terminated;
      rec.state = {
        waiting: {
          reason: 'CrashLoopBackOff',
          message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${rec.name} pod=${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})`,
        },
      };
      this.#warnOnce('BackOff', `Back-off restarting failed container ${rec.name} in pod ${this.pod.metadata?.name}`);
      this.#changed();
      await this.#sleep(delay);
    }
    if (this.stopping) return;
    rec.lastState = terminated;
    rec.restartCount++;
  }

  /** preStop, then SIGTERM, then SIGKILL at the deadline. */
  async #kill(run: Run, deadline: number): Promise<void> {
    if (run.hasExited) return;
    const left = () => Math.max(deadline - Date.now(), 0);
    const timeout = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
    const preStop = run.spec.lifecycle?.preStop;
    if (preStop) {
      const result = await Promise.race([
        runAction(preStop, run.target, left()),
        timeout(left()).then(() => ({ ok: false, output: 'timed out' })),
      ]);
      if (!result.ok) this.#ctx.events.warning(this.pod, 'FailedPreStopHook', `PreStopHook failed: ${result.output}`);
    }
    if (run.hasExited) return;
    try {
      process.kill(run.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    // After a preStop the kubelet gives SIGTERM at least 2 s.
    await Promise.race([run.exited, timeout(preStop ? Math.max(left(), 2000) : left())]);
    if (!run.hasExited) {
      try {
        process.kill(-run.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      await run.exited;
    }
  }

  update(pod: V1Pod): void {
    this.pod = pod;
  }

  /**
   * Stops every container (preStop, SIGTERM, SIGKILL after `graceSeconds`) and releases the network
   * and the pod's own files. Volumes with data of their own (PVCs, hostPath) stay.
   */
  async terminate(graceSeconds: number): Promise<void> {
    if (this.stopping) return this.done;
    this.#stop.abort();
    const deadline = Date.now() + graceSeconds * 1000;
    await Promise.all([...this.#runs.values()].map((run) => this.#kill(run, deadline)));
    await this.done;
    this.#changed();
    await this.#network()
      .detach(this.uid)
      .catch(() => undefined);
    // Kept as a cluster's log collector keeps them: what a removed pod printed stays readable until
    // the sandbox stops (the end-to-end tests scan every log of the run for secrets).
    const logs = join(this.podDir, 'logs');
    if (existsSync(logs)) {
      const kept = join(
        this.#ctx.workDir,
        'logs',
        REMOVED_POD_LOGS,
        `${this.pod.metadata?.namespace}_${this.pod.metadata?.name}_${this.uid}`,
      );
      mkdirSync(join(kept, '..'), { recursive: true });
      renameSync(logs, kept);
    }
    rmSync(this.podDir, { recursive: true, force: true });
  }
}
