// One sandbox's hold on its slot (addresses.ts): the bridge, created as the atomic claim, and a
// state file in the work dir naming it, so the next start with the same work dir removes what a
// crashed run left behind (its pods' namespaces, veths and the bridge).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
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

async function removeSandbox(bridge: string): Promise<void> {
  for (const ns of await netnsNames()) if (ns.startsWith(netnsPrefix(bridge))) await deleteNetns(ns);
  // A veth pair dies with its pod end's namespace, unless a process still holds that namespace.
  for (const link of await linkNames()) if (link.startsWith(vethPrefix(bridge))) await deleteLink(link);
  await deleteLink(bridge);
}

async function cleanLeftovers(dir: string): Promise<void> {
  let bridge: string;
  try {
    bridge = (JSON.parse(await readFile(join(dir, STATE_FILE), 'utf8')) as { bridge: string }).bridge;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  await removeSandbox(bridge);
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
  await mkdir(dir, { recursive: true });
  // A random first slot keeps sandboxes started together from all racing for slot 0.
  let from = Math.floor(Math.random() * SLOTS);
  for (let attempt = 0; attempt < SLOTS; attempt++) {
    const plan = freeSlot(from, { links: await linkNames(), cidrs: await usedCidrs() });
    if (!plan) break;
    try {
      await createBridge(plan.bridge, `${plan.gateway}/24`);
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
    return {
      ...plan,
      dir,
      release: async () => {
        await removeSandbox(plan.bridge);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error('sandbox network: every slot of 10.213.0.0/16 is taken (leftover ksbx* bridges of crashed runs? `ip link del` them)');
}
