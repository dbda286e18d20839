// How one container becomes a local process: the command line that enters the pod's network
// namespace, makes a private mount and UTS namespace, mounts the pod's volumes at the container
// paths, sets the hostname, and execs the program. Pure: the I/O (existence checks, spawning)
// is the caller's. The process keeps one PID from `ip netns exec` to the program (each step
// execs the next), so signals and `nsenter -t <pid>` reach the container's program.
//
// Nothing on the host changes: every mount happens inside the private mount namespace
// (propagation private). A mount point missing on the host is created inside an overlay over
// its deepest existing parent, whose upper layer is a tmpfs private to the namespace: the
// directory exists only for the container, and the parent keeps its contents.
import { dirname, posix } from 'node:path';

export interface Mount {
  /** Host path. */
  source: string;
  /** Container path. */
  target: string;
  readOnly: boolean;
  /** A file mounted over a file (subPath of a file, /etc/hosts). */
  file: boolean;
}

export interface LaunchSpec {
  /** `''`: stay in the host's network namespace. */
  netns: string;
  /** undefined: stay in the host's UTS namespace (hostNetwork pods). */
  hostname: string | undefined;
  /** Mounted in this order. */
  mounts: readonly Mount[];
  workingDir: string | undefined;
  /** An empty directory of the kubelet's where the namespace's private tmpfs goes. */
  scratch: string;
  argv: readonly string[];
}

function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Path depth, for mounting parents before children. */
function depth(p: string): number {
  return posix.normalize(p).split('/').filter(Boolean).length;
}

/** Mounts ordered parents first, the order of equals kept (the runtime's sort). */
export function mountOrder(mounts: readonly Mount[]): Mount[] {
  return mounts.map((m, i) => ({ m, i })).sort((a, b) => depth(a.m.target) - depth(b.m.target) || a.i - b.i).map((x) => x.m);
}

/**
 * The deepest existing ancestor of each missing mount point: where an overlay must go so the mount
 * point can be made. `exists` sees the host (what the namespace starts with).
 */
export function overlaysFor(mounts: readonly Mount[], exists: (path: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of mounts) {
    if (exists(m.target)) continue;
    let parent = dirname(m.target);
    while (parent !== '/' && !exists(parent)) parent = dirname(parent);
    if (parent === '/') throw new Error(`mount path ${m.target}: its parent is /, which the sandbox kubelet cannot overlay; use a path under an existing directory`);
    // A mount source seen through the overlay would be the overlay's copy, and writes to it lost.
    const hidden = mounts.find((s) => s.source === parent || s.source.startsWith(`${parent}/`));
    if (hidden) throw new Error(`mount path ${m.target}: creating it needs an overlay over ${parent}, which holds the source of ${hidden.target}`);
    out.add(parent);
  }
  // An overlay inside another one is not needed: the outer one already makes the tree writable.
  const sorted = [...out].sort((a, b) => depth(a) - depth(b));
  return sorted.filter((p, i) => !sorted.slice(0, i).some((o) => p.startsWith(`${o}/`)));
}

/** The shell script run inside the new namespaces before the program. */
export function setupScript(spec: LaunchSpec, overlays: readonly string[]): string {
  const lines = ['set -e'];
  if (spec.hostname !== undefined) lines.push(`hostname ${q(spec.hostname)}`);
  if (overlays.length > 0) {
    lines.push(`mount -t tmpfs kubelet-scratch ${q(spec.scratch)}`);
    overlays.forEach((dir, i) => {
      const up = `${spec.scratch}/${i}`;
      lines.push(`mkdir -p ${q(`${up}/upper`)} ${q(`${up}/work`)}`);
      lines.push(`mount -t overlay overlay -o ${q(`lowerdir=${dir},upperdir=${up}/upper,workdir=${up}/work`)} ${q(dir)}`);
    });
  }
  for (const m of spec.mounts) {
    if (m.file) lines.push(`[ -e ${q(m.target)} ] || { mkdir -p ${q(dirname(m.target))}; : > ${q(m.target)}; }`);
    else lines.push(`[ -d ${q(m.target)} ] || mkdir -p ${q(m.target)}`);
    lines.push(`mount --bind ${q(m.source)} ${q(m.target)}`);
    if (m.readOnly) lines.push(`mount -o remount,bind,ro ${q(m.target)}`);
  }
  if (spec.workingDir) lines.push(`cd ${q(spec.workingDir)}`);
  lines.push('exec "$@"');
  return lines.join('\n');
}

/** argv of the whole launch. */
export function launchArgv(spec: LaunchSpec, exists: (path: string) => boolean): string[] {
  const script = setupScript(spec, overlaysFor(spec.mounts, exists));
  const uts = spec.hostname !== undefined ? ['--uts'] : [];
  const inNetns = spec.netns ? ['ip', 'netns', 'exec', spec.netns] : [];
  return [...inNetns, 'unshare', '--mount', ...uts, '--propagation', 'private', '--', '/bin/sh', '-c', script, 'container', ...spec.argv];
}
