// FieldsV1 sets (metadata.managedFields[].fieldsV1): a tree of `f:<field>`, `k:<keys json>`,
// `v:<value json>`; a node without children is a member, `.` marks a node that is a member and
// has children. Shared by applyStatus and the test API server's field ownership.
import type { FieldsV1 } from './types.ts';

/** Every member of `a` and of `b`. */
export function unionFields(a: FieldsV1, b: FieldsV1): FieldsV1 {
  const aLeaf = Object.keys(a).length === 0;
  const bLeaf = Object.keys(b).length === 0;
  if (aLeaf && bLeaf) return {};
  const out: FieldsV1 = { ...a };
  if (aLeaf || bLeaf) out['.'] = {};
  for (const [k, v] of Object.entries(b)) out[k] = k in out && k !== '.' ? unionFields(out[k]!, v) : v;
  return out;
}
