// Defaulting with apiextensions semantics: a property's default is set when the property is
// absent (or a non-nullable null) and its parent object exists; defaults nest, so a defaulted
// object receives the defaults of its own properties too.
import { isPlainObject } from './json-value.ts';
import { additionalSchema, propertySchema, type JSONSchemaProps } from './schema-types.ts';

function isNonNullableNull(v: unknown, s: JSONSchemaProps): boolean {
  return v === null && !s.nullable;
}

/** Applies the schema's defaults to `x` in place. */
export function applyDefaults(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return;
    x.forEach((v, i) => {
      if (isNonNullableNull(v, items) && items.default !== undefined) x[i] = structuredClone(items.default);
      else applyDefaults(v, items);
    });
    return;
  }
  if (!isPlainObject(x)) return;
  for (const [k, prop] of Object.entries(s.properties ?? {})) {
    if (prop.default === undefined) continue;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = structuredClone(prop.default);
  }
  const additional = additionalSchema(s);
  for (const k of Object.keys(x)) {
    const prop = propertySchema(s, k);
    if (prop) {
      applyDefaults(x[k], prop);
    } else if (additional) {
      if (isNonNullableNull(x[k], additional) && additional.default !== undefined) {
        x[k] = structuredClone(additional.default);
      } else {
        applyDefaults(x[k], additional);
      }
    }
  }
}
