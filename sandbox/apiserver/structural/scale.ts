// The checks kube-apiserver adds for a CRD with a scale subresource: the replica paths must
// hold non-negative int32 values (causes carry the path with its leading dot, as upstream).
import { goTypeName, goV, invalid, type FieldError } from './errors.ts';

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const MAX_INT32 = 2147483647;

type Lookup = { value: unknown; found: boolean; error?: string };

/** unstructured.NestedFieldNoCopy: walks maps, reports a non-map on the way. */
function nestedField(obj: unknown, fields: string[]): Lookup {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { value: undefined, found: false };
    if (typeof val !== 'object' || Array.isArray(val)) {
      const at = `.${fields.slice(0, i + 1).join('.')}`;
      return {
        value: undefined,
        found: false,
        error: `${at} accessor error: ${goV(val)} is of the type ${goTypeName(val)}, expected map[string]interface{}`,
      };
    }
    const m = val as Record<string, unknown>;
    const field = fields[i] as string;
    if (!Object.hasOwn(m, field)) return { value: undefined, found: false };
    val = m[field];
  }
  return { value: val, found: true };
}

function nestedInt64(obj: unknown, path: string): { value: number; error?: string } {
  const fields = path.replace(/^\./, '').split('.');
  const r = nestedField(obj, fields);
  if (r.error) return { value: 0, error: r.error };
  if (!r.found) return { value: 0 };
  if (typeof r.value === 'number' && Number.isInteger(r.value)) return { value: r.value };
  const at = `.${fields.join('.')}`;
  return { value: 0, error: `${at} accessor error: ${goV(r.value)} is of the type ${goTypeName(r.value)}, expected int64` };
}

function replicasErrors(obj: unknown, path: string): FieldError[] {
  const { value, error } = nestedInt64(obj, path);
  if (error) return [invalid(path, value, error)];
  if (value < 0) return [invalid(path, value, 'should be a non-negative integer')];
  if (value > MAX_INT32) return [invalid(path, value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

export function validateScaleSpec(obj: unknown, scale: ScaleSubresource): FieldError[] {
  return replicasErrors(obj, scale.specReplicasPath);
}

export function validateScaleStatus(obj: unknown, scale: ScaleSubresource): FieldError[] {
  const errs = replicasErrors(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    const fields = scale.labelSelectorPath.replace(/^\./, '').split('.');
    const r = nestedField(obj, fields);
    if (r.error) errs.push(invalid(scale.labelSelectorPath, '', r.error));
    else if (r.found && typeof r.value !== 'string') {
      const at = `.${fields.join('.')}`;
      errs.push(
        invalid(
          scale.labelSelectorPath,
          '',
          `${at} accessor error: ${goV(r.value)} is of the type ${goTypeName(r.value)}, expected string`,
        ),
      );
    }
  }
  return errs;
}
