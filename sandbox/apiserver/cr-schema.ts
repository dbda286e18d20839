// Custom resource admission through the project's structural schema engine (structural/):
// prune unknown fields, apply defaults, validate (OpenAPI, scale subresource, CEL subset), with
// the causes kube-apiserver gives.
import { compileSchema, type CompiledSchema, type JSONSchemaProps } from './structural/index.ts';
import type { StatusCause } from './status.ts';
import type { KObj, ResourceDef } from './types.ts';

export interface CrAdmission {
  object: KObj;
  /** Paths of pruned unknown fields, like `spec.unknownField` (Warning headers / Strict 400). */
  unknownFields: string[];
  causes: StatusCause[];
}

const compiled = new WeakMap<ResourceDef, CompiledSchema>();

function schemaOf(def: ResourceDef): CompiledSchema | undefined {
  if (!def.schema) return undefined;
  let c = compiled.get(def);
  if (!c) {
    c = compileSchema(def.schema as JSONSchemaProps, def.scale ? { scale: def.scale } : {});
    compiled.set(def, c);
  }
  return c;
}

/** Mutates `obj` (pruned, defaulted) and returns it with what admission found. */
export function admitCustomResource(def: ResourceDef, obj: KObj, old: KObj | undefined, subresource: string | undefined): CrAdmission {
  const schema = schemaOf(def);
  if (!schema) return { object: obj, unknownFields: [], causes: [] };
  const { warnings, errors } = schema.admit(obj, {
    ...(old ? { oldObject: old } : {}),
    ...(subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  return { object: obj, unknownFields: warnings, causes: errors };
}

/** Defaults of the current schema on an object stored under an older one, as kube-apiserver applies them on read. */
export function defaultCustomResource(def: ResourceDef, obj: KObj): KObj {
  const schema = schemaOf(def);
  if (schema) schema.applyDefaults(obj);
  return obj;
}
