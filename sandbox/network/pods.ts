// Pods' network namespaces: attach gives a pod its namespace, address and hosts file; detach
// takes them away. Idempotent per pod uid (the kubelet may attach again after its own restart of
// a pod's containers), and one operation per uid at a time.
import { constants } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { netnsName, nextPodIp, vethName } from './addresses.ts';
import type { AddressClaim } from './claim.ts';
import type { PodIdentity } from './hosts.ts';
import { createPodNetns, deleteLink, deleteNetns } from './ip.ts';

export interface PodNetworkAttachment {
  ip: string;
  /** The name for `ip netns exec`. */
  netns: string;
  /** The path to bind-mount over /etc/hosts; rewritten in place (same inode) as names change. */
  hostsFile: string;
  /** The path to bind-mount over /etc/resolv.conf (RESOLV_CONF); absent: keep the machine's. */
  resolvFile?: string;
}

/**
 * The pods' resolver: a nameserver on the pod's own loopback, where nothing listens, so a name
 * missing from the hosts file fails at once, as the cluster DNS answers NXDOMAIN. The machine's
 * nameserver is beyond the bridge (forwarding is off): each lookup of a missing name (a pod just
 * deleted) waited out its timeout, 5 s, inside the libuv threadpool of a Node process, and lookups
 * of names the hosts file has waited behind them: the operator's connects to every server timed
 * out at once (docs/switchover.md, "Measured end to end").
 */
export const RESOLV_CONF = `# Sandbox pod resolver (sandbox/network/pods.ts): names come from /etc/hosts; no DNS server.
nameserver 127.0.0.1
options timeout:1 attempts:1
`;

export interface PodRef {
  uid: string;
  namespace: string;
  name: string;
  hostname: string;
  subdomain?: string;
}

export interface PodNetwork {
  /** The pod's network namespace with its own address on the sandbox bridge; idempotent per uid. */
  attach(pod: PodRef): Promise<PodNetworkAttachment>;
  detach(uid: string): Promise<void>;
}

interface AttachedPod {
  attachment: PodNetworkAttachment;
  identity: PodIdentity;
}

const UID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Writes `text` into the file at `path` without replacing it: a bind mount holds the inode, so a
 * rename would leave the pod reading the old file. Never empty, never half a line, for a reader in
 * between (glibc reads /etc/hosts on every lookup): the new text goes over the old, a comment over
 * what is left of the old, then the file is cut to the new text. Truncating first left the file
 * empty for a moment, and a connect that read it then failed with EAI_AGAIN on a name that exists.
 */
export async function writeInPlace(path: string, text: string): Promise<boolean> {
  const f = await open(path, constants.O_RDWR | constants.O_CREAT);
  try {
    const current = await f.readFile('utf8');
    if (current === text) return false;
    const size = Buffer.byteLength(text);
    const left = Buffer.byteLength(current) - size;
    await f.write(left > 0 ? `${text}${'#'.repeat(left - 1)}\n` : text, 0);
    if (left > 0) await f.truncate(size);
    return true;
  } finally {
    await f.close();
  }
}

export class PodNetworks implements PodNetwork {
  readonly #claim: AddressClaim;
  readonly #hostsDir: string;
  readonly #hostsText: (pod: PodIdentity) => string;
  readonly #attached = new Map<string, AttachedPod>();
  /** Attached pods whose network namespace is made (and not being removed). */
  readonly #made = new Set<string>();
  /** The operation under way per uid: attach and detach of one pod never interleave. */
  readonly #busy = new Map<string, Promise<unknown>>();
  #closed = false;
  #lastIp: string | undefined;

  constructor(claim: AddressClaim, hostsText: (pod: PodIdentity) => string) {
    this.#claim = claim;
    this.#hostsDir = join(claim.dir, 'hosts');
    this.#hostsText = hostsText;
  }

  /**
   * Rewrites every attached pod's hosts file. Each write takes its turn with the pod's attach and
   * detach: a pod being attached gets its file once its directory exists, and a pod detached
   * meanwhile is skipped (a write after its detach would make the file again, left behind).
   * A write that fails for another reason rejects.
   */
  async refreshHosts(): Promise<void> {
    const writes = [...this.#attached.keys()].map((uid) =>
      this.#serial(uid, async () => {
        const pod = this.#attached.get(uid);
        if (pod) await writeInPlace(pod.attachment.hostsFile, this.#hostsText(pod.identity));
      }),
    );
    const failed = (await Promise.allSettled(writes)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The pods whose network namespace exists now: their uid, namespace, address and namespace name. */
  attachedPods(): Array<{ uid: string; namespace: string; ip: string; netns: string }> {
    return [...this.#attached]
      .filter(([uid]) => this.#made.has(uid))
      .map(([uid, a]) => ({ uid, namespace: a.identity.namespace, ip: a.attachment.ip, netns: a.attachment.netns }));
  }

  /** The pods being attached or attached: their addresses are taken. */
  addresses(): Map<string, string> {
    return new Map([...this.#attached].map(([uid, a]) => [uid, a.attachment.ip]));
  }

  attach(pod: PodRef): Promise<PodNetworkAttachment> {
    if (!UID.test(pod.uid)) return Promise.reject(new Error(`attach: pod uid ${JSON.stringify(pod.uid)} is not a Kubernetes uid`));
    return this.#serial(pod.uid, () => this.#attach(pod));
  }

  detach(uid: string): Promise<void> {
    return this.#serial(uid, () => this.#detach(uid));
  }

  /** Detaches every pod; attach refuses afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#attached.keys()].map((uid) => this.detach(uid)));
  }

  #serial<T>(uid: string, op: () => Promise<T>): Promise<T> {
    const prev = this.#busy.get(uid) ?? Promise.resolve();
    const next = prev.then(op, op);
    const settled = next.catch(() => {});
    this.#busy.set(uid, settled);
    void settled.then(() => {
      if (this.#busy.get(uid) === settled) this.#busy.delete(uid);
    });
    return next;
  }

  async #attach(pod: PodRef): Promise<PodNetworkAttachment> {
    const known = this.#attached.get(pod.uid);
    if (known) return known.attachment;
    if (this.#closed) throw new Error(`attach ${pod.namespace}/${pod.name}: the sandbox network is stopping`);
    const used = new Set([...this.#attached.values()].map((a) => a.attachment.ip));
    const ip = nextPodIp(this.#claim, used, this.#lastIp);
    if (!ip) throw new Error(`attach ${pod.namespace}/${pod.name}: no address left in ${this.#claim.podCIDR}`);
    this.#lastIp = ip;
    const attachment: PodNetworkAttachment = {
      ip,
      netns: netnsName(this.#claim, pod.uid),
      hostsFile: join(this.#hostsDir, pod.uid),
      resolvFile: join(this.#claim.dir, 'resolv.conf'),
    };
    const identity: PodIdentity = {
      ip,
      namespace: pod.namespace,
      hostname: pod.hostname,
      ...(pod.subdomain ? { subdomain: pod.subdomain } : {}),
    };
    // Reserved before the first await, so a concurrent attach of another pod takes another address.
    this.#attached.set(pod.uid, { attachment, identity });
    try {
      await createPodNetns({
        netns: attachment.netns,
        hostVeth: vethName(this.#claim, ip),
        bridge: this.#claim.bridge,
        ipCidr: `${ip}/24`,
        gateway: this.#claim.gateway,
      });
      this.#made.add(pod.uid);
      await mkdir(this.#hostsDir, { recursive: true });
      await writeInPlace(attachment.resolvFile!, RESOLV_CONF);
      await writeInPlace(attachment.hostsFile, this.#hostsText(identity));
    } catch (e) {
      await this.#detach(pod.uid);
      throw e;
    }
    return attachment;
  }

  async #detach(uid: string): Promise<void> {
    const known = this.#attached.get(uid);
    if (!known) return;
    this.#made.delete(uid);
    // The veth first: a process still inside keeps the namespace alive, but not its link to the bridge.
    await deleteLink(vethName(this.#claim, known.attachment.ip));
    await deleteNetns(known.attachment.netns);
    await rm(known.attachment.hostsFile, { force: true });
    this.#attached.delete(uid);
  }
}
