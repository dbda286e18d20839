// The sidecar's command line, exactly as the pod template gives it (container args of the
// sidecar image, rendered by src/controllers/cluster/render-statefulset.ts): the subcommand, the
// sidecar's own `--flag=value` overrides, and for the heartbeat container the pt-heartbeat
// arguments of the anchor, kept so that adopted pods do not roll. Anything else is refused with
// a message naming it: an argument silently ignored would hide a template the binary does not
// understand. Pure.
import { HEARTBEAT_TABLE } from '../mysql/operator-schema.ts';
import { SIDECAR_COMMAND } from '../api/pod-contract.ts';
import { OVERRIDE_FLAGS, type Need } from './config.ts';

export type SidecarCommand = 'clone-and-init' | 'config-and-serve' | 'heartbeat' | 'take-backup-to';

/** The configuration groups each command requires (loadConfig's `needs`). */
export const COMMAND_NEEDS: Readonly<Record<SidecarCommand, readonly Need[]>> = {
  'clone-and-init': ['identity', 'version', 'credentials', 'backup-http'],
  'config-and-serve': ['version', 'credentials', 'backup-http'],
  heartbeat: [],
  'take-backup-to': ['backup-http'],
};

export interface HeartbeatArgs {
  /** `--defaults-file`: the option file whose [client] the heartbeat connects as; undefined: `<config dir>/heartbeat.conf`. */
  defaultsFile: string | undefined;
  /** `--fail-successive-errors`: exit after this many failed attempts in a row, as pt-heartbeat does; undefined: never. */
  failSuccessiveErrors: number | undefined;
}

export interface ParsedCommandLine {
  command: SidecarCommand;
  /** The sidecar's `--flag=value` overrides, for loadConfig. */
  overrides: string[];
  positional: string[];
  heartbeat: HeartbeatArgs;
}

type Result<T> = { ok: true; value: T } | { ok: false; error: string };
export type CommandLine = Result<ParsedCommandLine>;
type Arguments = Result<Omit<ParsedCommandLine, 'command'>>;

/** Subcommand (and alias) → command, with the argument style it takes. */
const COMMANDS: Record<string, { command: SidecarCommand; style: 'sidecar' | 'pt-heartbeat'; positional: number }> = {
  [SIDECAR_COMMAND.cloneAndInit]: { command: 'clone-and-init', style: 'sidecar', positional: 0 },
  [SIDECAR_COMMAND.configAndServe]: { command: 'config-and-serve', style: 'sidecar', positional: 0 },
  run: { command: 'config-and-serve', style: 'sidecar', positional: 0 },
  heartbeat: { command: 'heartbeat', style: 'sidecar', positional: 0 },
  [SIDECAR_COMMAND.ptHeartbeat]: { command: 'heartbeat', style: 'pt-heartbeat', positional: 0 },
  [SIDECAR_COMMAND.takeBackupTo]: { command: 'take-backup-to', style: 'sidecar', positional: 2 },
};

function isSubcommand(name: string | undefined): boolean {
  return name !== undefined && Object.hasOwn(COMMANDS, name);
}

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });

/** `argv` without the program: `[subcommand, ...arguments]`. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [name, ...rest] = argv;
  if (name === undefined) return fail('no command given');
  if (!isSubcommand(name)) return fail(`unknown command '${name}'`);
  const spec = COMMANDS[name]!;
  const parsed = spec.style === 'sidecar' ? sidecarArgs(name, rest) : ptHeartbeatArgs(rest);
  if (!parsed.ok) return parsed;
  const { positional } = parsed.value;
  if (positional.length !== spec.positional) {
    return fail(
      spec.positional === 0
        ? `${name} takes no arguments, got '${positional[0]}'`
        : `${name} takes ${spec.positional} arguments, got ${positional.length}`,
    );
  }
  return { ok: true, value: { ...parsed.value, command: spec.command } };
}

function sidecarArgs(name: string, argv: readonly string[]): Arguments {
  const overrides: string[] = [];
  const positional: string[] = [];
  for (const a of argv) {
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const flag = a.split('=', 1)[0]!;
    if (!a.includes('=') || !(OVERRIDE_FLAGS as readonly string[]).includes(flag)) {
      return fail(`${name}: unknown flag '${flag}' (flags are ${OVERRIDE_FLAGS.map((f) => `${f}=...`).join(', ')})`);
    }
    overrides.push(a);
  }
  return { ok: true, value: { overrides, positional, heartbeat: NO_HEARTBEAT_ARGS } };
}

const NO_HEARTBEAT_ARGS: HeartbeatArgs = { defaultsFile: undefined, failSuccessiveErrors: undefined };

// What our heartbeat does is what these switches ask pt-heartbeat to do (heartbeat.ts), so they
// are accepted; without --update pt-heartbeat would do something else (monitor, check, stop).
const PT_SWITCHES = ['--update', '--replace', '--check-read-only', '--create-table', '--utc'] as const;
const PT_VALUES = ['--database', '--table', '--defaults-file', '--fail-successive-errors'] as const;
const [HEARTBEAT_DATABASE, HEARTBEAT_TABLE_NAME] = HEARTBEAT_TABLE.split('.') as [string, string];

/** pt-heartbeat's options, `--name value` or `--name=value`, as far as this heartbeat implements them. */
function ptHeartbeatArgs(argv: readonly string[]): Arguments {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const flag = eq < 0 ? a : a.slice(0, eq);
    if ((PT_SWITCHES as readonly string[]).includes(flag)) {
      if (eq >= 0) return fail(`pt-heartbeat: ${flag} takes no value`);
      switches.add(flag);
    } else if ((PT_VALUES as readonly string[]).includes(flag)) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') return fail(`pt-heartbeat: ${flag} needs a value`);
      values.set(flag, value);
    } else {
      return fail(`pt-heartbeat: unsupported option '${flag}' (this heartbeat implements ${[...PT_SWITCHES, ...PT_VALUES].join(' ')})`);
    }
  }
  if (!switches.has('--update')) return fail('pt-heartbeat: only --update is implemented (no --monitor, --check or --stop)');
  const database = values.get('--database') ?? HEARTBEAT_DATABASE;
  const table = values.get('--table') ?? HEARTBEAT_TABLE_NAME;
  if (database !== HEARTBEAT_DATABASE || table !== HEARTBEAT_TABLE_NAME) {
    return fail(`pt-heartbeat: this heartbeat writes ${HEARTBEAT_TABLE} only, not ${database}.${table}`);
  }
  let failSuccessiveErrors: number | undefined;
  const f = values.get('--fail-successive-errors');
  if (f !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(f)) return fail(`pt-heartbeat: --fail-successive-errors='${f}' is not a positive integer`);
    failSuccessiveErrors = Number(f);
  }
  return {
    ok: true,
    value: { overrides: [], positional, heartbeat: { defaultsFile: values.get('--defaults-file'), failSuccessiveErrors } },
  };
}
