// A kind's CRD as a plain object and its root schema: what the operator needs of the generated API
// at run time (the defaults, docs/api.md). Rendering the files (YAML, TypeScript types) is
// generate.ts's, which only `npm run gen` and tests load, so the images carry no YAML writer.
import { API_GROUP, API_VERSION } from './constants.ts';
import type { KindDefinition } from './schemas/index.ts';
import type { JSONSchemaProps } from './schema-types.ts';

export function crdName(def: KindDefinition): string {
  return `${def.plural}.${API_GROUP}`;
}

/** The full openAPIV3Schema of a kind, as served by the API server. */
export function rootSchema(def: KindDefinition): JSONSchemaProps {
  const schema: JSONSchemaProps = {
    description: def.description,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: 'Versioned schema of this object: mysql.presslabs.org/v1alpha1.' },
      kind: { type: 'string', description: `The kind of this object: ${def.kind}.` },
      metadata: { type: 'object' },
      spec: def.spec,
      status: def.status,
    },
  };
  if (def.specRequired) schema.required = ['spec'];
  return schema;
}

/** The apiextensions.k8s.io/v1 CustomResourceDefinition of a kind, as a plain object. */
export function buildCrd(def: KindDefinition): Record<string, unknown> {
  const version: Record<string, unknown> = { name: API_VERSION, served: true, storage: true };
  version.subresources = def.scale ? { status: {}, scale: { ...def.scale } } : { status: {} };
  version.additionalPrinterColumns = def.printerColumns.map((c) => ({ ...c }));
  version.schema = { openAPIV3Schema: plain(rootSchema(def)) };
  const names: Record<string, unknown> = {
    kind: def.kind,
    listKind: `${def.kind}List`,
    plural: def.plural,
    singular: def.singular,
  };
  if (def.shortNames) names.shortNames = [...def.shortNames];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName(def) },
    spec: { group: API_GROUP, names, scope: 'Namespaced', versions: [version] },
  };
}

/** A deep copy through JSON, so the CRD carries no shared references to schema objects. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
