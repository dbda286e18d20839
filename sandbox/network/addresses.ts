// Which addresses and names one sandbox network uses. Each sandbox instance holds a slot; the slot
// picks its bridge name and its three /24 ranges (pods, Service ClusterIPs, the proxy's source
// aliases of the pods), so sandboxes running
// side by side on one machine never share an address or a link name. Pure: the kernel's view is
// passed in.

/**
 * Pods of slot s live in 10.213.s.0/24, ClusterIPs in 10.214.s.0/24, and the Service proxy speaks
 * for pod 10.213.s.x from 10.215.s.x (proxyAlias): ranges no stock setup uses.
 */
const POD_BASE = [10, 213] as const;
const SERVICE_BASE = [10, 214] as const;
const ALIAS_BASE = [10, 215] as const;
export const SLOTS = 256;

export interface SlotPlan {
  slot: number;
  bridge: string;
  /** The bridge's own (host-side) address: the pods' default gateway. */
  gateway: string;
  podCIDR: string;
  serviceCIDR: string;
  /** Local to the machine (a `local` route on the bridge): the proxy's source addresses, one per pod address. */
  aliasCIDR: string;
}

export function slotPlan(slot: number): SlotPlan {
  const pod = `${POD_BASE[0]}.${POD_BASE[1]}.${slot}`;
  return {
    slot,
    // IFNAMSIZ: a link name has at most 15 characters, and veths add a suffix (vethName).
    bridge: `ksbx${slot}`,
    gateway: `${pod}.1`,
    podCIDR: `${pod}.0/24`,
    serviceCIDR: `${SERVICE_BASE[0]}.${SERVICE_BASE[1]}.${slot}.0/24`,
    aliasCIDR: `${ALIAS_BASE[0]}.${ALIAS_BASE[1]}.${slot}.0/24`,
  };
}

/**
 * The address the Service proxy connects to a pod from when `ip` (a pod of this slot) is the
 * client: the same last octet in the alias range. The destination's policy rules accept the
 * alias wherever they accept the pod, so a connection through a ClusterIP is judged by who asked,
 * not by the proxy. Undefined for an address outside the pods' range (another machine) and for the
 * gateway (the node: policies let it in).
 */
export function proxyAlias(plan: Pick<SlotPlan, 'podCIDR' | 'aliasCIDR'>, ip: string): string | undefined {
  const podPrefix = plan.podCIDR.slice(0, plan.podCIDR.lastIndexOf('.') + 1);
  const octet = ip.slice(podPrefix.length);
  // .1 is the gateway: the node itself, which stays the node.
  if (!ip.startsWith(podPrefix) || !/^\d+$/.test(octet) || octet === '1') return undefined;
  return `${plan.aliasCIDR.slice(0, plan.aliasCIDR.lastIndexOf('.') + 1)}${octet}`;
}

/** The host-side end of a pod's veth pair: `<bridge>v<last octet>`, at most 13 characters. */
export function vethName(plan: SlotPlan, podIp: string): string {
  return `${vethPrefix(plan.bridge)}${podIp.split('.')[3]}`;
}

export function vethPrefix(bridge: string): string {
  return `${bridge}v`;
}

/** Network namespace names of one sandbox share its bridge's name as prefix (crash cleanup finds them). */
export function netnsName(plan: SlotPlan, uid: string): string {
  return `${netnsPrefix(plan.bridge)}${uid}`;
}

export function netnsPrefix(bridge: string): string {
  return `${bridge}-`;
}

function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`not an IPv4 address: ${ip}`);
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function cidrRange(cidr: string): [number, number] {
  const [ip, bits] = cidr.split('/');
  const prefix = bits === undefined ? 32 : Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  const size = 2 ** (32 - prefix);
  const start = Math.floor(ipToInt(ip!) / size) * size;
  return [start, start + size - 1];
}

export function cidrsOverlap(a: string, b: string): boolean {
  const [a0, a1] = cidrRange(a);
  const [b0, b1] = cidrRange(b);
  return a0 <= b1 && b0 <= a1;
}

/**
 * The first slot at or after `from` whose bridge does not exist and whose ranges overlap no route
 * or address of the machine; undefined when all are taken.
 */
export function freeSlot(from: number, taken: { links: ReadonlySet<string>; cidrs: readonly string[] }): SlotPlan | undefined {
  for (let i = 0; i < SLOTS; i++) {
    const plan = slotPlan((from + i) % SLOTS);
    if (taken.links.has(plan.bridge)) continue;
    if (taken.cidrs.some((c) => [plan.podCIDR, plan.serviceCIDR, plan.aliasCIDR].some((r) => cidrsOverlap(c, r)))) continue;
    return plan;
  }
  return undefined;
}

/**
 * The first free pod address (.2 to .254; .1 is the gateway) after `last`, wrapping around: as the
 * host-local IPAM of CNI, an address just released is the last to be given again, so a new pod does
 * not take an IP that watchers may still see on a deleted one.
 */
export function nextPodIp(plan: SlotPlan, used: ReadonlySet<string>, last?: string): string | undefined {
  const prefix = plan.gateway.slice(0, plan.gateway.lastIndexOf('.'));
  const after = last === undefined ? 1 : Number(last.slice(last.lastIndexOf('.') + 1));
  for (let i = 1; i <= 253; i++) {
    const ip = `${prefix}.${2 + ((after - 2 + i + 253) % 253)}`;
    if (!used.has(ip)) return ip;
  }
  return undefined;
}
