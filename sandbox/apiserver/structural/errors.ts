// Field errors shaped like kube-apiserver's (k8s.io/apimachinery field.Error), and the 422
// Status body it builds from them. Messages follow the Go formatting byte for byte where the
// fixtures in test/fixtures/kube-apiserver show it.
import { jsonTypeOf, type JsonType } from '../../../src/api/json-value.ts';

export type CauseType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate';

/** One cause of a 422: `message` is the error body without the field, as in Status causes. */
export interface FieldError {
  reason: CauseType;
  field: string;
  message: string;
}

const TYPE_TEXT: Record<CauseType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
};

/** A Go int (not int64): printed with %#v by field.Error, which reads the same as %v. */
export class GoInt {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

/** Go's strconv.Quote for the strings we meet (JSON quoting differs only for rare controls). */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1');
}

/** Go `%v` of a value decoded from JSON. */
export function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goV((v as Record<string, unknown>)[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** Go `%T` of each JSON type once decoded into unstructured content. */
const GO_TYPE_NAME: Record<JsonType, string> = {
  null: '<nil>',
  string: 'string',
  boolean: 'bool',
  integer: 'int64',
  number: 'float64',
  array: '[]interface {}',
  object: 'map[string]interface {}',
};

/** Go `%T` of a value decoded from JSON into unstructured content. */
export function goTypeName(v: unknown): string {
  return GO_TYPE_NAME[jsonTypeOf(v)];
}

/** Go `%#v` of an interface{} holding a JSON value (used for maps and slices). */
function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    const entries = keys.map((k) => `${goQuote(k)}:${goSharpV((v as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  if (typeof v === 'string') return goQuote(v);
  return String(v);
}

function badValueText(v: unknown): string {
  if (v === null || v === undefined) return goQuote('null');
  if (v instanceof GoInt) return String(v.value);
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return goSharpV(v);
}

function make(reason: CauseType, field: string, badValue: unknown, detail: string, withValue = true): FieldError {
  let message = TYPE_TEXT[reason];
  if (withValue) message += `: ${badValueText(badValue)}`;
  if (detail) message += `: ${detail}`;
  return { reason, field, message };
}

export function required(field: string, detail = ''): FieldError {
  return make('FieldValueRequired', field, undefined, detail, false);
}

export function invalid(field: string, badValue: unknown, detail: string): FieldError {
  return make('FieldValueInvalid', field, badValue, detail);
}

export function typeInvalid(field: string, badValue: unknown, detail: string): FieldError {
  return make('FieldValueTypeInvalid', field, badValue, detail);
}

export function notSupported(field: string, badValue: unknown, supported: unknown[]): FieldError {
  const quoted = supported.map((s) => goQuote(typeof s === 'string' ? s : JSON.stringify(s)));
  return make('FieldValueNotSupported', field, badValue, quoted.length ? `supported values: ${quoted.join(', ')}` : '');
}

export function tooLong(field: string, maxLength: number): FieldError {
  return make('FieldValueTooLong', field, undefined, `may not be longer than ${maxLength}`, false);
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return make('FieldValueTooMany', field, new GoInt(actual), `must have at most ${max} items`);
}

export function forbidden(field: string, detail: string): FieldError {
  return make('FieldValueForbidden', field, undefined, detail, false);
}

export function duplicate(field: string, value: unknown): FieldError {
  return make('FieldValueDuplicate', field, value, '');
}

/** The extra cause kube-apiserver adds when it skipped CEL rules because of blocking errors. */
export const CEL_SKIPPED: FieldError = invalid(
  '<nil>',
  null,
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
);

/** `field: message`, as field.Error.Error() prints it. */
export function errorText(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** Joins errors like utilerrors.NewAggregate(...).Error(): duplicates dropped, [a, b] for many. */
export function aggregateText(errors: readonly FieldError[]): string {
  const seen: string[] = [];
  for (const e of errors) {
    const t = errorText(e);
    if (!seen.includes(t)) seen.push(t);
  }
  return seen.length === 1 ? (seen[0] ?? '') : `[${seen.join(', ')}]`;
}

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

export interface InvalidStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: 'Invalid';
  details: { name: string; group?: string; kind: string; causes?: StatusCause[] };
  code: 422;
}

/**
 * The 422 Status kube-apiserver returns for an invalid object (apierrors.NewInvalid), keys in
 * the server's order. `group` is '' for core kinds.
 */
export function formatInvalidStatus(gk: { group: string; kind: string }, name: string, errors: readonly FieldError[]): InvalidStatus {
  const qualified = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const head = `${qualified} ${goQuote(name)} is invalid`;
  // Built key by key: Status JSON keeps the server's order (name, group, kind, causes).
  const details = { name } as InvalidStatus['details'];
  if (gk.group) details.group = gk.group;
  details.kind = gk.kind;
  if (errors.length > 0) {
    details.causes = errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
  }
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: errors.length > 0 ? `${head}: ${aggregateText(errors)}` : head,
    reason: 'Invalid',
    details,
    code: 422,
  };
}
