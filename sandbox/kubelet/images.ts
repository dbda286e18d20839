// The one table from container images to local programs: no container runtime runs here, so each
// image the operator renders (src/controllers/cluster/select-images.ts, docs/flags.md) is played
// by a program of this machine that behaves like the image's entrypoint. Kubernetes' rules on
// command/args hold: a container's `command` replaces the image's entrypoint (and then names a
// local program), its `args` replace the image's default arguments.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PT_KILL_PROGRAM } from '../../src/api/pod-contract.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** An image reference split as the runtime reads it: `registry/path/name:tag@digest`. */
export interface ImageRef {
  /** The last path component: `mariadb`, `percona-server`, `mysql-operator-sidecar`. */
  name: string;
  /** The repository path without the registry and `library/`: `percona/percona-server`. */
  repository: string;
  tag: string | undefined;
}

export function parseImage(image: string): ImageRef {
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const tag = colon > slash ? noDigest.slice(colon + 1) : undefined;
  let path = colon > slash ? noDigest.slice(0, colon) : noDigest;
  const parts = path.split('/');
  // A first component with a dot, a port or `localhost` is a registry.
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!)) parts.shift();
  if (parts[0] === 'library') parts.shift();
  path = parts.join('/');
  return { name: parts[parts.length - 1] ?? path, repository: path, tag };
}

/** One row of the table: which images, and how their entrypoint is played. */
export interface ImageRule {
  /** Shown in the container's log and the pod's Event: what runs in place of the image. */
  describe: (ref: ImageRef) => string;
  matches: (ref: ImageRef) => boolean;
  /** The entrypoint, run when the container sets no `command`. */
  entrypoint: (args: readonly string[]) => string[];
  /** The image's default arguments (CMD), used when the container sets no `args`. */
  defaultArgs?: readonly string[];
  /** Directories the image has that each container writes privately (its writable layer). */
  privateDirs?: readonly string[];
  /** Set when the rule plays the image with a stand-in, said plainly in the log and an Event. */
  standIn?: boolean;
  /** Narrows the rule to some arguments (those given, or the defaults). */
  when?: (args: readonly string[]) => boolean;
  /** The image's own environment (a Dockerfile's ENV): the container's variables override it. */
  env?: Readonly<Record<string, string>>;
}

export interface ImageTableOptions {
  /** Rules tried before the built-in ones (tests: e.g. a shell image mapped to /bin/sh). */
  extra?: readonly ImageRule[];
  /** Where `orchestrator` is looked up; default process.env.PATH. */
  path?: string;
  /**
   * Play the operator and sidecar images with the built JavaScript (dist/, `npm run build`), what
   * the images run; default the sources, which need no build.
   */
  built?: boolean;
}

export type ResolvedImage =
  | {
      ok: true;
      argv: string[];
      description: string;
      privateDirs: readonly string[];
      standIn: boolean;
      env: Readonly<Record<string, string>>;
    }
  | { ok: false; reason: string; message: string };

/** The reason a container waits with when no local program plays its image (like the runtime's ErrImageNeverPull). */
export const REASON_NO_LOCAL_PROGRAM = 'ErrImageNeverPull';

const SERVER_NAMES = new Set(['mysql', 'mysql-server', 'percona', 'percona-server', 'mariadb']);

function mariadbVersion(): string {
  try {
    return execFileSync('mariadbd', ['--version'], { encoding: 'utf8' }).match(/Ver (\S+)/)?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

let localMariadb: string | undefined;
function localServer(): string {
  localMariadb ??= mariadbVersion();
  return `MariaDB ${localMariadb} (local mariadbd)`;
}

function onPath(program: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir && existsSync(join(dir, program))) return join(dir, program);
  }
  return undefined;
}

/** The orchestrator image's config path unless its args name one (`-config F` / `--config F`). */
function orchestratorConfig(args: readonly string[]): string {
  const i = args.findIndex((a) => a === '-config' || a === '--config');
  return (i >= 0 ? args[i + 1] : undefined) ?? '/etc/orchestrator/orchestrator.conf.json';
}

/**
 * The environment of the programs this checkout's node runs in place of an image (the operator,
 * the sidecar, the Orchestrator stand-in): one compile cache for all of them (Node's
 * NODE_COMPILE_CACHE, under node_modules/, which git ignores). A process start is what costs in a
 * sandbox (each pod starts three of them, the operator restarts in the chaos tests), and with the
 * cache a sidecar's start takes a quarter of the CPU. The images themselves start once per
 * container and are left as they are.
 */
export const CHECKOUT_NODE_ENV: Readonly<Record<string, string>> = {
  NODE_COMPILE_CACHE: join(REPO, 'node_modules/.cache/node-compile-cache'),
};

function builtinRules(path: string, built: boolean): ImageRule[] {
  const orchestrator = onPath('orchestrator', path);
  // Built: what the images' ENTRYPOINTs run (images/*/Dockerfile, where `npm run build` writes it;
  // test/unit/kubelet/ holds these to scripts/build.ts's DIST). Otherwise the sources.
  const sidecar = join(REPO, built ? 'dist/sidecar/main.js' : 'src/sidecar/main.ts');
  const operator = join(REPO, built ? 'dist/main.js' : 'src/main.ts');
  return [
    {
      // MySQL 8 is not installable here (docs/architecture.md §5): every server image is played by MariaDB.
      describe: (ref) => `${localServer()} standing in for ${ref.repository}${ref.tag ? `:${ref.tag}` : ''}`,
      matches: (ref) => SERVER_NAMES.has(ref.name),
      entrypoint: (args) => ['bash', join(REPO, 'sandbox/kubelet/mysql-entrypoint.sh'), ...args],
      defaultArgs: ['mysqld'],
      privateDirs: ['/run/mysqld'],
    },
    {
      // pt-kill is the sidecar image's own percona-toolkit program, not a sidecar command.
      describe: () => "Debian's percona-toolkit pt-kill (the sidecar image's own program)",
      matches: (ref) => /^mysql-operator-sidecar/.test(ref.name),
      entrypoint: (args) => [...args],
      when: (args) => args[0] === PT_KILL_PROGRAM,
    },
    {
      describe: () => `this checkout's sidecar (node ${relative(REPO, sidecar)})`,
      matches: (ref) => /^mysql-operator-sidecar/.test(ref.name),
      entrypoint: (args) => [process.execPath, sidecar, ...args],
      env: CHECKOUT_NODE_ENV,
    },
    {
      describe: () => `this checkout's operator (node ${relative(REPO, operator)})`,
      matches: (ref) => ref.name === 'mysql-operator',
      entrypoint: (args) => [process.execPath, operator, ...args],
      env: CHECKOUT_NODE_ENV,
    },
    {
      describe: () => "Debian's prometheus-mysqld-exporter",
      matches: (ref) => ref.name === 'mysqld-exporter' || ref.name === 'mysqld_exporter',
      entrypoint: (args) => ['prometheus-mysqld-exporter', ...args],
    },
    orchestrator
      ? {
          describe: () => `the orchestrator binary ${orchestrator}`,
          matches: (ref) => /orchestrator/.test(ref.name),
          entrypoint: (args) => [orchestrator, ...args],
          defaultArgs: ['-config', '/etc/orchestrator/orchestrator.conf.json', 'http'],
        }
      : {
          describe: () =>
            "the project's Orchestrator stand-in (node sandbox/orchestrator/main.ts), not a real Orchestrator: no orchestrator binary on PATH",
          matches: (ref) => /orchestrator/.test(ref.name),
          entrypoint: (args) => [
            process.execPath,
            join(REPO, 'sandbox/orchestrator/main.ts'),
            '--listen',
            '0.0.0.0:3000',
            '--config',
            orchestratorConfig(args),
          ],
          env: CHECKOUT_NODE_ENV,
          standIn: true,
        },
  ];
}

/** What to run for a container: its `command` and `args` (already `$(VAR)`-expanded) over the image's. */
export function resolveImage(
  image: string,
  command: readonly string[],
  args: readonly string[],
  opts: ImageTableOptions = {},
): ResolvedImage {
  const ref = parseImage(image);
  const rule = [...(opts.extra ?? []), ...builtinRules(opts.path ?? process.env.PATH ?? '', opts.built ?? false)].find(
    (r) => r.matches(ref) && (!r.when || r.when(args.length > 0 ? args : (r.defaultArgs ?? []))),
  );
  if (!rule) {
    return {
      ok: false,
      reason: REASON_NO_LOCAL_PROGRAM,
      message: `no local program for image ${image} (the sandbox maps images in sandbox/kubelet/images.ts)`,
    };
  }
  const argsOrDefault = args.length > 0 ? [...args] : [...(rule.defaultArgs ?? [])];
  const argv = command.length > 0 ? [...command, ...args] : rule.entrypoint(argsOrDefault);
  return {
    ok: true,
    argv,
    description: rule.describe(ref),
    privateDirs: rule.privateDirs ?? [],
    standIn: rule.standIn ?? false,
    env: rule.env ?? {},
  };
}
