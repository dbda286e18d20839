// JSON bytes as Go's encoding/json writes them: compact, `<`, `>`, `&`, U+2028 and U+2029
// escaped, one trailing newline; indented with two spaces when asked to be pretty.
export function encodeJson(v: unknown, pretty = false): string {
  const text = pretty ? JSON.stringify(v, null, 2) : JSON.stringify(v);
  return `${text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}
