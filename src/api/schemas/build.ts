// Small builders that keep the kind schemas short and readable. They return plain
// JSONSchemaProps; two side tables carry what only the TypeScript generator needs:
// the interface name of a nested object, and the client-node type of an embedded
// Kubernetes piece (whose schema is just "preserve unknown fields").
import { CONDITION_STATUS } from '../constants.ts';
import type { JSONSchemaProps } from '../schema-types.ts';

const interfaceNames = new WeakMap<JSONSchemaProps, string>();
const embeddedTypes = new WeakMap<JSONSchemaProps, string>();

/** The generated interface name of an object schema, if it was given one. */
export function interfaceNameOf(s: JSONSchemaProps): string | undefined {
  return interfaceNames.get(s);
}

/** The client-node type name of an embedded Kubernetes piece, if the schema is one. */
export function embeddedTypeOf(s: JSONSchemaProps): string | undefined {
  return embeddedTypes.get(s);
}

type Extra = Partial<JSONSchemaProps>;

function described(description: string): { description?: string } {
  return description ? { description } : {};
}

export function str(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'string', description, ...extra };
}

export function enumOf(description: string, values: readonly string[], extra: Extra = {}): JSONSchemaProps {
  return { type: 'string', description, enum: [...values], ...extra };
}

export function int32(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'integer', format: 'int32', description, ...extra };
}

export function int64(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'integer', format: 'int64', description, ...extra };
}

export function bool(description: string, extra: Extra = {}): JSONSchemaProps {
  return { type: 'boolean', description, ...extra };
}

export function dateTime(description: string): JSONSchemaProps {
  return { type: 'string', format: 'date-time', description };
}

export function intOrString(description: string, extra: Extra = {}): JSONSchemaProps {
  return {
    ...described(description),
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
    ...extra,
  };
}

export function list(description: string, items: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps {
  return { type: 'array', description, items, ...extra };
}

/**
 * A list merged by key (x-kubernetes-list-type: map): server-side apply owns and merges its
 * items one by one, so several writers can each own some. The keys must be required (or
 * defaulted) properties of the items: kube-apiserver refuses the CRD otherwise.
 */
export function mapList(description: string, items: JSONSchemaProps, keys: readonly string[]): JSONSchemaProps {
  return list(description, items, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys] });
}

export function strList(description: string, extra: Extra = {}): JSONSchemaProps {
  return list(description, { type: 'string' }, extra);
}

export function mapOf(description: string, values: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps {
  return { type: 'object', description, additionalProperties: values, ...extra };
}

export function stringMap(description: string): JSONSchemaProps {
  return mapOf(description, { type: 'string' });
}

/** An object with known properties; `name` makes the TS generator emit it as an interface. */
export function obj(
  name: string | undefined,
  description: string,
  properties: Record<string, JSONSchemaProps>,
  extra: Extra = {},
): JSONSchemaProps {
  const s: JSONSchemaProps = { type: 'object', ...described(description), properties, ...extra };
  if (name) interfaceNames.set(s, name);
  return s;
}

/**
 * An embedded Kubernetes type (PodSpec pieces, PVC spec...). The API server that stores the
 * CR does not know those types, so the schema keeps whatever the user wrote; the kubelet or
 * the StatefulSet the operator renders validates them.
 */
export function k8sObject(tsType: string, description: string, extra: Extra = {}): JSONSchemaProps {
  const s: JSONSchemaProps = {
    type: 'object',
    ...described(description),
    'x-kubernetes-preserve-unknown-fields': true,
    ...extra,
  };
  embeddedTypes.set(s, tsType);
  return s;
}

export function k8sList(tsType: string, description: string): JSONSchemaProps {
  return list(description, k8sObject(tsType, ''));
}

/** Kubernetes-style conditions, one per type (a list map keyed by `type`); `full` adds reason and message. */
export function conditionList(name: string, description: string, full: boolean): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {
    type: str('Type of the condition.'),
    status: enumOf('Status of the condition.', Object.values(CONDITION_STATUS)),
    lastTransitionTime: dateTime('Last time the status changed.'),
  };
  if (full) {
    properties.reason = str('One-word CamelCase reason for the last transition.');
    properties.message = str('Human-readable details of the last transition.');
  }
  return mapList(description, obj(name, '', properties, { required: ['type', 'status'] }), ['type']);
}
