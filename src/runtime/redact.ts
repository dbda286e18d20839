// Redaction of secret material from anything that may be logged, put in an Event or an error
// message. It is deliberately eager: a masked harmless value costs little, a leaked password a lot.

export const MASK = '***';

const SECRET_KEY = /password|passwd|secret|token|key|credential/i;

// Free-text patterns. Each keeps the part that says what was masked and replaces the value.
const TEXT_RULES: Array<[RegExp, string]> = [
  // scheme://user:password@host  (MySQL DSNs, S3 URLs with credentials, ...)
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):([^@\s]*)@/gi, `$1:${MASK}@`],
  // CREATE USER ... IDENTIFIED [WITH plugin] BY 'pw' | IDENTIFIED BY PASSWORD 'hash'
  [/(IDENTIFIED\b(?:\s+WITH\s+\S+)?\s+(?:BY|AS)\s+(?:PASSWORD\s+)?)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/gi, `$1'${MASK}'`],
  // CHANGE MASTER TO ... MASTER_PASSWORD='pw' (and SOURCE_PASSWORD on MySQL 8)
  [/((?:MASTER|SOURCE)_PASSWORD\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,;]+)/gi, `$1'${MASK}'`],
  // SET PASSWORD ... = 'pw' / PASSWORD('pw')
  [/(PASSWORD\s*\(\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/gi, `$1'${MASK}'`],
  // Authorization headers
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${MASK}`],
  // key=value / key: value where the key names a secret (env dumps, query strings, messages)
  [/\b([\w.-]*(?:password|passwd|secret|token|credential)[\w.-]*)(["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}]+)/gi, `$1$2${MASK}`],
];

/** Masks secrets in a free-text string (log messages, error messages, Event messages). */
export function redactString(text: string): string {
  let out = text;
  for (const [re, replacement] of TEXT_RULES) out = out.replace(re, replacement);
  return out;
}

function isSecretObject(o: Record<string, unknown>): boolean {
  return o['kind'] === 'Secret' && (o['apiVersion'] === undefined || o['apiVersion'] === 'v1');
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
    if (value.stack) out['stack'] = redactString(value.stack);
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
  const isSecretList = o['kind'] === 'SecretList';
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
