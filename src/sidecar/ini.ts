// Option files in the layout the anchor's ini writer (go-ini, "pretty" format) produced, so the
// files a pod gets are byte-identical to the anchor's: keys padded to the longest key of their
// section, ` = `, bare boolean keys, a blank line after every section.
//
// Values MySQL would misread (a `#` starts a comment mid-line, surrounding blanks are trimmed,
// quotes and backslashes are special) are double-quoted with MySQL's escapes. go-ini used
// backticks there, which mysqld does not understand; generated passwords are alphanumeric, so
// this only changes files the anchor got wrong.

export type IniValue = string | number | true;

export interface IniSection {
  name: string;
  /** In file order; `true` writes a bare boolean key. */
  entries: ReadonlyArray<readonly [string, IniValue]>;
}

function needsQuoting(v: string): boolean {
  return v === '' ? false : /[#"'\\\n\r\t]/.test(v) || v.trim() !== v;
}

function quote(v: string): string {
  const escaped = v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return `"${escaped}"`;
}

export function renderIni(sections: readonly IniSection[]): string {
  let out = '';
  for (const s of sections) {
    out += `[${s.name}]\n`;
    const width = Math.max(0, ...s.entries.map(([k]) => k.length));
    for (const [key, value] of s.entries) {
      if (value === true) {
        out += `${key}\n`;
        continue;
      }
      const v = String(value);
      out += `${key.padEnd(width)} = ${needsQuoting(v) ? quote(v) : v}\n`;
    }
    out += '\n';
  }
  return out;
}

function unquote(v: string): string {
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(v) ?? /^'((?:[^'\\]|\\.)*)'$/.exec(v);
  if (!m) return v;
  const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', s: ' ', b: '\b' };
  return m[1]!.replace(/\\(.)/g, (_all, c: string) => map[c] ?? c);
}

/** Reads an option file back: section → key → value (bare keys read as ''). Comments dropped. */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[([^\]]+)\]$/.exec(line);
    if (section) {
      current = out.get(section[1]!) ?? new Map<string, string>();
      out.set(section[1]!, current);
      continue;
    }
    if (!current) continue;
    const eq = line.indexOf('=');
    if (eq < 0) current.set(line, '');
    else current.set(line.slice(0, eq).trim(), unquote(line.slice(eq + 1).trim()));
  }
  return out;
}
