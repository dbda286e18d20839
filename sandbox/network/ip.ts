// The kernel side of the sandbox network: every `ip` command and sysctl it runs, one function per
// operation. Thin: what to create is decided elsewhere.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class IpCommandError extends Error {
  readonly stderr: string;
  constructor(args: readonly string[], stderr: string) {
    super(`ip ${args.join(' ')}: ${stderr.trim()}`);
    this.stderr = stderr;
  }
}

async function ip(...args: string[]): Promise<string> {
  try {
    return (await run('ip', args)).stdout;
  } catch (e) {
    throw new IpCommandError(args, (e as { stderr?: string }).stderr ?? String(e));
  }
}

/** Runs `ip`, treating "already gone" as done: removal is idempotent. */
async function ipRemove(...args: string[]): Promise<void> {
  try {
    await ip(...args);
  } catch (e) {
    if (e instanceof IpCommandError && /Cannot find device|No such file|does not exist|Cannot find|not found/i.test(e.stderr)) return;
    throw e;
  }
}

export async function linkNames(): Promise<Set<string>> {
  const links = JSON.parse(await ip('-j', 'link', 'show')) as Array<{ ifname: string }>;
  return new Set(links.map((l) => l.ifname));
}

/** Every IPv4 range the machine already routes or holds an address in (the default route aside). */
export async function usedCidrs(): Promise<string[]> {
  const routes = JSON.parse(await ip('-j', '-4', 'route', 'show', 'table', 'all')) as Array<{ dst: string; type?: string }>;
  const addrs = JSON.parse(await ip('-j', '-4', 'addr', 'show')) as Array<{ addr_info: Array<{ local: string; prefixlen: number }> }>;
  return [
    ...routes.filter((r) => r.dst !== 'default' && /^\d/.test(r.dst)).map((r) => r.dst),
    ...addrs.flatMap((a) => a.addr_info.map((i) => `${i.local}/${i.prefixlen}`)),
  ];
}

/**
 * Creates the bridge: fails with "File exists" when another sandbox took the name first, which
 * makes creating it the claim of its slot. Forwarding off on it: nothing a pod sends leaves this
 * machine, whatever the rest of the machine's routing says.
 */
export async function createBridge(name: string, gatewayCidr: string, aliasCidr?: string): Promise<void> {
  await ip('link', 'add', name, 'type', 'bridge');
  await writeFile(`/proc/sys/net/ipv4/conf/${name}/forwarding`, '0');
  await ip('addr', 'add', gatewayCidr, 'dev', name);
  await ip('link', 'set', name, 'up');
  // Every address of the range is this machine's (a `local` route, no address per pod): the
  // Service proxy binds its upstream connections to them, and pods' replies come back here. It
  // goes with the bridge.
  if (aliasCidr) await ip('route', 'add', 'local', aliasCidr, 'dev', name);
}

export async function deleteLink(name: string): Promise<void> {
  await ipRemove('link', 'del', name);
}

export async function netnsNames(): Promise<string[]> {
  const out = await ip('-j', 'netns', 'list');
  return out.trim() ? (JSON.parse(out) as Array<{ name: string }>).map((n) => n.name) : [];
}

export async function deleteNetns(name: string): Promise<void> {
  await ipRemove('netns', 'del', name);
}

/**
 * A namespace `netns` with loopback up and `eth0` (one end of a veth pair whose other end,
 * `hostVeth`, is in `bridge`) holding `ipCidr`, its default route via `gateway`.
 */
export async function createPodNetns(o: {
  netns: string;
  hostVeth: string;
  bridge: string;
  ipCidr: string;
  gateway: string;
}): Promise<void> {
  const peer = `${o.hostVeth}p`;
  await ip('netns', 'add', o.netns);
  await ip('link', 'add', o.hostVeth, 'type', 'veth', 'peer', 'name', peer);
  await ip('link', 'set', o.hostVeth, 'master', o.bridge);
  await ip('link', 'set', o.hostVeth, 'up');
  await ip('link', 'set', peer, 'netns', o.netns);
  const inNs = (...args: string[]) => ip('-n', o.netns, ...args);
  await inNs('link', 'set', 'lo', 'up');
  await inNs('link', 'set', peer, 'name', 'eth0');
  await inNs('addr', 'add', o.ipCidr, 'dev', 'eth0');
  await inNs('link', 'set', 'eth0', 'up');
  await inNs('route', 'add', 'default', 'via', o.gateway);
}

/** Addresses (`a.b.c.d/32`) on a link. */
export async function linkAddresses(link: string): Promise<Set<string>> {
  const out = JSON.parse(await ip('-j', '-4', 'addr', 'show', 'dev', link)) as Array<{
    addr_info: Array<{ local: string; prefixlen: number }>;
  }>;
  return new Set(out.flatMap((a) => a.addr_info.map((i) => `${i.local}/${i.prefixlen}`)));
}

export async function addAddress(link: string, cidr: string): Promise<void> {
  await ip('addr', 'add', cidr, 'dev', link);
}

export async function removeAddress(link: string, cidr: string): Promise<void> {
  await ipRemove('addr', 'del', cidr, 'dev', link);
}

export class NftCommandError extends Error {
  readonly stderr: string;
  constructor(netns: string, stderr: string) {
    super(`nft in ${netns}: ${stderr.trim()}`);
    this.stderr = stderr;
  }
}

/** Runs an nftables script inside a network namespace (one transaction: all of it applies or none). */
export async function applyNftScript(netns: string, script: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile('ip', ['netns', 'exec', netns, 'nft', '-f', '-'], (e, _out, stderr) =>
      e ? reject(new NftCommandError(netns, stderr || String(e))) : resolve(),
    );
    child.stdin?.end(script);
  });
}
