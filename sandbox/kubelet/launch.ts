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

/** An entry of the host's root directory, as the container's root repeats it. */
export interface HostEntry {
  name: string;
  kind: 'dir' | 'file' | 'link';
}

/** A field of an fstab line: space, tab, newline and backslash as octal escapes (fstab(5)). */
export function fstabField(s: string): string {
  return s.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function fstabLine(source: string, target: string, type: string, options: string): string {
  return [source, target, type, options, '0', '0'].map(fstabField).join(' ');
}

/**
 * The shell script run inside the new namespaces before the program. The mounts go through fstab
 * files written with the shell's printf and one `mount -a -T` each, not one `mount` and one
 * `mkdir` process per entry: a process start is the costly part here (a container's root binds
 * each of the host's two dozen top-level entries), and an e2e sandbox starts hundreds of them.
 * `X-mount.mkdir` makes a missing directory mount point when its line is mounted, after the lines
 * before it (a volume inside another one), so the volume lines are one file until a file mount
 * point must be made first.
 */
export function setupScript(
  spec: LaunchSpec,
  overlays: readonly string[],
  mountPoints: readonly string[],
  hostTop: readonly HostEntry[],
): string {
  const root = `${spec.scratch}/root`;
  const inRoot = (p: string) => `${root}${p}`;
  const at = (p: string) => q(inRoot(p));
  // The host's top-level entry holding the scratch directory is bound without its submounts, so
  // the new root does not contain itself.
  const scratchTop = `/${spec.scratch.split('/').filter(Boolean)[0] ?? ''}`;
  const entries = (kind: HostEntry['kind']) => hostTop.filter((e) => e.kind === kind).map((e) => `/${e.name}`);
  const [dirs, files, links] = [entries('dir'), entries('file'), entries('link')];
  const upper = (i: number) => `${spec.scratch}/overlay/${i}`;
  let tables = 0;
  const mountAll = (fstab: readonly string[]): string[] => {
    if (fstab.length === 0) return [];
    const file = q(`${spec.scratch}/fstab.${tables++}`);
    return [`printf '%s\\n' ${fstab.map(q).join(' ')} > ${file}`, `mount -a -T ${file}`];
  };
  const lines = [
    'set -e',
    `mount -t tmpfs kubelet-scratch ${q(spec.scratch)}`,
    `mkdir -p ${[root, ...dirs.map(inRoot), ...overlays.flatMap((_, i) => [`${upper(i)}/upper`, `${upper(i)}/work`])].map(q).join(' ')}`,
    ...(links.length > 0 ? [`cp -P -t ${q(root)} ${links.map(q).join(' ')}`] : []),
    ...files.map((f) => `: > ${at(f)}`),
    ...mountAll([
      ...dirs.map((d) => fstabLine(d, inRoot(d), 'none', d === scratchTop ? 'bind' : 'rbind')),
      ...files.map((f) => fstabLine(f, inRoot(f), 'none', 'bind')),
      ...overlays.flatMap((dir, i) => [
        fstabLine('overlay', inRoot(dir), 'overlay', `lowerdir=${inRoot(dir)},upperdir=${upper(i)}/upper,workdir=${upper(i)}/work`),
        ...submountsUnder(dir, mountPoints).map((sub) => fstabLine(sub, inRoot(sub), 'none', 'rbind')),
      ]),
    ]),
  ];
  if (spec.hostname !== undefined) lines.push(`hostname ${q(spec.hostname)}`);
  let batch: string[] = [];
  for (const m of spec.mounts) {
    if (m.file) {
      lines.push(...mountAll(batch));
      batch = [];
      lines.push(`[ -e ${at(m.target)} ] || { mkdir -p ${at(dirname(m.target))}; : > ${at(m.target)}; }`);
    }
    batch.push(
      fstabLine(
        m.source,
        inRoot(m.target),
        'none',
        ['bind', ...(m.readOnly ? ['ro'] : []), ...(m.file ? [] : ['X-mount.mkdir'])].join(','),
      ),
    );
  }
  lines.push(...mountAll(batch));
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

/** argv of the whole launch; `mountPoints`: the host's (/proc/self/mountinfo); `hostTop`: the entries of the host's `/`. */
export function launchArgv(
  spec: LaunchSpec,
  exists: (path: string) => boolean,
  realpath: (path: string) => string | undefined,
  mountPoints: readonly string[],
  hostTop: readonly HostEntry[],
): string[] {
  spec = { ...spec, mounts: spec.mounts.map((m) => ({ ...m, target: inRoot(m.target, realpath) })) };
  const script = setupScript(spec, overlaysFor(spec.mounts, exists), mountPoints, hostTop);
  const uts = spec.hostname !== undefined ? ['--uts'] : [];
  const inNetns = spec.netns ? ['ip', 'netns', 'exec', spec.netns] : [];
  return [...inNetns, 'unshare', '--mount', ...uts, '--propagation', 'private', '--', '/bin/sh', '-c', script, 'container', ...spec.argv];
}
