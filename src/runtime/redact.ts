// Redaction of secret material from anything that may be logged, put in an Event, a status
// condition or an error message. It is deliberately eager: a masked harmless value costs little, a
// leaked password a lot. Every pattern of the project lives here (docs/security.md, "Redaction").

export const MASK = '***';

/**
 * Words that name a secret. An object's key containing one is masked whole; in text, a word
 * containing one is masked after `=` or `:` (`MYSQL_PWD=...`, `password: ...`, `passwd=...`).
 * `key` is too common in prose for `key: ...`: in text only `...key=value` is masked.
 */
const SECRET_WORDS = ['password', 'passwd', 'pwd', 'secret', 'token', 'credential'] as const;
const WORDS = SECRET_WORDS.join('|');

const SECRET_KEY = new RegExp(`${WORDS}|key`, 'i');

/** A value after `=`/`:`: quoted whole, or up to a separator. */
const VALUE = String.raw`("[^"]*"|'[^']*'|[^\s,;&"'}]+)`;

// Free-text patterns. Each keeps the part that says what was masked and replaces the value.
const TEXT_RULES: Array<[RegExp, string]> = [
  // scheme://user:password@host  (MySQL DSNs, S3 URLs with credentials, ...)
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):([^@\s]*)@/gi, `$1:${MASK}@`],
  // scheme://token@host: user info without a colon may be a token
  [/\b([a-z][a-z0-9+.-]*:\/\/)(?!\*\*\*@)([^:/?#@\s]+)@/gi, `$1${MASK}@`],
  // CREATE USER ... IDENTIFIED [WITH plugin] BY 'pw' | IDENTIFIED BY PASSWORD 'hash'
  [/(IDENTIFIED\b(?:\s+WITH\s+\S+)?\s+(?:BY|AS)\s+(?:PASSWORD\s+)?)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/gi, `$1'${MASK}'`],
  // CHANGE MASTER TO ... MASTER_PASSWORD='pw' (and SOURCE_PASSWORD on MySQL 8)
  [/((?:MASTER|SOURCE)_PASSWORD\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,;]+)/gi, `$1'${MASK}'`],
  // SET PASSWORD ... = 'pw' / PASSWORD('pw')
  [/(PASSWORD\s*\(\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/gi, `$1'${MASK}'`],
  // Authorization headers
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${MASK}`],
  // key=value / key: value where the key names a secret (env dumps, query strings, messages)
  [new RegExp(String.raw`\b([\w.-]*(?:${WORDS})[\w.-]*)(["']?\s*[=:]\s*)${VALUE}`, 'gi'), `$1$2${MASK}`],
  // access_key=value, key=value (a command-line option too)
  [new RegExp(String.raw`\b([\w.-]*key)(["']?\s*=\s*)${VALUE}`, 'gi'), `$1$2${MASK}`],
];

/** Masks secrets in a free-text string (log messages, error messages, Event messages, conditions). */
export function redactString(text: string): string {
  let out = text;
  for (const [re, replacement] of TEXT_RULES) out = out.replace(re, replacement);
  return out;
}

/** As redactString, and URL user info masked whole (`http://***@host`): for a value echoed back whole, such as a refused flag's. */
export function redactWithUserinfo(text: string): string {
  return redactString(text).replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/gi, `$1${MASK}@`);
}

/**
 * The last `max` characters of `text`, redacted, for quoting a log tail in a condition: redacted
 * whole first (a cut could split `password=` from its value), then cut at a line start, then
 * redacted again (a line the source had cut already may begin with a bare key).
 */
export function redactedTail(text: string, max: number): string {
  const whole = redactString(text);
  if (whole.length <= max) return whole;
  const tail = whole.slice(-max);
  const nl = tail.indexOf('\n');
  return redactString(nl >= 0 && nl < tail.length - 1 ? tail.slice(nl + 1) : tail);
}

function isSecretObject(o: Record<string, unknown>): boolean {
  return o.kind === 'Secret' && (o.apiVersion === undefined || o.apiVersion === 'v1');
}

function maskMapValues(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return MASK;
  return Object.fromEntries(Object.keys(v).map((k) => [k, MASK]));
}

function redactValue(value: unknown, seen: WeakSet<object>, secretContext: boolean): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: redactString(value.message) };
    if (value.stack) out.stack = redactString(value.stack);
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) ? MASK : redactValue(v, seen, false);
    }
    return out;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, seen, secretContext));
  if (value instanceof Date) return value.toISOString();
  const o = value as Record<string, unknown>;
  const secret = secretContext || isSecretObject(o);
  const isSecretList = o.kind === 'SecretList';
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (secret && (k === 'data' || k === 'stringData')) out[k] = maskMapValues(v);
    else if (SECRET_KEY.test(k) && v !== undefined && v !== null && v !== '') out[k] = MASK;
    else if (isSecretList && k === 'items' && Array.isArray(v)) {
      out[k] = v.map((item) => redactValue(item, seen, true));
    } else out[k] = redactValue(v, seen, false);
  }
  return out;
}

/**
 * Returns a copy of `value` with secrets masked: values under keys that name a secret, the
 * `data`/`stringData` of Secret objects (and of SecretList items), credentials in URLs and SQL
 * password clauses in strings, and the message and stack of errors. Never mutates its input.
 */
export function redact<T>(value: T): T {
  return redactValue(value, new WeakSet(), false) as T;
}

/** The message of any thrown value, redacted: for Event messages, status conditions and logs. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return redactString(err.message);
  return redactString(String(err));
}
