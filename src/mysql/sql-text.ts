// SQL text: quoting of identifiers, string literals and accounts, and the Statement value every
// builder returns. A Statement keeps its values apart from its text (`?` placeholders) so logs
// and errors show the text only; values marked secret are scrubbed from any server message.
//
// Literals are rendered by this module, not by the driver: the same rendering goes into the
// init-file (which no driver sees) and over the wire, and it is safe under any sql_mode. A quote
// is doubled (''), never backslash-escaped, so NO_BACKSLASH_ESCAPES cannot turn a value into SQL.

export class Secret {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return '<secret>';
  }
  toJSON(): string {
    return '<secret>';
  }
}

export function secret(value: string): Secret {
  return new Secret(value);
}

/** A value a placeholder takes. `raw` is trusted SQL (a keyword chosen by a builder). */
export type SqlValue = string | number | bigint | boolean | null | Secret | { raw: string };

export interface Statement {
  /** Text with `?` placeholders; safe to log. */
  sql: string;
  params: readonly SqlValue[];
  /** Text taken as written, `?` included (user-supplied SQL such as initFileExtraSQL). */
  verbatim?: boolean;
}

export function stmt(sql: string, ...params: SqlValue[]): Statement {
  return { sql, params };
}

export function verbatim(sql: string): Statement {
  return { sql, params: [], verbatim: true };
}

export function quoteString(s: string): string {
  let out = "'";
  for (const ch of s) {
    switch (ch) {
      case "'":
        out += "''";
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\0':
        out += '\\0';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\x1a':
        out += '\\Z';
        break;
      default:
        out += ch;
    }
  }
  return `${out}'`;
}

export function quoteIdentifier(name: string): string {
  if (name.length === 0 || name.includes('\0')) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`);
  return `\`${name.replaceAll('`', '``')}\``;
}

const BARE_NAME = /^[A-Za-z0-9_]+$/;

/**
 * `name@'host'`: the anchor writes plain user names bare (sys_operator@'%'); any other name is
 * quoted as a string, which MySQL and MariaDB accept in account names.
 */
export function account(user: string, host: string): string {
  const u = BARE_NAME.test(user) && !/^\d+$/.test(user) ? user : quoteString(user);
  return `${u}@${quoteString(host)}`;
}

export function renderValue(v: SqlValue): string {
  if (v === null) return 'NULL';
  if (v instanceof Secret) return quoteString(v.value);
  switch (typeof v) {
    case 'string':
      return quoteString(v);
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`cannot render ${v} as SQL`);
      return String(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? '1' : '0';
    default:
      return v.raw;
  }
}

/** The full text, values inlined. Contains secrets: send it or write it, never log it. */
export function render(s: Statement): string {
  if (s.verbatim) return s.sql;
  let i = 0;
  let out = '';
  // A `?` inside a quoted name or literal of the text (an account such as 'a?b'@'%') is no placeholder.
  let quote: string | null = null;
  for (const ch of s.sql) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      if (i >= s.params.length) throw new Error(`statement has more placeholders than values: ${s.sql}`);
      out += renderValue(s.params[i++] as SqlValue);
    } else {
      out += ch;
    }
  }
  if (i !== s.params.length) throw new Error(`statement has more values than placeholders: ${s.sql}`);
  return out;
}

/** Replaces every secret of the statement (raw and as rendered) in a server message. */
export function scrubSecrets(message: string, s: Statement | undefined): string {
  if (!s) return message;
  let out = message;
  for (const p of s.params) {
    if (!(p instanceof Secret) || p.value.length === 0) continue;
    out = out.split(quoteString(p.value).slice(1, -1)).join('<secret>');
    out = out.split(p.value).join('<secret>');
  }
  return out;
}
