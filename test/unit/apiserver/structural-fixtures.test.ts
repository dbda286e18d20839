// The structural engine against real kube-apiserver v1.26 answers for the same CRD and bodies
// (test/fixtures/kube-apiserver, see its README).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  checkCrd,
  compileSchema,
  formatInvalidStatus,
  goJsonStringify,
  type JSONSchemaProps,
} from '../../../sandbox/apiserver/structural/index.ts';

const FIXTURES = new URL('../../fixtures/kube-apiserver/', import.meta.url).pathname;

interface IndexRow {
  file: string;
  requestBody: string | null;
  requestBodyFile: string | null;
  responseHeaders: Record<string, string | string[]>;
}

const index = JSON.parse(readFileSync(join(FIXTURES, 'index.json'), 'utf8')) as IndexRow[];
const crd = JSON.parse(readFileSync(join(FIXTURES, 'crd-mysqlclusters.req.json'), 'utf8'));
const version = crd.spec.versions[0];
const schema = compileSchema(version.schema.openAPIV3Schema as JSONSchemaProps, { scale: version.subresources.scale });

function row(file: string): IndexRow {
  const r = index.find((x) => x.file === file);
  assert.ok(r, `fixture ${file} is in index.json`);
  return r;
}

function requestOf(file: string): Record<string, unknown> {
  const r = row(file);
  const text = r.requestBody ?? readFileSync(join(FIXTURES, r.requestBodyFile ?? ''), 'utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

/** What the server does with a create body: drop status (status subresource), prune, default, validate. */
function create(body: Record<string, unknown>) {
  delete body.status;
  return schema.admit(body);
}

describe('structural engine vs kube-apiserver v1.26 fixtures', () => {
  it('accepts the fixture CRD as structural', () => {
    assert.deepEqual(checkCrd(crd), []);
  });

  for (const file of [
    'cr-invalid-type.json',
    'cr-invalid-enum.json',
    'cr-invalid-required.json',
    'cr-invalid-cel.json',
    'cr-invalid-multiple.json',
  ]) {
    it(`answers ${file} with the same 422 body, byte for byte`, () => {
      const body = requestOf(file);
      const name = (body.metadata as { name: string }).name;
      const { errors } = create(body);
      const status = formatInvalidStatus({ group: 'mysql.presslabs.org', kind: 'MysqlCluster' }, name, errors);
      assert.equal(`${goJsonStringify(status)}\n`, readFileSync(join(FIXTURES, file), 'utf8'));
    });
  }

  it('prunes and defaults a create like the server: same spec, same unknown-field warnings', () => {
    const body = requestOf('cr-create.json');
    const { warnings, errors } = create(body);
    assert.deepEqual(errors, []);
    const stored = JSON.parse(readFileSync(join(FIXTURES, 'cr-create.json'), 'utf8'));
    assert.deepEqual(body.spec, stored.spec);
    assert.equal(body.status, undefined);
    const headers = row('cr-create.json').responseHeaders.Warning as string[];
    assert.deepEqual(
      warnings.map((p) => `299 - "unknown field \\"${p}\\""`),
      headers,
    );
  });

  it('keeps metadata at the resource root untouched while pruning', () => {
    const body = requestOf('cr-create.json');
    const before = structuredClone(body.metadata);
    schema.prune(body);
    assert.deepEqual(body.metadata, before);
  });
});
