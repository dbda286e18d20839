// Behaviour of the structural schema engine on small schemas: pruning, defaulting,
// validation messages, CEL rules and the structural-schema check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkCrd,
  checkStructural,
  compileSchema,
  errorText,
  formatInvalidStatus,
  type FieldError,
  type JSONSchemaProps,
} from '../../../sandbox/apiserver/structural/index.ts';
import type { JsonObject } from '../../support/json.ts';

function root(spec: JSONSchemaProps, status?: JSONSchemaProps): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec,
  };
  if (status) properties.status = status;
  return { type: 'object', properties };
}

function cr(spec: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'x.example/v1', kind: 'Thing', metadata: { name: 't' }, spec, ...extra };
}

function texts(errors: FieldError[]): string[] {
  return errors.map(errorText);
}

describe('prune', () => {
  const schema = compileSchema(
    root({
      type: 'object',
      properties: {
        name: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { x: { type: 'string' } } } },
        },
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { y: { type: 'string' } } } },
        },
        nullable: { type: 'string', nullable: true },
        plain: { type: 'string' },
      },
    }),
  );

  it('drops unknown fields at every level and reports their paths sorted, with list indexes', () => {
    const obj = cr({ name: 'n', zzz: 1, list: [{ a: 'x', b: 2 }], labels: { k: 'v' } }, { top: true });
    const warnings = schema.prune(obj);
    assert.deepEqual(warnings, ['spec.list[0].b', 'spec.zzz', 'top']);
    assert.deepEqual(obj.spec, { name: 'n', list: [{ a: 'x' }], labels: { k: 'v' } });
  });

  it('keeps everything under x-kubernetes-preserve-unknown-fields but still prunes inside known properties', () => {
    const obj = cr({ free: { anything: { deep: [1, 2] }, known: { x: 'ok', extra: 1 } } });
    assert.deepEqual(schema.prune(obj), ['spec.free.known.extra']);
    assert.deepEqual(obj.spec, { free: { anything: { deep: [1, 2] }, known: { x: 'ok' } } });
  });

  it('keeps apiVersion, kind and metadata of an embedded resource', () => {
    const obj = cr({ embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { y: 'y', z: 'z' } } });
    assert.deepEqual(schema.prune(obj), ['spec.embedded.spec.z']);
    assert.deepEqual(obj.spec, {
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { y: 'y' } },
    });
  });

  it('drops nulls of non-nullable fields without a default, keeps nulls of nullable ones', () => {
    const obj = cr({ plain: null, nullable: null });
    schema.prune(obj);
    assert.deepEqual(obj.spec, { nullable: null });
  });
});

describe('applyDefaults', () => {
  const schema = compileSchema(
    root({
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        volume: {
          type: 'object',
          default: { size: '1Gi' },
          properties: { size: { type: 'string' }, mode: { type: 'string', default: 'RWO' } },
        },
        optional: { type: 'object', properties: { inner: { type: 'string', default: 'x' } } },
        items: { type: 'array', items: { type: 'object', properties: { w: { type: 'integer', default: 5 } } } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
      },
    }),
  );

  it('fills missing fields, and the defaults of a defaulted object (nested defaults)', () => {
    const obj = cr({});
    schema.applyDefaults(obj);
    assert.deepEqual(obj.spec, { replicas: 1, volume: { size: '1Gi', mode: 'RWO' } });
  });

  it('defaults only where the parent exists', () => {
    const obj = cr({ optional: {}, items: [{}, { w: 1 }], map: { a: {} } });
    schema.applyDefaults(obj);
    const spec = obj.spec as Record<string, unknown>;
    assert.deepEqual(spec.optional, { inner: 'x' });
    assert.deepEqual(spec.items, [{ w: 5 }, { w: 1 }]);
    assert.deepEqual(spec.map, { a: { on: true } });
  });

  it('keeps values the user set, and never shares default objects between objects', () => {
    const a = cr({ replicas: 0 });
    const b = cr({});
    schema.applyDefaults(a);
    schema.applyDefaults(b);
    assert.equal((a.spec as { replicas: number }).replicas, 0);
    (a.spec as { volume: { size: string } }).volume.size = 'changed';
    assert.equal((b.spec as { volume: { size: string } }).volume.size, '1Gi');
  });

  it('replaces a non-nullable null with the default', () => {
    const obj = cr({ replicas: null });
    schema.admit(obj);
    assert.equal((obj.spec as { replicas: number }).replicas, 1);
  });
});

describe('validate', () => {
  const schema = compileSchema(
    root({
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        ratio: { type: 'number', exclusiveMinimum: true, minimum: 0 },
        size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        hosts: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
        when: { type: 'string', format: 'date-time' },
        mode: { type: 'string', enum: ['a', 'b'] },
        note: { type: 'string', nullable: true },
      },
    }),
  );

  it('accepts a valid object', () => {
    const obj = cr({ name: 'abc', port: 80, ratio: 0.5, size: '1Gi', hosts: ['%'], when: '2026-01-01T00:00:00Z', mode: 'a', note: null });
    assert.deepEqual(schema.validate(obj), []);
  });

  it('accepts integers and strings for int-or-string, rejects other types naming both', () => {
    assert.deepEqual(schema.validate(cr({ name: 'a', size: 3 })), []);
    assert.deepEqual(texts(schema.validate(cr({ name: 'a', size: true }))), [
      'spec.size: Invalid value: "boolean": spec.size in body must be of type integer,string: "boolean"',
    ]);
  });

  it('reports each violation with the kube-apiserver wording', () => {
    const obj = cr({ name: 'TOOLONG', port: 0, ratio: 0, hosts: ['a', 'b', 'c'], when: 'yesterday', mode: 'c' });
    assert.deepEqual(texts(schema.validate(obj)), [
      'spec.name: Too long: may not be longer than 5',
      'spec.name: Invalid value: "TOOLONG": spec.name in body should match \'^[a-z]+$\'',
      'spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1',
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
      'spec.hosts: Too many: 3: must have at most 2 items',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
    ]);
  });

  it('gives each error its cause type', () => {
    const reasons = schema.validate(cr({ port: 'x', hosts: [], mode: 'z' })).map((e) => `${e.field}=${e.reason}`);
    assert.deepEqual(reasons, [
      'spec.port=FieldValueTypeInvalid',
      'spec.hosts=FieldValueInvalid',
      'spec.mode=FieldValueNotSupported',
      'spec.name=FieldValueRequired',
    ]);
  });

  it('rejects null in a non-nullable field that pruning did not remove (list items)', () => {
    assert.deepEqual(texts(schema.validate(cr({ name: 'a', hosts: [null] }))), [
      'spec.hosts[0]: Invalid value: "null": spec.hosts[0] in body must be of type string: "null"',
    ]);
  });
});

describe('CEL rules', () => {
  const spec: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [
      { rule: '!has(self.schedule) || has(self.url)', message: 'url is required when schedule is set' },
      { rule: 'self.min <= self.max' },
    ],
    properties: {
      schedule: { type: 'string' },
      url: { type: 'string' },
      min: { type: 'integer', default: 0 },
      max: { type: 'integer', default: 10 },
      immutable: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'is immutable' }] },
      limits: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        'x-kubernetes-validations': [{ rule: "self.all(k, k in ['A', 'B'])", message: 'keys must be A or B' }],
      },
      tags: {
        type: 'array',
        items: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: "self.startsWith('t-')", reason: 'FieldValueForbidden', message: 'must start with t-' }],
        },
      },
    },
  };
  const schema = compileSchema(root(spec));

  it('reports a false rule on the field of the node that carries it, with its message or the rule', () => {
    const obj = cr({ schedule: '@daily', min: 5, max: 1 });
    assert.deepEqual(texts(schema.admit(obj).errors), [
      'spec: Invalid value: "object": url is required when schedule is set',
      'spec: Invalid value: "object": failed rule: self.min <= self.max',
    ]);
  });

  it('evaluates rules on map values and list items, honouring the reason', () => {
    const errs = schema.admit(cr({ limits: { A: 1, C: 2 }, tags: ['t-1', 'x'] })).errors;
    assert.deepEqual(texts(errs), [
      'spec.limits: Invalid value: "object": keys must be A or B',
      'spec.tags[1]: Forbidden: must start with t-',
    ]);
    assert.equal(errs[1]?.reason, 'FieldValueForbidden');
  });

  it('runs transition rules only on update, against the old value', () => {
    assert.deepEqual(schema.admit(cr({ immutable: 'a' })).errors, []);
    const old = cr({ immutable: 'a', min: 0, max: 10 });
    assert.deepEqual(schema.admit(cr({ immutable: 'a' }), { oldObject: old }).errors, []);
    assert.deepEqual(texts(schema.admit(cr({ immutable: 'b' }), { oldObject: old }).errors), [
      'spec.immutable: Invalid value: "string": is immutable',
    ]);
  });

  it('skips the rules after a blocking error and says so', () => {
    const errs = schema.admit(cr({ min: 'x', schedule: 'y' })).errors;
    assert.deepEqual(texts(errs), [
      'spec.min: Invalid value: "string": spec.min in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
});

describe('scale subresource checks', () => {
  const schema = compileSchema(
    root({ type: 'object', properties: { replicas: { type: 'integer' } } }, { type: 'object', properties: { ready: { type: 'integer' } } }),
    { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.ready' } },
  );

  it('adds a leading-dot cause for negative replicas in spec and status', () => {
    const errs = schema.validate(cr({ replicas: -1 }, { status: { ready: -2 } }));
    assert.deepEqual(texts(errs), [
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      '.status.ready: Invalid value: -2: should be a non-negative integer',
    ]);
  });

  it('reports a replicas value of the wrong type as an accessor error', () => {
    assert.deepEqual(texts(schema.validate(cr({ replicas: 1.5 }))), [
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64',
    ]);
  });

  it('checks only the status path for status subresource writes', () => {
    assert.deepEqual(schema.validate(cr({ replicas: -1 }), { subresource: 'status' }), []);
  });
});

describe('formatInvalidStatus', () => {
  it('builds a single-cause message without brackets and a core-group kind without a dot', () => {
    const status = formatInvalidStatus({ group: '', kind: 'ConfigMap' }, 'c', [
      { reason: 'FieldValueRequired', field: 'data', message: 'Required value' },
    ]);
    assert.equal(status.message, 'ConfigMap "c" is invalid: data: Required value');
    assert.deepEqual(Object.keys(status.details), ['name', 'kind', 'causes']);
    assert.equal(status.code, 422);
  });

  it('drops duplicate messages from the aggregate but keeps every cause', () => {
    const e: FieldError = { reason: 'FieldValueInvalid', field: 'a', message: 'Invalid value: 1: x' };
    const status = formatInvalidStatus({ group: 'g.io', kind: 'K' }, 'n', [e, e]);
    assert.equal(status.message, 'K.g.io "n" is invalid: a: Invalid value: 1: x');
    assert.equal(status.details.causes?.length, 2);
  });
});

describe('checkStructural', () => {
  const base = 'spec.versions[0].schema.openAPIV3Schema';

  it('accepts a structural schema', () => {
    assert.deepEqual(checkStructural(root({ type: 'object', properties: { a: { type: 'string' } } })), []);
  });

  it('requires a type on every specified field unless int-or-string or preserve-unknown-fields', () => {
    const errs = checkStructural(
      root({
        type: 'object',
        properties: {
          a: {} as JSONSchemaProps,
          b: { 'x-kubernetes-int-or-string': true },
          c: { 'x-kubernetes-preserve-unknown-fields': true },
          d: { type: 'array', items: {} as JSONSchemaProps },
        },
      }),
    );
    assert.deepEqual(texts(errs), [
      `${base}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
      `${base}.properties[spec].properties[d].items.type: Required value: must not be empty for specified array items`,
    ]);
  });

  it('rejects the non-structural constructs', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { a: { type: 'string' } },
          additionalProperties: { type: 'string' },
          anyOf: [{ properties: { b: { type: 'string' } } }],
        },
        list: { type: 'array' },
        ios: { type: 'string', 'x-kubernetes-int-or-string': true },
        keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
        set: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        ref: { $ref: '#/definitions/x' },
        bad: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self ==' }] },
        dflt: { type: 'object', properties: { x: { type: 'integer' } }, default: { x: 'one', y: 1 } },
      },
    };
    const fields = checkStructural(schema).map((e) => e.field);
    assert.deepEqual(fields, [
      `${base}.properties[spec].additionalProperties`,
      `${base}.properties[spec].properties[b]`,
      `${base}.properties[list].items`,
      `${base}.properties[ios].type`,
      `${base}.properties[keep].x-kubernetes-preserve-unknown-fields`,
      `${base}.properties[set].uniqueItems`,
      `${base}.properties[ref].$ref`,
      `${base}.properties[ref].type`,
      `${base}.properties[bad].x-kubernetes-validations[0].rule`,
      `${base}.properties[dflt].default`,
      `${base}.properties[dflt].default`,
    ]);
  });

  it('refuses list-map keys that are not required or defaulted scalar item properties (the real rules)', () => {
    const listMap = (keys: string[], items: JSONSchemaProps): JSONSchemaProps => ({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': keys,
      items,
    });
    const item = (props: Record<string, JSONSchemaProps>, required?: string[]): JSONSchemaProps => ({
      type: 'object',
      properties: props,
      ...(required ? { required } : {}),
    });
    const base = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
    const schema = root({
      type: 'object',
      properties: {
        ok: listMap(['type'], item({ type: { type: 'string' } }, ['type'])),
        defaulted: listMap(['protocol'], item({ protocol: { type: 'string', default: 'TCP' } })),
        optional: listMap(['name'], item({ name: { type: 'string' } })),
        nullable: listMap(['name'], item({ name: { type: 'string', nullable: true } }, ['name'])),
        unknown: listMap(['nope'], item({ name: { type: 'string' } }, ['name'])),
        nested: listMap(['obj'], item({ obj: { type: 'object' } }, ['obj'])),
        twice: listMap(['a', 'a'], item({ a: { type: 'string' } }, ['a'])),
      },
    });
    assert.deepEqual(
      checkStructural(schema).map((e) => `${e.field}: ${e.reason}`),
      [
        `${base}[optional].items.properties[name].default: FieldValueRequired`,
        `${base}[nullable].items.properties[name].nullable: FieldValueForbidden`,
        `${base}[unknown].x-kubernetes-list-map-keys: FieldValueInvalid`,
        `${base}[nested].items.properties[obj].type: FieldValueInvalid`,
        `${base}[twice].x-kubernetes-list-map-keys: FieldValueInvalid`,
      ],
    );
    assert.match(checkStructural(schema)[0]!.message ?? '', /must have a default or be a required property/);
  });

  it('allows only name and generateName under the root metadata', () => {
    const schema = root({ type: 'object' });
    (schema.properties as Record<string, JSONSchemaProps>).metadata = {
      type: 'object',
      properties: { name: { type: 'string' }, labels: { type: 'object' } },
    };
    assert.deepEqual(
      checkStructural(schema).map((e) => e.reason),
      ['FieldValueForbidden'],
    );
  });
});

describe('list types', () => {
  const schema = compileSchema(
    root({
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
      },
    }),
  );

  it('rejects duplicate set items and duplicate map keys, and map items without their key', () => {
    const errs = schema.validate(cr({ tags: ['a', 'b', 'a'], ports: [{ name: 'x', port: 1 }, { name: 'x', port: 2 }, { port: 3 }] }));
    assert.deepEqual(texts(errs), [
      'spec.tags[2]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"x"}',
      'spec.ports[2].name: Required value',
    ]);
  });
});

describe('checkCrd', () => {
  const good = () => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.x.example' },
    spec: {
      group: 'x.example',
      names: { kind: 'Thing', plural: 'things' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: root({ type: 'object' }) } }],
    },
  });

  it('accepts a well-formed CRD', () => {
    assert.deepEqual(checkCrd(good()), []);
  });

  it('rejects a name that is not plural.group, a bad scope, no storage version, a scale path outside spec', () => {
    const crd = good() as JsonObject;
    crd.metadata.name = 'thing.x.example';
    crd.spec.scope = 'Global';
    crd.spec.versions[0].storage = false;
    crd.spec.versions[0].subresources = { scale: { specReplicasPath: '.replicas', statusReplicasPath: '.status.r' } };
    assert.deepEqual(
      checkCrd(crd).map((e) => e.field),
      ['metadata.name', 'spec.scope', 'spec.versions', 'spec.versions[0].subresources.scale.specReplicasPath'],
    );
  });
});
