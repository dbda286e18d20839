// OpenAPI value validation with kube-apiserver's error shapes: the go-openapi validator chain
// (type, allOf/anyOf/oneOf/not, string, format, number, array, enum, object) that
// apiextensions runs on every custom resource, and its conversion into field errors.
import { invalid, notSupported, required, tooLong, tooMany, typeInvalid, type FieldError } from './errors.ts';
import { deepEqual, isPlainObject, jsonTypeOf } from '../../../src/api/json-value.ts';
import { additionalSchema, propertySchema, type JSONSchemaProps } from '../../../src/api/schema-types.ts';

/** Field of an error named by a go-openapi path: a leading '.' is dropped, root is "<nil>". */
function fieldOf(path: string): string {
  const f = path.startsWith('.') ? path.slice(1) : path;
  return f === '' ? '<nil>' : f;
}

function allowedTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Formats checked cheaply; kube-apiserver ignores formats it does not know, and so do we. */
const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  date: (s) => DATE.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => UUID.test(s),
  byte: (s) => BASE64.test(s),
  ipv4: (s) => IPV4.test(s),
};

const regexCache = new Map<string, RegExp | null>();
function compilePattern(pattern: string): RegExp | null {
  if (!regexCache.has(pattern)) {
    let re: RegExp | null;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      try {
        re = new RegExp(pattern);
      } catch {
        re = null;
      }
    }
    regexCache.set(pattern, re);
  }
  return regexCache.get(pattern) ?? null;
}

/** True for `[{type: integer}, {type: string}]`, the one anyOf an int-or-string field may carry. */
export function isCanonicalIntOrStringAnyOf(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.length === 2 &&
    isPlainObject(v[0]) &&
    isPlainObject(v[1]) &&
    v[0].type === 'integer' &&
    v[1].type === 'string' &&
    Object.keys(v[0]).length === 1 &&
    Object.keys(v[1]).length === 1
  );
}

/**
 * Validates `value` against `s`; `path` is the go-openapi path ("" at the root,
 * "spec.replicas", "spec.list[0].name"). Appends to `errs` in the validator order.
 */
export function validateValue(value: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const types = allowedTypes(s);
  if (value === null || value === undefined) {
    if (types.length > 0 && !s.nullable) {
      errs.push(typeInvalid(fieldOf(path), 'null', `${path} in body must be of type ${types.join(',')}: "null"`));
    }
    checkEnum(null, s, path, errs);
    return;
  }
  const actual = jsonTypeOf(value);
  if (types.length > 0 && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
    errs.push(typeInvalid(fieldOf(path), actual, `${path} in body must be of type ${types.join(',')}: "${actual}"`));
  }
  checkComposition(value, s, path, errs);
  if (typeof value === 'string') {
    checkString(value, s, path, errs);
    checkFormat(value, s, path, errs);
  } else if (typeof value === 'number') {
    checkNumber(value, s, path, errs);
  } else if (Array.isArray(value)) {
    checkArray(value, s, path, errs);
  }
  checkEnum(value, s, path, errs);
  if (isPlainObject(value)) checkObject(value, s, path, errs);
}

function checkComposition(value: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const label = path || '.';
  if (s.allOf) for (const sub of s.allOf) validateValue(value, sub, path, errs);
  // The int-or-string anyOf only restates what the type check already covers.
  if (s.anyOf && !(s['x-kubernetes-int-or-string'] && isCanonicalIntOrStringAnyOf(s.anyOf))) {
    const ok = s.anyOf.some((sub) => {
      const e: FieldError[] = [];
      validateValue(value, sub, path, e);
      return e.length === 0;
    });
    if (!ok) errs.push(invalid(fieldOf(path), value, `${label} must validate at least one schema (anyOf)`));
  }
  if (s.oneOf) {
    const passing = s.oneOf.filter((sub) => {
      const e: FieldError[] = [];
      validateValue(value, sub, path, e);
      return e.length === 0;
    }).length;
    if (passing !== 1) errs.push(invalid(fieldOf(path), value, `${label} must validate one and only one schema (oneOf)`));
  }
  if (s.not) {
    const e: FieldError[] = [];
    validateValue(value, s.not, path, e);
    if (e.length === 0) errs.push(invalid(fieldOf(path), value, `${label} must not validate the schema (not)`));
  }
}

function checkString(value: string, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const length = [...value].length;
  if (s.maxLength !== undefined && length > s.maxLength) errs.push(tooLong(fieldOf(path), s.maxLength));
  if (s.minLength !== undefined && length < s.minLength) {
    errs.push(invalid(fieldOf(path), value, `${path} in body should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re && !re.test(value)) errs.push(invalid(fieldOf(path), value, `${path} in body should match '${s.pattern}'`));
  }
}

function checkFormat(value: string, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const check = s.format ? FORMATS[s.format] : undefined;
  if (check && !check(value)) {
    errs.push(typeInvalid(fieldOf(path), value, `${path} in body must be of type ${s.format}: "${value}"`));
  }
}

function checkNumber(value: number, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.multipleOf !== undefined && s.multipleOf !== 0 && !Number.isInteger(value / s.multipleOf)) {
    errs.push(invalid(fieldOf(path), value, `${path} in body should be a multiple of ${s.multipleOf}`));
  }
  if (s.maximum !== undefined && (s.exclusiveMaximum ? value >= s.maximum : value > s.maximum)) {
    const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
    errs.push(invalid(fieldOf(path), value, `${path} in body should be ${rel} ${s.maximum}`));
  }
  if (s.minimum !== undefined && (s.exclusiveMinimum ? value <= s.minimum : value < s.minimum)) {
    const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
    errs.push(invalid(fieldOf(path), value, `${path} in body should be ${rel} ${s.minimum}`));
  }
}

function checkArray(value: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.items) {
    for (let i = 0; i < value.length; i++) validateValue(value[i], s.items, `${path}[${i}]`, errs);
  }
  if (s.minItems !== undefined && value.length < s.minItems) {
    errs.push(invalid(fieldOf(path), value.length, `${path} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && value.length > s.maxItems) {
    errs.push(tooMany(fieldOf(path), value.length, s.maxItems));
  }
  if (s.uniqueItems && value.some((v, i) => value.findIndex((w) => deepEqual(v, w)) !== i)) {
    errs.push(invalid(fieldOf(path), value, `${path} in body shouldn't contain duplicates`));
  }
}

function checkEnum(value: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (!s.enum || s.enum.length === 0) return;
  if (s.enum.some((e) => deepEqual(e, value))) return;
  errs.push(notSupported(fieldOf(path), value, s.enum));
}

function checkObject(value: Record<string, unknown>, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const keys = Object.keys(value);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    errs.push(invalid(fieldOf(path), keys.length, `${path} in body should have at least ${s.minProperties} properties`));
    return;
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    errs.push(tooMany(fieldOf(path), keys.length, s.maxProperties));
    return;
  }
  const additional = additionalSchema(s);
  if (additional) {
    for (const k of keys) {
      if (!propertySchema(s, k)) validateValue(value[k], additional, `${path}.${k}`, errs);
    }
  }
  for (const k of keys) {
    const prop = propertySchema(s, k);
    if (prop) validateValue(value[k], prop, path ? `${path}.${k}` : k, errs);
  }
  for (const k of s.required ?? []) {
    if (!Object.hasOwn(value, k)) errs.push(required(fieldOf(`${path}.${k}`)));
  }
}
