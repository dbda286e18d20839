/**
 * JSON the way Go's encoding/json writes it: compact, with <, >, & and U+2028/U+2029
 * escaped (kube-apiserver bodies show `\u003cnil\u003e`). Key order is the object's.
 */
export function goJsonStringify(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
