// JSON bytes as Go's encoding/json writes them: compact with one trailing newline, `<`, `>`, `&`,
// U+2028 and U+2029 escaped; indented with two spaces and no trailing newline when pretty (as
// kube-apiserver's /version and 406 bodies are).
export function encodeJson(v: unknown, pretty = false): string {
  const text = (pretty ? JSON.stringify(v, null, 2) : JSON.stringify(v)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return pretty ? text : `${text}\n`;
}
