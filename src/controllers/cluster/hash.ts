// Stable hashes of plain JSON values: key order does not matter, content does.
import { createHash } from 'node:crypto';
import { stableStringify } from '../../api/json-value.ts';

export function stableHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex').slice(0, 32);
}
