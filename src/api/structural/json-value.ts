// What kind of JSON value a decoded body holds: the one dispatch the validator, the Go-style
// error texts and the schema walkers share.

export type JsonType = 'null' | 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object';

export function jsonTypeOf(v: unknown): JsonType {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
