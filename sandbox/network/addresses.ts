// Which addresses and names one sandbox network uses. Each sandbox instance holds a slot; the slot
// picks its bridge name and its two /24 ranges (pods, Service ClusterIPs), so sandboxes running
// side by side on one machine never share an address or a link name. Pure: the kernel's view is
// passed in.

/** Pods of slot s live in 10.213.s.0/24, ClusterIPs in 10.214.s.0/24: ranges no stock setup uses. */
const POD_BASE = [10, 213] as const;
const SERVICE_BASE = [10, 214] as const;
export const SLOTS = 256;

export interface SlotPlan {
  slot: number;
  bridge: string;
  /** The bridge's own (host-side) address: the pods' default gateway. */
  gateway: string;
  podCIDR: string;
  serviceCIDR: string;
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
  };
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
    if (taken.cidrs.some((c) => cidrsOverlap(c, plan.podCIDR) || cidrsOverlap(c, plan.serviceCIDR))) continue;
    return plan;
  }
  return undefined;
}

/** The lowest free pod address of the slot (.2 to .254; .1 is the gateway). */
export function nextPodIp(plan: SlotPlan, used: ReadonlySet<string>): string | undefined {
  const prefix = plan.gateway.slice(0, plan.gateway.lastIndexOf('.'));
  for (let host = 2; host < 255; host++) {
    const ip = `${prefix}.${host}`;
    if (!used.has(ip)) return ip;
  }
  return undefined;
}
