// Helpers shared by the API tests: the generated CRDs loaded from crds/, compiled once.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { crdName } from '../../../src/api/crd.ts';
import { KINDS } from '../../../src/api/schemas/index.ts';
import { compileSchema, errorText, type CompiledSchema, type JSONSchemaProps } from '../../../sandbox/apiserver/structural/index.ts';
import type { JsonObject } from '../../support/json.ts';

export const REPO = new URL('../../../', import.meta.url).pathname;

export interface LoadedCrd {
  crd: JsonObject;
  schema: CompiledSchema;
}

/** kind → the CRD in crds/ (as a real API server would load it) and its compiled schema. */
export function loadCrds(): Map<string, LoadedCrd> {
  const out = new Map<string, LoadedCrd>();
  for (const def of KINDS) {
    const crd = parse(readFileSync(`${REPO}crds/${crdName(def)}.yaml`, 'utf8')) as JsonObject;
    const version = crd.spec.versions[0];
    const schema = compileSchema(version.schema.openAPIV3Schema as JSONSchemaProps, { scale: version.subresources?.scale });
    out.set(def.kind, { crd, schema });
  }
  return out;
}

/**
 * What the API server does with a body: on create the status is dropped (status subresource);
 * unknown fields are pruned, defaults applied, then the object is validated.
 */
export function admit(crds: Map<string, LoadedCrd>, body: JsonObject, opts: { keepStatus?: boolean } = {}) {
  const loaded = crds.get(body.kind);
  if (!loaded) throw new Error(`no CRD for kind ${String(body.kind)}`);
  const obj = structuredClone(body);
  if (!opts.keepStatus) delete obj.status;
  const { warnings, errors } = loaded.schema.admit(obj);
  return { obj, warnings, errors, messages: errors.map(errorText) };
}
