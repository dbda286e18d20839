// Settings: what a part of the operator takes from its command line and environment, declared
// once next to the code that uses it (flag, variable, help, default, parser). From the
// declarations come the loading (one strict pass over argv and env, every problem reported),
// `--help`, and docs/flags.md. The runtime declares its own (src/runtime/config.ts), each
// controller its own (src/controllers/<name>/); see docs/runtime.md.
import { parseArgs } from 'node:util';
import { redactWithUserinfo } from './redact.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** A value a parser refused, and why: the reason reads after the value ("is not a duration ..."). */
export class Invalid {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

export interface SettingInfo {
  /** The flag without dashes: `sidecar-image`. */
  flag: string;
  /** The environment variable: `SIDECAR_IMAGE`. A flag wins over its variable. */
  env: string;
  help: string;
  /** Text used when neither the flag nor the variable is given; parsed like a given value. */
  default?: string;
  /** What `--help` and the docs say the default is, when it is worked out at start. */
  defaultText?: string;
  /** The value is never shown: not in an error, not in `--help`. */
  secret?: boolean;
}

export interface Setting<T = unknown> extends Readonly<SettingInfo> {
  /** A switch: `--flag` alone means true, `--flag=false` turns it off (Go's pflag style). */
  readonly switch?: boolean;
  /** The value of `text` (undefined: not given and no default), or why it is refused. */
  parse(text: string | undefined): T | Invalid;
}

/** The settings of one part, one per field of its options object. */
export type SettingTable<O> = { readonly [K in keyof O]-?: Setting<O[K]> };

/** A part's settings under a title, for loading, `--help` and the docs. */
export interface SettingSection {
  title: string;
  settings: SettingTable<object>;
}

// ---------------------------------------------------------------------------------------------
// Kinds of settings

/** Free text; `required` refuses an empty value. */
export function stringSetting(info: SettingInfo & { required?: boolean }): Setting<string> {
  return {
    ...info,
    parse: (text) => {
      const v = text ?? ''; // as given: a password may begin or end with a space
      return info.required && !v.trim() ? new Invalid('must not be empty') : v;
    },
  };
}

export function choiceSetting<T extends string>(info: SettingInfo, choices: readonly T[]): Setting<T> {
  return {
    ...info,
    parse: (text) => (choices.includes(text as T) ? (text as T) : new Invalid(`is not one of ${choices.join(', ')}`)),
  };
}

export function booleanSetting(info: SettingInfo): Setting<boolean> {
  return {
    ...info,
    switch: true,
    parse: (text) => {
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return new Invalid('is not true or false');
    },
  };
}

/** A duration like `30s`, `5m`, `1h30m`, `1500ms`, in milliseconds. */
export function durationSetting(info: SettingInfo): Setting<number> {
  return {
    ...info,
    parse: (text) => {
      const ms = parseDuration(text ?? '');
      return ms === undefined || ms < 1 ? new Invalid('is not a duration like 30s, 5m or 1h30m') : ms;
    },
  };
}

export function integerSetting(info: SettingInfo, min: number, max: number): Setting<number> {
  return {
    ...info,
    parse: (text) => {
      const n = Number(text);
      return text?.trim() && Number.isInteger(n) && n >= min && n <= max ? n : new Invalid(`is not an integer between ${min} and ${max}`);
    },
  };
}

export function positiveNumberSetting(info: SettingInfo): Setting<number> {
  return {
    ...info,
    parse: (text) => {
      const n = Number(text);
      return text?.trim() && Number.isFinite(n) && n > 0 ? n : new Invalid('is not a positive number');
    },
  };
}

/**
 * An `http://` or `https://` URL without user info: such a URL is copied where others read it
 * (the MySQL pods' env, for Orchestrator's), so `user:password@` in it would be a password in
 * every pod spec. Credentials come another way (docs/security.md, "URLs with credentials").
 */
export function httpUrlSetting(info: SettingInfo): Setting<string> {
  return {
    ...info,
    parse: (text) => {
      const v = (text ?? '').trim();
      let u: URL | undefined;
      try {
        u = new URL(v);
      } catch {
        u = undefined;
      }
      if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) return new Invalid('is not an http(s) URL');
      if (u.username !== '' || u.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(v)) {
        return new Invalid("carries user info (user:password@): it would be copied into every MySQL pod's spec; give the URL without it");
      }
      return v;
    },
  };
}

/** `host:port`, `:port` (all addresses) or `[v6]:port`; port 0 picks a free port. */
export function addressSetting(info: SettingInfo): Setting<{ host: string; port: number }> {
  return {
    ...info,
    parse: (text) => {
      const m = /^(.*):(\d+)$/.exec((text ?? '').trim());
      const port = Number(m?.[2]);
      if (!m || port > 65535) return new Invalid('is not host:port or :port');
      return { host: (m[1] ?? '').replace(/^\[|\]$/g, '') || '0.0.0.0', port };
    },
  };
}

/** Comma-separated `key=value` pairs (Go's StringToString flag); empty is no pair. */
export function pairsSetting(info: SettingInfo): Setting<Record<string, string>> {
  return {
    ...info,
    parse: (text) => {
      const out: Record<string, string> = {};
      for (const part of (text ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const eq = part.indexOf('=');
        if (eq <= 0 || eq === part.length - 1) return new Invalid('is not a list of key=value pairs');
        out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
      }
      return out;
    },
  };
}

/** Parses `30s`, `5m`, `1h`, `1500ms`, `1m30s`. */
export function parseDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let i = 0;
  const t = text.trim();
  if (!t) return undefined;
  while (i < t.length) {
    re.lastIndex = i;
    const m = re.exec(t);
    if (!m) return undefined;
    total += Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
    i = re.lastIndex;
  }
  return Math.round(total);
}

/** The values of a table's defaults, for code and tests that take the defaults (a bad default throws). */
export function defaultsOf<O>(table: SettingTable<O>): O {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(table) as Array<[string, Setting]>) {
    const v = s.parse(s.default);
    if (v instanceof Invalid) throw new Error(`the default of --${s.flag} ${v.reason}`);
    out[key] = v;
  }
  return out as O;
}

// ---------------------------------------------------------------------------------------------
// Loading

/** Each setting once, in declaration order; a second setting with the same flag or variable is a bug. */
export function distinctSettings(sections: readonly SettingSection[]): Setting[] {
  const out: Setting[] = [];
  const byName = new Map<string, Setting>();
  for (const section of sections) {
    for (const s of Object.values(section.settings) as Setting[]) {
      if (out.includes(s)) continue; // declared by two parts: one flag (e.g. the Orchestrator URL)
      for (const name of [`--${s.flag}`, s.env]) {
        if (byName.has(name)) throw new Error(`two settings declare ${name}`);
        byName.set(name, s);
      }
      out.push(s);
    }
  }
  return out;
}

function parseOptions(settings: readonly Setting[]): Record<string, { type: 'string' | 'boolean' }> {
  return Object.fromEntries(settings.map((s) => [s.flag, { type: s.switch ? ('boolean' as const) : ('string' as const) }]));
}

/** How a problem shows a value: quoted and masked, or not at all for a secret setting. */
function shown(s: Setting, text: string | undefined): string {
  return s.secret ? 'its value (not shown)' : `'${redactWithUserinfo(text ?? '')}'`;
}

/** `--flag (or VARIABLE)`: how problems name a setting. */
export function sourceOf(s: Setting): string {
  return `--${s.flag} (or ${s.env})`;
}

export interface SettingsRead {
  /** Per section, its options object; fields whose value was refused are missing. */
  values: Array<Record<string, unknown>>;
  /** Per section: some of its values were refused (a cross-check of that section is pointless). */
  refused: boolean[];
  problems: string[];
}

/**
 * Reads every section's settings from `argv` (flags, `--flag value` or `--flag=value`; a switch
 * takes only `--flag` or `--flag=false`) and `env`, a flag winning over its variable, the default
 * last. Collects every problem instead of stopping at the first; values of secret settings are
 * never quoted and URL userinfo is masked.
 */
export function readSettings(sections: readonly SettingSection[], argv: readonly string[], env: Env): SettingsRead {
  const settings = distinctSettings(sections);
  const byFlag = new Map(settings.map((s) => [s.flag, s]));
  const problems: string[] = [];
  const given = new Map<Setting, string>();
  const { tokens } = parseArgs({ args: [...argv], strict: false, allowPositionals: true, tokens: true, options: parseOptions(settings) });
  for (const t of tokens) {
    if (t.kind === 'positional') {
      // Not quoted: a stray argument is often a value split from its flag, and that may be a password.
      problems.push(`unexpected argument ${t.index + 1}, not shown (flags are --name value or --name=value)`);
      continue;
    }
    if (t.kind !== 'option') continue;
    const s = byFlag.get(t.name);
    if (!s) {
      problems.push(`unknown flag ${t.rawName} (--help lists them)`);
    } else if (s.switch) {
      given.set(s, t.value ?? 'true');
    } else if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-') && t.value.length > 1)) {
      problems.push(`${t.rawName} needs a value (--${s.flag}=<value> for one that starts with '-')`);
    } else {
      given.set(s, t.value);
    }
  }
  const results = new Map<Setting, unknown>();
  for (const s of settings) {
    const text = given.get(s) ?? env[s.env] ?? s.default;
    const v = s.parse(text);
    if (v instanceof Invalid) problems.push(`${sourceOf(s)}: ${shown(s, text)} ${v.reason}`);
    results.set(s, v);
  }
  const values: Array<Record<string, unknown>> = [];
  const refused: boolean[] = [];
  for (const section of sections) {
    const out: Record<string, unknown> = {};
    let bad = false;
    for (const [key, s] of Object.entries(section.settings) as Array<[string, Setting]>) {
      const v = results.get(s);
      if (v instanceof Invalid) bad = true;
      else out[key] = v;
    }
    values.push(out);
    refused.push(bad);
  }
  return { values, refused, problems };
}

/**
 * `--help` or `-h` anywhere among the flags asks for the usage instead of a run, even on a
 * command line or environment that would not load (that is when help is wanted most); not as the
 * value of a flag (`--namespace -h`).
 */
export function helpRequested(sections: readonly SettingSection[], argv: readonly string[]): boolean {
  const { tokens } = parseArgs({
    args: [...argv],
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { ...parseOptions(distinctSettings(sections)), help: { type: 'boolean', short: 'h' } },
  });
  return tokens.some((t) => t.kind === 'option' && t.name === 'help');
}

// ---------------------------------------------------------------------------------------------
// Describing

/** The default as `--help` and the docs show it; undefined when there is none. */
export function defaultShown(s: Setting): string | undefined {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.default === undefined) return undefined;
  return s.default === '' ? "''" : s.default;
}

/** The sections with each setting only under the first that declares it. */
function describedSections(sections: readonly SettingSection[]): Array<{ title: string; settings: Setting[] }> {
  const seen = new Set<Setting>();
  const out: Array<{ title: string; settings: Setting[] }> = [];
  for (const section of sections) {
    const settings = (Object.values(section.settings) as Setting[]).filter((s) => !seen.has(s));
    for (const s of settings) seen.add(s);
    if (settings.length > 0) out.push({ title: section.title, settings });
  }
  return out;
}

/** The flags part of `--help`: defaults only, never what the environment holds. */
export function usage(sections: readonly SettingSection[]): string {
  const described = describedSections(sections);
  const all = described.flatMap((d) => d.settings);
  const flagWidth = Math.max(...all.map((s) => s.flag.length + 2), 12);
  const envWidth = Math.max(...all.map((s) => s.env.length));
  const line = (flag: string, env: string, help: string) => `  ${flag.padEnd(flagWidth)}  ${env.padEnd(envWidth)}  ${help}`;
  const out: string[] = [];
  for (const d of described) {
    out.push(`${d.title}:`);
    for (const s of d.settings) {
      const def = defaultShown(s);
      out.push(line(`--${s.flag}`, s.env, `${s.help}${def !== undefined ? ` [${def}]` : ''}`));
    }
    out.push('');
  }
  out.push(line('--help, -h', '', 'print this help and exit'));
  return out.join('\n');
}

/** A Markdown reference of every setting (docs/flags.md). */
export function settingsMarkdown(sections: readonly SettingSection[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const out: string[] = [];
  for (const d of describedSections(sections)) {
    out.push(`## ${d.title}`, '', '| flag | variable | default | meaning |', '|---|---|---|---|');
    for (const s of d.settings) {
      const def = s.defaultText ?? (s.default === undefined ? 'none' : `\`${s.default === '' ? "''" : s.default}\``);
      const help = s.secret ? `${s.help} (a secret: never shown)` : s.help;
      out.push(`| \`--${s.flag}\` | \`${s.env}\` | ${cell(def)} | ${cell(help)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
