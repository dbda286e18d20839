// x-kubernetes-validations: CEL rules evaluated where kube-apiserver evaluates them (at every
// node of the object that has rules, self = the value there), reported as it reports them.
// Evaluation uses @marcbachmann/cel-js. Integers are passed as CEL ints (bigint), numbers as
// doubles. Known gaps, documented in docs/api.md: date-time/duration strings stay strings
// (upstream makes them timestamp/duration), no cost budget, Kubernetes CEL libraries
// (quantity, url, ...) are not registered. Transition rules (oldSelf) run on updates, where
// the old value at the same object path exists (lists are not correlated).
import { parse } from '@marcbachmann/cel-js';
import { forbidden, invalid, required, type FieldError } from './errors.ts';
import { isPlainObject } from '../../../src/api/json-value.ts';
import { additionalSchema, propertySchema, type JSONSchemaProps, type ValidationRule } from '../../../src/api/schema-types.ts';

type Program = ReturnType<typeof parse>;

export interface CompiledRule {
  rule: ValidationRule;
  program: Program;
  usesOldSelf: boolean;
}

const programs = new WeakMap<ValidationRule, CompiledRule>();

/** Parses a rule once; throws the parser's error for an invalid expression. */
export function compileRule(rule: ValidationRule): CompiledRule {
  let compiled = programs.get(rule);
  if (!compiled) {
    compiled = { rule, program: parse(rule.rule), usesOldSelf: /\boldSelf\b/.test(rule.rule) };
    programs.set(rule, compiled);
  }
  return compiled;
}

export function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (!s) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  if (Object.values(s.properties ?? {}).some(hasRules)) return true;
  if (hasRules(additionalSchema(s))) return true;
  return hasRules(s.items);
}

/** Converts a JSON value to CEL values, typed by the schema. */
export function toCel(v: unknown, s: JSONSchemaProps | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toCel(x, s && (propertySchema(s, k) ?? additionalSchema(s)));
    return out;
  }
  return v;
}

function typeName(s: JSONSchemaProps): string {
  return s.type ?? '';
}

function ruleError(field: string, s: JSONSchemaProps, rule: ValidationRule, detail: string): FieldError {
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(field, detail);
    case 'FieldValueRequired':
      return required(field, detail);
    default:
      return invalid(field, typeName(s), detail);
  }
}

/**
 * Evaluates every rule of `s` and its descendants on `value`; `field` is the field path
 * of `value` ("<nil>" for the root, as upstream prints a nil path).
 */
export function evaluateRules(value: unknown, oldValue: unknown, s: JSONSchemaProps | undefined, field: string, errs: FieldError[]): void {
  if (!s || value === null || value === undefined) return;
  const prefix = field === '<nil>' ? '' : field;
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    const compiled = compileRule(rule);
    if (compiled.usesOldSelf && (oldValue === null || oldValue === undefined)) continue;
    const at = rule.fieldPath ? `${prefix}${rule.fieldPath}`.replace(/^\./, '') : field;
    try {
      const vars: Record<string, unknown> = { self: toCel(value, s) };
      if (compiled.usesOldSelf) vars.oldSelf = toCel(oldValue, s);
      const result = compiled.program(vars);
      if (result !== true) {
        errs.push(ruleError(at, s, rule, rule.message ?? `failed rule: ${rule.rule.trim()}`));
      }
    } catch (e) {
      const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
      errs.push(invalid(at, typeName(s), `rule evaluation error: ${msg}`));
    }
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) evaluateRules(v, undefined, s.items, `${prefix}[${i}]`, errs);
    return;
  }
  if (!isPlainObject(value)) return;
  const old = isPlainObject(oldValue) ? oldValue : undefined;
  const additional = additionalSchema(s);
  for (const [k, v] of Object.entries(value)) {
    const prop = propertySchema(s, k);
    if (prop) {
      evaluateRules(v, old?.[k], prop, prefix ? `${prefix}.${k}` : k, errs);
    } else if (additional) {
      evaluateRules(v, old?.[k], additional, `${prefix}[${k}]`, errs);
    }
  }
}
