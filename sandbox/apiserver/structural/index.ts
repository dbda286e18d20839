/**
 * Structural schema engine: what kube-apiserver does with a CRD's openAPIV3Schema on every
 * write of a custom resource, in-process.
 *
 * Usage (one compiled schema per CRD version):
 *
 *   import { compileSchema, formatInvalidStatus, checkCrd } from './structural/index.ts';  // in sandbox/apiserver/
 *   const errs = checkCrd(crd);                     // on CRD create: [] when structural
 *   const schema = compileSchema(version.schema.openAPIV3Schema, { scale: version.subresources?.scale });
 *   // on create/update of a CR (status already dropped on create when the status subresource is on):
 *   const warnings = schema.prune(obj);             // mutates; paths for `Warning: 299 - "unknown field \"spec.x\""`
 *   schema.applyDefaults(obj);                      // mutates
 *   const errors = schema.validate(obj, { oldObject });   // FieldError[] ({reason, message, field})
 *   if (errors.length) respond(422, goJsonStringify(formatInvalidStatus({ group, kind }, name, errors)) + '\n');
 *   // or all three at once: const { warnings, errors } = schema.admit(obj, { oldObject });
 *   // kube-apiserver also applies defaults when it reads objects from storage: call
 *   // schema.applyDefaults on stored objects before serving them after a CRD change.
 *
 * `validate` reproduces the causes of kube-apiserver v1.26 (see the fixtures
 * cr-invalid-*.json): OpenAPI errors, then the scale subresource checks (fields with a
 * leading dot), then the CEL rules, or, when a blocking error (Required, TypeInvalid,
 * TooLong, TooMany) came first, the "some validation rules were not checked" cause.
 * Set and map lists (x-kubernetes-list-type) are checked for duplicates before the rules.
 * For a PUT of the status subresource pass `{ subresource: 'status' }` (only the status
 * replicas path is checked for scale).
 */
import { evaluateRules, hasRules } from './cel.ts';
import { CEL_SKIPPED, type FieldError } from './errors.ts';
import { validateListTypes } from './list-types.ts';
import { validateValue } from './openapi-validate.ts';
import { pruneNonNullableNulls, pruneUnknown } from './prune.ts';
import { applyDefaults } from '../../../src/api/schema-defaults.ts';
import { validateScaleSpec, validateScaleStatus, type ScaleSubresource } from './scale.ts';
import type { JSONSchemaProps } from '../../../src/api/schema-types.ts';

export { checkCrd, checkStructural } from './check-structural.ts';
export {
  aggregateText,
  errorText,
  formatInvalidStatus,
  type CauseType,
  type FieldError,
  type InvalidStatus,
  type StatusCause,
} from './errors.ts';
export { goJsonStringify } from './go-json.ts';
export { deepEqual, isPlainObject } from '../../../src/api/json-value.ts';
export type { JSONSchemaProps, SchemaType, ValidationRule } from '../../../src/api/schema-types.ts';
export type { ScaleSubresource } from './scale.ts';

export interface CompileOptions {
  /** The version's `subresources.scale`, when it has one. */
  scale?: ScaleSubresource;
}

export interface ValidateOptions {
  /** The stored object on update: enables transition rules (`oldSelf`). */
  oldObject?: unknown;
  /** 'status' for writes to the status subresource. */
  subresource?: 'status';
}

export interface CompiledSchema {
  readonly schema: JSONSchemaProps;
  /** Drops unknown fields and non-nullable nulls in place; returns the unknown field paths, sorted. */
  prune(obj: unknown): string[];
  /** Applies defaults in place. */
  applyDefaults(obj: unknown): void;
  /** The validation causes, in kube-apiserver's order; [] when valid. */
  validate(obj: unknown, opts?: ValidateOptions): FieldError[];
  /** prune, applyDefaults and validate in that order. */
  admit(obj: unknown, opts?: ValidateOptions): { warnings: string[]; errors: FieldError[] };
}

// Upstream v1.26 skips CEL after these error types only (later versions add NotSupported).
const BLOCKING = new Set(['FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

export function compileSchema(openAPIV3Schema: JSONSchemaProps, options: CompileOptions = {}): CompiledSchema {
  const schema = openAPIV3Schema;
  const withRules = hasRules(schema);
  const compiled: CompiledSchema = {
    schema,
    prune(obj) {
      const paths = pruneUnknown(obj, schema, true);
      pruneNonNullableNulls(obj, schema);
      return paths;
    },
    applyDefaults(obj) {
      applyDefaults(obj, schema);
    },
    validate(obj, opts = {}) {
      const errs: FieldError[] = [];
      validateValue(obj, schema, '', errs);
      if (options.scale) {
        if (opts.subresource !== 'status') errs.push(...validateScaleSpec(obj, options.scale));
        errs.push(...validateScaleStatus(obj, options.scale));
      }
      validateListTypes(obj, schema, '', errs);
      if (withRules) {
        if (errs.some((e) => BLOCKING.has(e.reason))) errs.push(CEL_SKIPPED);
        else evaluateRules(obj, opts.oldObject, schema, '<nil>', errs);
      }
      return errs;
    },
    admit(obj, opts = {}) {
      const warnings = compiled.prune(obj);
      compiled.applyDefaults(obj);
      return { warnings, errors: compiled.validate(obj, opts) };
    },
  };
  return compiled;
}
