// Faults the sandbox can inject (docs/sandbox-faults.md, issue 22): a delayed, lossy or cut link
// of one pod, and the loss of a whole pod at once. Link faults are iptables rules in the pod's
// network namespace (and, for a delay, a process holding its packets); each has an undo, and
// clear() undoes every fault still in place (the sandbox's stop() calls it).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';

/** The iptables whose rules a pod's namespace holds: the legacy x_tables one (this kernel has no nft queue, and netem is absent). */
export const IPTABLES = 'iptables-legacy';
/** The chain of the faults in a pod's namespace, jumped to first from INPUT and OUTPUT. */
export const FAULT_CHAIN = 'SANDBOX-FAULTS';
/** The NFQUEUE number of a pod's delay (a queue belongs to its namespace, so one number serves every pod). */
export const DELAY_QUEUE = 7;
const DELAYER = fileURLToPath(new URL('nfqueue-delay.py', import.meta.url));

export type FaultKind = 'delay' | 'loss' | 'partition' | 'pod-loss';

export interface Fault {
  kind: FaultKind;
  /** The network namespace (link faults) or `<namespace>/<pod>` (pod loss). */
  target: string;
  /** What it does, for logs and reports. */
  describe: string;
  /** Takes the fault away; idempotent; a no-op when the pod's namespace is gone. */
  undo(): Promise<void>;
}

export class FaultCommandError extends Error {}

function exec(bin: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new FaultCommandError(`${bin} ${args.join(' ')}: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

const inNetns = (netns: string, ...args: string[]): Promise<string> => exec('ip', ['netns', 'exec', netns, ...args]);

/** "The namespace or rule is already gone": an undo after the pod went is done. */
function gone(e: unknown): boolean {
  return e instanceof FaultCommandError && /Cannot open network namespace|No such file|does not exist|Bad rule|No chain/i.test(e.message);
}

/** The rules (iptables arguments after `-A <chain>`) a link fault puts in FAULT_CHAIN. */
export function faultRules(
  fault: { kind: 'delay'; between?: PodsOnly } | { kind: 'loss'; percent: number } | { kind: 'partition' },
  tag: string,
): string[][] {
  const comment = ['-m', 'comment', '--comment', tag];
  const both = (rest: string[]): string[][] => [
    ['-i', 'eth0', ...comment, ...rest],
    ['-o', 'eth0', ...comment, ...rest],
  ];
  switch (fault.kind) {
    case 'partition':
      return both(['-j', 'DROP']);
    case 'loss': {
      if (!(fault.percent > 0 && fault.percent <= 100)) throw new RangeError(`loss: percent must be in (0, 100], got ${fault.percent}`);
      return both(['-m', 'statistic', '--mode', 'random', '--probability', (fault.percent / 100).toFixed(4), '-j', 'DROP']);
    }
    case 'delay': {
      // --queue-bypass: packets pass undelayed when no delayer listens (it died, or is being stopped).
      const queue = ['-j', 'NFQUEUE', '--queue-num', String(DELAY_QUEUE), '--queue-bypass'];
      if (!fault.between) return both(queue);
      // Only the pod network: the host (the gateway: Service proxy, API server, kubelet) is spared.
      const { podCIDR, gateway } = fault.between;
      return [
        ['-i', 'eth0', '-s', gateway, ...comment, '-j', 'RETURN'],
        ['-o', 'eth0', '-d', gateway, ...comment, '-j', 'RETURN'],
        ['-i', 'eth0', '-s', podCIDR, ...comment, ...queue],
        ['-o', 'eth0', '-d', podCIDR, ...comment, ...queue],
      ];
    }
  }
}

/** A delay of the traffic between pods only: not of what the host (the gateway) sends or receives. */
export interface PodsOnly {
  podCIDR: string;
  gateway: string;
}

/**
 * Link faults of pods' network namespaces. Drops (partition, loss) are inserted at the head of
 * the chain and the delay's queue rule appended, so a partition also cuts a delayed link.
 */
export class LinkFaults {
  readonly #active = new Set<Fault>();
  readonly #delayed = new Map<string, ChildProcess>();
  #seq = 0;

  active(): Fault[] {
    return [...this.#active];
  }

  /** Every packet into and out of the pod (eth0) waits `ms`: a round trip through this link grows by 2 × ms. */
  async delay(netns: string, ms: number, between?: PodsOnly): Promise<Fault> {
    if (!(Number.isInteger(ms) && ms > 0 && ms <= 10_000)) throw new RangeError(`delay: ms must be an integer in [1, 10000], got ${ms}`);
    if (this.#delayed.has(netns)) throw new Error(`delay: ${netns} is already delayed; undo that fault first`);
    const delayer = await startDelayer(netns, ms);
    this.#delayed.set(netns, delayer);
    try {
      return await this.#add(
        netns,
        { kind: 'delay', ...(between ? { between } : {}) },
        `${ms} ms each way${between ? ' to and from other pods' : ''}`,
        async () => {
          this.#delayed.delete(netns);
          await stopChild(delayer);
        },
      );
    } catch (e) {
      this.#delayed.delete(netns);
      await stopChild(delayer);
      throw e;
    }
  }

  /** Each packet into or out of the pod dropped with probability percent/100. */
  loss(netns: string, percent: number): Promise<Fault> {
    return this.#add(netns, { kind: 'loss', percent }, `${percent} % loss each way`);
  }

  /**
   * Every packet into or out of the pod's eth0 dropped: the other pods, the Service proxy, the API
   * server and the kubelet's httpGet/tcpSocket probes (all beyond the bridge) lose it; its own
   * loopback (exec probes) keeps working. Connections are not reset: they time out, as across a split.
   */
  partition(netns: string): Promise<Fault> {
    return this.#add(netns, { kind: 'partition' }, 'cut from every other address');
  }

  /** Undoes every fault still in place. */
  async clear(): Promise<void> {
    const errors: unknown[] = [];
    for (const f of [...this.#active].reverse()) await f.undo().catch((e: unknown) => errors.push(e));
    if (errors.length) throw new AggregateError(errors, `clearing faults: ${errors.length} undo(s) failed`);
  }

  async #add(netns: string, spec: Parameters<typeof faultRules>[0], describe: string, after?: () => Promise<void>): Promise<Fault> {
    const tag = `sandbox-fault-${++this.#seq}`;
    const rules = faultRules(spec, tag);
    await ensureChain(netns);
    const added: string[][] = [];
    const remove = async (): Promise<void> => {
      for (const r of added.splice(0)) {
        await inNetns(netns, IPTABLES, '-D', FAULT_CHAIN, ...r).catch((e: unknown) => {
          if (!gone(e)) throw e;
        });
      }
    };
    try {
      for (const r of rules) {
        await inNetns(netns, IPTABLES, spec.kind === 'delay' ? '-A' : '-I', FAULT_CHAIN, ...r);
        added.push(r);
      }
    } catch (e) {
      await remove().catch(() => undefined);
      throw e;
    }
    let undone: Promise<void> | undefined;
    const fault: Fault = {
      kind: spec.kind,
      target: netns,
      describe: `${spec.kind} of ${netns}: ${describe}`,
      undo: () =>
        (undone ??= (async () => {
          try {
            await remove();
            await after?.();
          } finally {
            this.#active.delete(fault);
          }
        })()),
    };
    this.#active.add(fault);
    return fault;
  }
}

/** FAULT_CHAIN in the namespace's filter table, jumped to first from INPUT and OUTPUT (once). */
async function ensureChain(netns: string): Promise<void> {
  await inNetns(netns, IPTABLES, '-N', FAULT_CHAIN).catch((e: unknown) => {
    if (!(e instanceof FaultCommandError && /already exists/i.test(e.message))) throw e;
  });
  for (const hook of ['INPUT', 'OUTPUT']) {
    const present = await inNetns(netns, IPTABLES, '-C', hook, '-j', FAULT_CHAIN).then(
      () => true,
      () => false,
    );
    if (!present) await inNetns(netns, IPTABLES, '-I', hook, '1', '-j', FAULT_CHAIN);
  }
}

/** The delayer inside the namespace, bound to DELAY_QUEUE; dies with this process (pdeathsig). */
function startDelayer(netns: string, ms: number): Promise<ChildProcess> {
  const child = spawn(
    'setpriv',
    ['--pdeathsig', 'KILL', 'ip', 'netns', 'exec', netns, 'python3', DELAYER, String(DELAY_QUEUE), String(ms)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('error', reject);
    child.once('close', (code) => reject(new FaultCommandError(`the delayer in ${netns} exited ${code}: ${err.trim()}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  await closed;
}

/** SIGKILLs every process in a network namespace at once; returns how many. */
export async function killNetnsProcesses(netns: string): Promise<number> {
  const out = await exec('ip', ['netns', 'pids', netns]).catch((e: unknown) => {
    if (gone(e)) return '';
    throw e;
  });
  let killed = 0;
  for (const pid of out.split('\n').filter((l) => /^\d+$/.test(l))) {
    try {
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    } catch {
      // exited between the listing and the kill
    }
  }
  return killed;
}
