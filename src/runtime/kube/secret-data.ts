// A Secret's `data` is base64 (core/v1); the operator works with the decoded strings.

export function decodeSecretData(data: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return out;
}

export function encodeSecretData(data: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(data).sort()) out[k] = Buffer.from(data[k]!, 'utf8').toString('base64');
  return out;
}
