// Error classification from the Status bodies a real kube-apiserver v1.26.1 returned (the
// recorded fixtures in test/fixtures/kube-apiserver/).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { watchEventError } from '../../../src/runtime/kube/client.ts';
import {
  AlreadyExistsError,
  ConflictError,
  GoneError,
  InvalidError,
  type KubeApiError,
  NotFoundError,
  apiError,
} from '../../../src/runtime/kube/errors.ts';

const FIXTURES = new URL('../../fixtures/kube-apiserver/', import.meta.url);
const body = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

describe('typed API errors from real Status bodies', () => {
  const cases: Array<[string, number, new (...a: never[]) => KubeApiError, string]> = [
    ['cr-get-missing.json', 404, NotFoundError, 'NotFound'],
    ['err-unknown-resource-core.json', 404, NotFoundError, 'NotFound'],
    ['cr-put-stale-conflict.json', 409, ConflictError, 'Conflict'],
    ['cr-create-already-exists.json', 409, AlreadyExistsError, 'AlreadyExists'],
    ['list-cr-rv-compacted-exact.json', 410, GoneError, 'Expired'],
    ['cr-invalid-multiple.json', 422, InvalidError, 'Invalid'],
  ];
  for (const [file, code, cls, reason] of cases) {
    it(`${file} (${code}) becomes ${cls.name}`, () => {
      const err = apiError('GET', '/x', code, body(file));
      assert.ok(err instanceof cls, `${err.constructor.name}`);
      assert.equal(err.statusCode, code);
      assert.equal(err.reason, reason);
    });
  }

  it('an Invalid error names the rejected fields', () => {
    const err = apiError('POST', '/x', 422, body('cr-invalid-multiple.json'));
    assert.ok(err instanceof InvalidError);
    assert.ok(err.causes.some((c) => c.field === 'spec.secretName'));
  });

  it('a text/plain 404 (unknown CRD group) is still a NotFoundError', () => {
    const err = apiError('GET', '/apis/nope/v1/x', 404, body('err-unknown-resource-crd-group.txt'));
    assert.ok(err instanceof NotFoundError);
    assert.match(err.message, /404 page not found/);
  });

  it('the ERROR event of a too-old watch becomes a GoneError', () => {
    const line = body('watch-cr-too-old-410.ndjson').split('\n')[0] ?? '';
    const ev = JSON.parse(line) as { type: string; object: unknown };
    assert.equal(ev.type, 'ERROR');
    assert.ok(watchEventError('mysqlclusters', ev.object) instanceof GoneError);
  });
});
