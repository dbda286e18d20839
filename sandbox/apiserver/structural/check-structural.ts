// Is a CRD schema structural? The apiextensions.k8s.io/v1 rules a kube-apiserver applies when
// a CRD is created, so a CRD our test API server accepts is one a real cluster accepts.
// Field paths are upstream's (`...openAPIV3Schema.properties[spec].type`); messages are close
// to upstream's but not guaranteed byte-equal.
import { compileRule } from './cel.ts';
import { errorText, forbidden, invalid, notSupported, required, type FieldError } from './errors.ts';
import { isPlainObject } from '../../../src/api/json-value.ts';
import { isCanonicalIntOrStringAnyOf, validateValue } from './openapi-validate.ts';
import { pruneUnknown } from './prune.ts';
import type { JSONSchemaProps } from '../../../src/api/schema-types.ts';

type Raw = Record<string, unknown>;

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** Keys of JSONSchemaProps a structural v1 schema may not use at all. */
const FORBIDDEN_KEYS: Record<string, string> = {
  $ref: '$ref is not supported',
  $schema: '$schema is not supported',
  id: 'id is not supported',
  definitions: 'definitions is not supported',
  dependencies: 'dependencies is not supported',
  patternProperties: 'patternProperties is not supported',
  additionalItems: 'additionalItems is not supported',
};

/** Keys that belong to the structural part and may not appear inside allOf/anyOf/oneOf/not. */
const NOT_IN_VALUE_VALIDATION = [
  'type',
  'default',
  'description',
  'nullable',
  'additionalProperties',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

class Checker {
  readonly errs: FieldError[] = [];

  node(s: unknown, path: string, where: 'root' | 'property' | 'items' | 'additionalProperties'): void {
    if (!isPlainObject(s)) {
      this.errs.push(invalid(path, s, 'must be a schema object'));
      return;
    }
    for (const [k, why] of Object.entries(FORBIDDEN_KEYS)) {
      if (k in s) this.errs.push(forbidden(`${path}.${k}`, why));
    }
    const type = s.type;
    const preserve = s['x-kubernetes-preserve-unknown-fields'];
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const embedded = s['x-kubernetes-embedded-resource'] === true;

    if (where === 'root' && type !== 'object') {
      this.errs.push(invalid(`${path}.type`, type ?? '', 'must be object at the root'));
    }
    if (type === undefined || type === '') {
      if (!intOrString && preserve !== true && where !== 'root') {
        const detail = where === 'items' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
        this.errs.push(required(`${path}.type`, detail));
      }
    } else if (typeof type !== 'string' || !TYPES.includes(type)) {
      this.errs.push(notSupported(`${path}.type`, type, TYPES));
    }
    if (preserve !== undefined && preserve !== true) {
      this.errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, preserve, 'must be true or undefined'));
    }
    if (intOrString) {
      if (type !== undefined && type !== '') {
        this.errs.push(invalid(`${path}.type`, type, 'must be empty if x-kubernetes-int-or-string is true'));
      }
      if (s.anyOf !== undefined && !isCanonicalIntOrStringAnyOf(s.anyOf)) {
        this.errs.push(
          invalid(`${path}.anyOf`, s.anyOf, 'must be [{type: integer}, {type: string}] if x-kubernetes-int-or-string is true'),
        );
      }
    }
    if (embedded) {
      if (type !== 'object')
        this.errs.push(invalid(`${path}.type`, type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
      if (preserve !== true && !isPlainObject(s.properties)) {
        this.errs.push(
          required(
            `${path}.properties`,
            'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
          ),
        );
      }
    }
    if (s.uniqueItems === true) {
      this.errs.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
    }
    if (s.nullable === true && where === 'root') this.errs.push(forbidden(`${path}.nullable`, 'nullable cannot be true at the root'));

    this.children(s, path, type);
    this.valueValidations(s, path, intOrString);
    this.listType(s, path);
    this.rules(s, path);
    if (where === 'root') this.rootMetadata(s, path);
    if ('default' in s) this.defaultValue(s, path);
  }

  private children(s: Raw, path: string, type: unknown): void {
    const props = s.properties;
    if (props !== undefined) {
      if (!isPlainObject(props)) this.errs.push(invalid(`${path}.properties`, props, 'must be a map of schemas'));
      else for (const [k, v] of Object.entries(props)) this.node(v, `${path}.properties[${k}]`, 'property');
    }
    const ap = s.additionalProperties;
    if (ap !== undefined) {
      if (ap === false) this.errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties cannot be set to false'));
      else if (props !== undefined) {
        this.errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
      } else if (isPlainObject(ap)) this.node(ap, `${path}.additionalProperties`, 'additionalProperties');
    }
    const items = s.items;
    if (type === 'array' && items === undefined) this.errs.push(required(`${path}.items`, 'must be specified'));
    if (items !== undefined) {
      if (Array.isArray(items)) this.errs.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
      else this.node(items, `${path}.items`, 'items');
    }
  }

  /** allOf/anyOf/oneOf/not may only restrict values, and only of fields the structure declares. */
  private valueValidations(s: Raw, path: string, intOrString: boolean): void {
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = s[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        this.errs.push(invalid(`${path}.${key}`, list, 'must be a list of schemas'));
        continue;
      }
      const canonical = intOrString && (key === 'anyOf' || key === 'allOf') && isCanonicalIntOrStringAnyOf(list);
      for (const [i, sub] of list.entries()) this.valueValidation(sub, `${path}.${key}[${i}]`, s, canonical);
    }
    if (s.not !== undefined) this.valueValidation(s.not, `${path}.not`, s, false);
  }

  private valueValidation(v: unknown, path: string, structural: Raw, allowType: boolean): void {
    if (!isPlainObject(v)) return;
    for (const k of NOT_IN_VALUE_VALIDATION) {
      if (k === 'type' && allowType) continue;
      if (k in v) this.errs.push(forbidden(`${path}.${k}`, 'must not be specified in a value validation (allOf, anyOf, oneOf, not)'));
    }
    const props = v.properties;
    if (isPlainObject(props)) {
      const known = isPlainObject(structural.properties) ? structural.properties : {};
      for (const [k, sub] of Object.entries(props)) {
        if (!(k in known)) {
          this.errs.push(
            required(
              `${path.replace(/\.(allOf|anyOf|oneOf)\[\d+\]$|\.not$/, '')}.properties[${k}]`,
              `because it is defined in ${path.split('.').pop()}.properties[${k}]`,
            ),
          );
        } else {
          this.valueValidation(sub, `${path}.properties[${k}]`, known[k] as Raw, false);
        }
      }
    }
    if (isPlainObject(v.items)) {
      this.valueValidation(v.items, `${path}.items`, isPlainObject(structural.items) ? structural.items : {}, false);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = v[key];
      if (Array.isArray(list)) for (const [i, sub] of list.entries()) this.valueValidation(sub, `${path}.${key}[${i}]`, structural, false);
    }
    if (v.not !== undefined) this.valueValidation(v.not, `${path}.not`, structural, false);
  }

  private listType(s: Raw, path: string): void {
    const lt = s['x-kubernetes-list-type'];
    if (lt === undefined) return;
    if (s.type !== 'array') {
      this.errs.push(invalid(`${path}.x-kubernetes-list-type`, lt, 'must only be used if type is array'));
      return;
    }
    if (lt !== 'atomic' && lt !== 'set' && lt !== 'map') {
      this.errs.push(notSupported(`${path}.x-kubernetes-list-type`, lt, ['atomic', 'set', 'map']));
      return;
    }
    const keys = s['x-kubernetes-list-map-keys'];
    const items = isPlainObject(s.items) ? s.items : {};
    if (lt === 'map') {
      if (!Array.isArray(keys) || keys.length === 0) {
        this.errs.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
      }
      if (items.type !== 'object') {
        this.errs.push(invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
      }
      if (Array.isArray(keys)) this.mapKeys(keys, items, path);
    } else if (keys !== undefined) {
      this.errs.push(forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty if x-kubernetes-list-type is not map'));
    }
    if (lt === 'set' && (items.type === 'object' || items.type === 'array') && items['x-kubernetes-map-type'] !== 'atomic') {
      this.errs.push(invalid(`${path}.items.type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is set"));
    }
    if ((lt === 'set' || lt === 'map') && items.nullable === true) {
      this.errs.push(forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${lt}`));
    }
  }

  /** Upstream's checks of x-kubernetes-list-map-keys: item properties, scalar, unique, never absent nor null. */
  private mapKeys(keys: unknown[], items: Raw, path: string): void {
    const props = isPlainObject(items.properties) ? items.properties : {};
    const requiredKeys = Array.isArray(items.required) ? items.required : [];
    const seen = new Set<unknown>();
    for (const k of keys) {
      const prop = typeof k === 'string' && isPlainObject(props[k]) ? props[k] : undefined;
      if (!prop) {
        this.errs.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
      } else if (prop.type === 'array' || prop.type === 'object') {
        this.errs.push(
          invalid(
            `${path}.items.properties[${String(k)}].type`,
            items.type,
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      }
      if (seen.has(k)) this.errs.push(invalid(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
      seen.add(k);
      if (!prop) continue;
      if (!requiredKeys.includes(k) && prop.default === undefined) {
        this.errs.push(
          required(
            `${path}.items.properties[${String(k)}].default`,
            'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
          ),
        );
      }
      if (prop.nullable === true) {
        this.errs.push(
          forbidden(
            `${path}.items.properties[${String(k)}].nullable`,
            'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
          ),
        );
      }
    }
  }

  private rules(s: Raw, path: string): void {
    const rules = s['x-kubernetes-validations'];
    if (rules === undefined) return;
    if (!Array.isArray(rules)) {
      this.errs.push(invalid(`${path}.x-kubernetes-validations`, rules, 'must be a list of rules'));
      return;
    }
    rules.forEach((r, i) => {
      const at = `${path}.x-kubernetes-validations[${i}]`;
      if (!isPlainObject(r) || typeof r.rule !== 'string' || r.rule.trim() === '') {
        this.errs.push(required(`${at}.rule`));
        return;
      }
      try {
        compileRule(r as unknown as { rule: string });
      } catch (e) {
        const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
        this.errs.push(invalid(`${at}.rule`, r.rule, `compilation failed: ${msg}`));
      }
    });
  }

  private rootMetadata(s: Raw, path: string): void {
    const props = s.properties;
    if (!isPlainObject(props) || !isPlainObject(props.metadata)) return;
    const meta = props.metadata;
    const allowed = new Set(['type', 'properties', 'description']);
    const extra = Object.keys(meta).filter((k) => !allowed.has(k));
    const metaProps = isPlainObject(meta.properties) ? Object.keys(meta.properties) : [];
    if (extra.length > 0 || metaProps.some((k) => k !== 'name' && k !== 'generateName')) {
      this.errs.push(
        forbidden(
          `${path}.properties[metadata]`,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }

  private defaultValue(s: Raw, path: string): void {
    const schema = s as JSONSchemaProps;
    const value = structuredClone(s.default);
    const pruned = pruneUnknown(value, schema, false);
    if (pruned.length > 0) {
      this.errs.push(invalid(`${path}.default`, s.default, `must not have unknown fields: ${pruned.join(', ')}`));
    }
    const errs: FieldError[] = [];
    validateValue(s.default, schema, 'default', errs);
    for (const e of errs) this.errs.push(invalid(`${path}.default`, s.default, errorText(e)));
  }
}

/**
 * The structural-schema errors of one openAPIV3Schema. `basePath` names the schema in the CRD
 * (the default is the first version's).
 */
export function checkStructural(schema: unknown, basePath = 'spec.versions[0].schema.openAPIV3Schema'): FieldError[] {
  const c = new Checker();
  c.node(schema, basePath, 'root');
  return c.errs;
}

function checkNames(crd: Raw, spec: Raw, errs: FieldError[]): void {
  const group = spec.group;
  const names = isPlainObject(spec.names) ? spec.names : {};
  const plural = names.plural;
  if (typeof group !== 'string' || group === '') errs.push(required('spec.group'));
  else if (!group.includes('.')) errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  if (typeof plural !== 'string' || plural === '') errs.push(required('spec.names.plural'));
  else if (plural !== plural.toLowerCase()) errs.push(invalid('spec.names.plural', plural, 'must be lowercase'));
  if (typeof names.kind !== 'string' || names.kind === '') errs.push(required('spec.names.kind'));
  const name = isPlainObject(crd.metadata) ? crd.metadata.name : undefined;
  if (typeof plural === 'string' && typeof group === 'string' && name !== `${plural}.${group}`) {
    errs.push(invalid('metadata.name', name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }
  const scope = spec.scope;
  if (scope !== 'Namespaced' && scope !== 'Cluster') errs.push(notSupported('spec.scope', scope ?? '', ['Cluster', 'Namespaced']));
}

/** The errors kube-apiserver reports for the names, schemas and subresources of a v1 CRD object. */
export function checkCrd(crd: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : undefined;
  if (!isPlainObject(crd) || !spec) return [required('spec')];
  checkNames(crd, spec, errs);
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const storage = versions.filter((v) => isPlainObject(v) && v.storage === true).length;
  if (storage !== 1) errs.push(invalid('spec.versions', versions.length, 'must have exactly one version marked as storage version'));
  versions.forEach((v, i) => {
    const base = `spec.versions[${i}]`;
    const schema = isPlainObject(v) && isPlainObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (schema === undefined) {
      errs.push(required(`${base}.schema.openAPIV3Schema`, 'schemas are required'));
      return;
    }
    errs.push(...checkStructural(schema, `${base}.schema.openAPIV3Schema`));
    const scale = isPlainObject(v) && isPlainObject(v.subresources) ? v.subresources.scale : undefined;
    if (isPlainObject(scale)) {
      const specPath = scale.specReplicasPath;
      const statusPath = scale.statusReplicasPath;
      if (typeof specPath !== 'string' || !specPath.startsWith('.spec.')) {
        errs.push(invalid(`${base}.subresources.scale.specReplicasPath`, specPath ?? '', 'should be a json path under .spec'));
      }
      if (typeof statusPath !== 'string' || !statusPath.startsWith('.status.')) {
        errs.push(invalid(`${base}.subresources.scale.statusReplicasPath`, statusPath ?? '', 'should be a json path under .status'));
      }
    }
  });
  return errs;
}
