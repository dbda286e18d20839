// x-kubernetes-list-type set/map: items (or map keys) must be unique, map keys present.
import { duplicate, required, type FieldError } from './errors.ts';
import { isPlainObject } from '../../../src/api/json-value.ts';
import { additionalSchema, propertySchema, type JSONSchemaProps } from '../../../src/api/schema-types.ts';

function checkList(list: unknown[], s: JSONSchemaProps, field: string, errs: FieldError[]): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') {
    const seen = new Set<string>();
    list.forEach((v, i) => {
      const key = JSON.stringify(v);
      if (seen.has(key)) errs.push(duplicate(`${field}[${i}]`, v));
      seen.add(key);
    });
  } else if (type === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    list.forEach((v, i) => {
      if (!isPlainObject(v)) return;
      const missing = keys.filter((k) => v[k] === undefined && s.items?.properties?.[k]?.default === undefined);
      for (const k of missing) errs.push(required(`${field}[${i}].${k}`));
      if (missing.length > 0) return;
      const keyValues: Record<string, unknown> = {};
      for (const k of keys) keyValues[k] = v[k] ?? s.items?.properties?.[k]?.default;
      const id = JSON.stringify(keys.map((k) => keyValues[k]));
      if (seen.has(id)) errs.push(duplicate(`${field}[${i}]`, keyValues));
      seen.add(id);
    });
  }
}

/** Uniqueness errors of set and map lists anywhere in `value` (field of the root: ""). */
export function validateListTypes(value: unknown, s: JSONSchemaProps | undefined, field: string, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(value)) {
    checkList(value, s, field, errs);
    for (const [i, v] of value.entries()) validateListTypes(v, s.items, `${field}[${i}]`, errs);
    return;
  }
  if (!isPlainObject(value)) return;
  const additional = additionalSchema(s);
  for (const [k, v] of Object.entries(value)) {
    const prop = propertySchema(s, k);
    if (prop) validateListTypes(v, prop, field ? `${field}.${k}` : k, errs);
    else if (additional) validateListTypes(v, additional, `${field}[${k}]`, errs);
  }
}
