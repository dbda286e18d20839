// One sandbox's hold on its slot (addresses.ts): the bridge, created as the atomic claim, and two
// records of it, so what a crashed run left (its pods' namespaces, veths and the bridge) is
// removed: a state file in the work dir, read by the next start with the same work dir, and an
// owner file in /run naming the claiming process, read by every start (a crashed test run's work
// dir is a temporary one nobody starts with again).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freeSlot, netnsPrefix, SLOTS, vethPrefix, type SlotPlan } from './addresses.ts';
import { createBridge, deleteLink, deleteNetns, IpCommandError, linkNames, netnsNames, usedCidrs } from './ip.ts';

export interface AddressClaim extends SlotPlan {
  /** Where the network keeps its files (the pods' hosts files, its state). */
  dir: string;
  /** Removes every namespace of this sandbox and the bridge (with its veths and addresses). */
  release(): Promise<void>;
}

const STATE_FILE = 'state.json';
/** On tmpfs: gone at reboot, like the bridges it speaks of. */
const OWNERS_DIR = '/run/sandbox-network';

interface Owner {
  pid: number;
  /** The process's start time (clock ticks after boot): a pid reused later is another process. */
  start: string;
}

async function processStart(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (e) {
    // Missing, or caught half written by its writer: nothing to act on now.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** Removes the sandboxes whose claiming process is gone. */
async function cleanOrphans(): Promise<void> {
  await mkdir(OWNERS_DIR, { recursive: true });
  for (const file of await readdir(OWNERS_DIR)) {
    const path = join(OWNERS_DIR, file);
    const owner = await readJson<Owner>(path);
    if (!owner || (await processStart(owner.pid)) === owner.start) continue;
    await removeSandbox(file.replace(/\.json$/, ''));
    await rm(path, { force: true });
  }
}

async function removeSandbox(bridge: string): Promise<void> {
  for (const ns of await netnsNames()) if (ns.startsWith(netnsPrefix(bridge))) await deleteNetns(ns);
  // A veth pair dies with its pod end's namespace, unless a process still holds that namespace.
  for (const link of await linkNames()) if (link.startsWith(vethPrefix(bridge))) await deleteLink(link);
  await deleteLink(bridge);
}

async function cleanLeftovers(dir: string): Promise<void> {
  const state = await readJson<{ bridge: string }>(join(dir, STATE_FILE));
  if (!state) return;
  await removeSandbox(state.bridge);
  await rm(join(OWNERS_DIR, `${state.bridge}.json`), { force: true });
  await rm(dir, { recursive: true, force: true });
}

/**
 * Claims a slot for the sandbox whose files live in `workDir`: removes what an earlier run with
 * this work dir left, then creates the bridge of the first free slot (another sandbox creating
 * the same bridge at the same moment makes this one move on to the next slot).
 */
export async function claimAddresses(workDir: string): Promise<AddressClaim> {
  const dir = join(workDir, 'network');
  await cleanLeftovers(dir);
  await cleanOrphans();
  await mkdir(dir, { recursive: true });
  // A random first slot keeps sandboxes started together from all racing for slot 0.
  let from = Math.floor(Math.random() * SLOTS);
  for (let attempt = 0; attempt < SLOTS; attempt++) {
    const plan = freeSlot(from, { links: await linkNames(), cidrs: await usedCidrs() });
    if (!plan) break;
    try {
      await createBridge(plan.bridge, `${plan.gateway}/24`, plan.aliasCIDR);
    } catch (e) {
      if (e instanceof IpCommandError && /File exists/.test(e.stderr)) {
        from = plan.slot + 1;
        continue;
      }
      await deleteLink(plan.bridge);
      throw e;
    }
    // Written only once the bridge is ours: a name written before could be another sandbox's,
    // which the next start would then remove.
    await writeFile(join(dir, STATE_FILE), JSON.stringify({ bridge: plan.bridge }));
    const owner: Owner = { pid: process.pid, start: (await processStart(process.pid))! };
    await writeFile(join(OWNERS_DIR, `${plan.bridge}.json`), JSON.stringify(owner));
    return {
      ...plan,
      dir,
      release: async () => {
        await removeSandbox(plan.bridge);
        await rm(join(OWNERS_DIR, `${plan.bridge}.json`), { force: true });
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error('sandbox network: every slot of 10.213.0.0/16 is taken (leftover ksbx* bridges of crashed runs? `ip link del` them)');
}
