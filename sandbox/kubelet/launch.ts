// How one container becomes a local process: the command line that enters the pod's network
// namespace, makes a private mount and UTS namespace, builds the container's root, mounts the
// pod's volumes at the container paths, sets the hostname, and execs the program chrooted into
// that root. Pure: the I/O (existence checks, spawning) is the caller's. The process keeps one
// PID from `ip netns exec` to the program (each step execs the next), so signals and
// `nsenter -t <pid>` reach the container's program.
//
// Nothing on the host changes: every mount happens inside the private mount namespace
// (propagation private). The container's root is a tmpfs private to the namespace holding a bind
// of each top-level entry of the host's root, so a missing top-level mount point is simply made
// there; a missing deeper one is made inside an overlay over its deepest existing parent, whose
// upper layer is on that tmpfs: the directory exists only for the container, the parent keeps
// its contents, and the volumes' sources stay host paths outside it. An overlay shows only its
// lower file system, not what is mounted below it, so the host's mounts inside the overlaid
// directory are bound in again on top of it (an overlay at /dev for /dev/termination-log keeps
// /dev/pts and /dev/shm).
import { basename, dirname, posix } from 'node:path';

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
  return mounts
    .map((m, i) => ({ m, i }))
    .sort((a, b) => depth(a.m.target) - depth(b.m.target) || a.i - b.i)
    .map((x) => x.m);
}

/**
 * The deepest existing ancestor of each missing mount point below the top level: where an overlay
 * must go so the mount point can be made. `exists` sees the host (what the namespace starts with).
 */
export function overlaysFor(mounts: readonly Mount[], exists: (path: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of mounts) {
    if (exists(m.target)) continue;
    let parent = dirname(m.target);
    while (parent !== '/' && !exists(parent)) parent = dirname(parent);
    if (parent !== '/') out.add(parent);
  }
  // An overlay inside another one is not needed: the outer one already makes the tree writable.
  const sorted = [...out].sort((a, b) => depth(a) - depth(b));
  return sorted.filter((p, i) => !sorted.slice(0, i).some((o) => p.startsWith(`${o}/`)));
}

/** The outermost of the host's mount points strictly below `dir`: what an overlay at `dir` would hide. */
export function submountsUnder(dir: string, mountPoints: readonly string[]): string[] {
  const below = [...new Set(mountPoints)].filter((p) => p.startsWith(`${dir}/`)).sort((a, b) => depth(a) - depth(b));
  return below.filter((p, i) => !below.slice(0, i).some((o) => p.startsWith(`${o}/`)));
}

/** The shell script run inside the new namespaces before the program. */
export function setupScript(spec: LaunchSpec, overlays: readonly string[], mountPoints: readonly string[]): string {
  const root = `${spec.scratch}/root`;
  const at = (p: string) => q(`${root}${p}`);
  // The host's top-level entry holding the scratch directory is bound without its submounts, so
  // the new root does not contain itself.
  const scratchTop = `/${spec.scratch.split('/').filter(Boolean)[0] ?? ''}`;
  const lines = [
    'set -e',
    `mount -t tmpfs kubelet-scratch ${q(spec.scratch)}`,
    `mkdir ${q(root)}`,
    'for e in /* /.[!.]*; do',
    '  [ -e "$e" ] || [ -L "$e" ] || continue',
    `  n=${q(root)}"$e"`,
    '  if [ -L "$e" ]; then ln -s "$(readlink "$e")" "$n"',
    `  elif [ -d "$e" ]; then mkdir "$n"; if [ "$e" = ${q(scratchTop)} ]; then mount --bind "$e" "$n"; else mount --rbind "$e" "$n"; fi`,
    '  else : > "$n"; mount --bind "$e" "$n"; fi',
    'done',
  ];
  if (spec.hostname !== undefined) lines.push(`hostname ${q(spec.hostname)}`);
  overlays.forEach((dir, i) => {
    const up = `${spec.scratch}/overlay/${i}`;
    lines.push(`mkdir -p ${q(`${up}/upper`)} ${q(`${up}/work`)}`);
    lines.push(`mount -t overlay overlay -o ${q(`lowerdir=${root}${dir},upperdir=${up}/upper,workdir=${up}/work`)} ${at(dir)}`);
    for (const sub of submountsUnder(dir, mountPoints)) lines.push(`mount --rbind ${q(sub)} ${at(sub)}`);
  });
  for (const m of spec.mounts) {
    if (m.file) lines.push(`[ -e ${at(m.target)} ] || { mkdir -p ${at(dirname(m.target))}; : > ${at(m.target)}; }`);
    else lines.push(`[ -d ${at(m.target)} ] || mkdir -p ${at(m.target)}`);
    lines.push(`mount --bind ${q(m.source)} ${at(m.target)}`);
    if (m.readOnly) lines.push(`mount -o remount,bind,ro ${at(m.target)}`);
  }
  lines.push(`exec chroot ${q(root)} /bin/sh -c 'cd "$0" && exec "$@"' ${q(spec.workingDir || '/')} "$@"`);
  return lines.join('\n');
}
/**
 * A mount point as the container's root has it. The root holds the host's top level with its
 * symlinks, so a path through one (Debian's `/var/run -> /run`, where the service account token
 * goes) is followed as the host resolves it: mounting at the unresolved path would follow the
 * absolute link out of the root, and the program would not see the volume.
 */
export function inRoot(target: string, realpath: (path: string) => string | undefined): string {
  let existing = target;
  const rest: string[] = [];
  while (existing !== '/' && realpath(existing) === undefined) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  return posix.join(realpath(existing) ?? existing, ...rest);
}

/** argv of the whole launch; `mountPoints`: the host's (/proc/self/mountinfo). */
export function launchArgv(
  spec: LaunchSpec,
  exists: (path: string) => boolean,
  realpath: (path: string) => string | undefined,
  mountPoints: readonly string[],
): string[] {
  spec = { ...spec, mounts: spec.mounts.map((m) => ({ ...m, target: inRoot(m.target, realpath) })) };
  const script = setupScript(spec, overlaysFor(spec.mounts, exists), mountPoints);
  const uts = spec.hostname !== undefined ? ['--uts'] : [];
  const inNetns = spec.netns ? ['ip', 'netns', 'exec', spec.netns] : [];
  return [...inNetns, 'unshare', '--mount', ...uts, '--propagation', 'private', '--', '/bin/sh', '-c', script, 'container', ...spec.argv];
}
