// Built-in kinds as kube-apiserver admits them: decoded (and refused with 400) against the
// Kubernetes OpenAPI schemas, then validated (422) by the schema's required fields and enums and
// by the cross-field rules no schema expresses.
import { schemaCauses } from './builtin-schema.ts';
import { ruleCauses, type RuleContext } from './builtin-rules.ts';
import type { StatusCause } from './status.ts';
import { apiVersionOf, type KObj, type ResourceDef } from './types.ts';

export { decodeBuiltin, dropUnknownFields } from './builtin-schema.ts';

/** Why the real server's validation would refuse `obj` (decoded and defaulted), in its field paths and messages;
 * by default as created through `def`'s own API version. */
export function builtinCauses(
  def: ResourceDef,
  obj: KObj,
  ctx: RuleContext = { requestVersion: apiVersionOf(def), creating: true },
): StatusCause[] {
  return [...schemaCauses(def, obj), ...ruleCauses(def, obj, ctx)];
}
