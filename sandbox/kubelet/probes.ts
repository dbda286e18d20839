// Probes and handlers (preStop) as the kubelet runs them: exec inside the container's namespaces
// (nsenter into its process: mount, UTS, network) with the container's environment; httpGet and
// tcpSocket against the pod's IP. A probe loop turns results into a state with the probe's
// thresholds, as the kubelet's prober workers do.
import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { V1Container, V1ExecAction, V1HTTPGetAction, V1Probe, V1TCPSocketAction } from '@kubernetes/client-node';

export interface ProbeTarget {
  /** PID of the container's process (nsenter target). */
  pid: number;
  env: Readonly<Record<string, string>>;
  podIP: string;
  container: V1Container;
}

export interface ProbeResult {
  ok: boolean;
  output: string;
}

function portOf(port: number | string, container: V1Container): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const named = container.ports?.find((p) => p.name === port);
  if (!named) throw new Error(`no port named ${port} in container ${container.name}`);
  return named.containerPort;
}

export function runExec(action: V1ExecAction, t: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const child = spawn('nsenter', ['-t', String(t.pid), '-m', '-u', '-n', '-r', '-w', '--', ...(action.command ?? [])], {
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', ...t.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const collect = (b: Buffer) => {
      if (output.length < 10_240) output += b.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      output += `command timed out after ${timeoutMs / 1000}s`;
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, output: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, output });
    });
  });
}

export function runHttpGet(action: V1HTTPGetAction, t: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const scheme = (action.scheme ?? 'HTTP').toUpperCase();
    const headers = Object.fromEntries((action.httpHeaders ?? []).map((h) => [h.name, h.value]));
    const lib = scheme === 'HTTPS' ? https : http;
    const req = lib.request(
      {
        host: action.host || t.podIP,
        port: portOf(action.port as number | string, t.container),
        path: action.path ?? '/',
        method: 'GET',
        headers: { 'User-Agent': 'kube-probe/1.26', ...headers },
        timeout: timeoutMs,
        rejectUnauthorized: false,
      },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve({ ok: code >= 200 && code < 400, output: `HTTP probe ${code}` });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs / 1000}s`)));
    req.on('error', (e) =>
      resolve({ ok: false, output: `Get "${scheme.toLowerCase()}://${action.host || t.podIP}${action.path ?? '/'}": ${e.message}` }),
    );
    req.end();
  });
}

export function runTcp(action: V1TCPSocketAction, t: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const port = portOf(action.port as number | string, t.container);
    const sock = net.connect({ host: action.host || t.podIP, port, timeout: timeoutMs });
    sock.on('connect', () => {
      sock.destroy();
      resolve({ ok: true, output: '' });
    });
    sock.on('timeout', () => sock.destroy(new Error('timeout')));
    sock.on('error', (e) => resolve({ ok: false, output: `dial tcp ${action.host || t.podIP}:${port}: ${e.message}` }));
  });
}

/** Runs a probe or handler action once. */
export function runAction(
  action: Pick<V1Probe, 'exec' | 'httpGet' | 'tcpSocket'>,
  t: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeResult> {
  try {
    if (action.exec) return runExec(action.exec, t, timeoutMs);
    if (action.httpGet) return runHttpGet(action.httpGet, t, timeoutMs);
    if (action.tcpSocket) return runTcp(action.tcpSocket, t, timeoutMs);
  } catch (e) {
    return Promise.resolve({ ok: false, output: (e as Error).message });
  }
  return Promise.resolve({ ok: false, output: 'the sandbox kubelet runs exec, httpGet and tcpSocket probes only' });
}

export type ProbeKind = 'startup' | 'readiness' | 'liveness';

/** One prober worker: periodic runs, results folded into a state by the thresholds. */
export class ProbeLoop {
  readonly kind: ProbeKind;
  readonly #probe: V1Probe;
  readonly #target: ProbeTarget;
  readonly #onChange: (ok: boolean, output: string) => void;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #successes = 0;
  #failures = 0;
  #state: boolean | undefined;

  constructor(kind: ProbeKind, probe: V1Probe, target: ProbeTarget, onChange: (ok: boolean, output: string) => void) {
    this.kind = kind;
    this.#probe = probe;
    this.#target = target;
    this.#onChange = onChange;
  }

  start(): void {
    this.#schedule((this.#probe.initialDelaySeconds ?? 0) * 1000);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const began = Date.now();
    const timeoutMs = (this.#probe.timeoutSeconds ?? 1) * 1000;
    const r = await runAction(this.#probe, this.#target, timeoutMs);
    if (this.#stopped) return;
    if (r.ok) {
      this.#failures = 0;
      this.#successes++;
      if (this.#successes >= (this.#probe.successThreshold ?? 1) && this.#state !== true) {
        this.#state = true;
        this.#onChange(true, r.output);
      }
    } else {
      this.#successes = 0;
      this.#failures++;
      if (this.#failures >= (this.#probe.failureThreshold ?? 3) && this.#state !== false) {
        this.#state = false;
        this.#onChange(false, r.output);
      }
    }
    this.#schedule(nextProbeDelayMs(began, Date.now(), this.#probe.periodSeconds));
  }
}

/**
 * The wait before a probe's next run. periodSeconds runs from one run's start to the next, as the
 * kubelet's ticker does: timing it from the end made the period grow by the probe's own run time
 * (an exec probe under load takes a good part of a second), so a pod turned Ready later than on a
 * node. A run that overran its period is followed at once, as a ticker's pending tick is.
 */
export function nextProbeDelayMs(startedAt: number, now: number, periodSeconds = 10): number {
  return Math.max(0, startedAt + periodSeconds * 1000 - now);
}
