import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, QUANTITY_FORMAT_ERROR } from '../../../src/api/quantity.ts';
import { canonicalTime } from '../../../sandbox/apiserver/go-time.ts';
import { compareQuantities } from '../../../sandbox/apiserver/builtin-rules.ts';

test('quantities: canonical forms of resource.Quantity, strings Go keeps as sent, and its errors', () => {
  const cases: [string, string][] = [
    ['0.5', '500m'],
    ['1.5Gi', '1536Mi'],
    ['1000m', '1'],
    ['1024Ki', '1Mi'],
    ['0.5Ki', '512'],
    ['1.1Ki', '1126400m'],
    ['1.0', '1'],
    ['0.0', '0'],
    ['0.0000000001', '1n'],
    ['100m', '100m'],
    ['5Gi', '5Gi'],
    ['129e6', '129e6'],
    ['2000Mi', '2000Mi'],
  ];
  for (const [sent, stored] of cases) assert.equal(canonicalQuantity(sent), stored, sent);
  assert.throws(() => canonicalQuantity('1x'), { message: QUANTITY_FORMAT_ERROR });
  assert.throws(() => canonicalQuantity('lots'), { message: QUANTITY_FORMAT_ERROR });
  assert.throws(() => canonicalQuantity('1kk'), { message: "unable to parse quantity's suffix" });
  assert.equal(compareQuantities('2', '1'), 1);
  assert.equal(compareQuantities('1Gi', '1024Mi'), 0);
  assert.equal(compareQuantities('500m', '1'), -1);
});

test('times: Go time.Parse with RFC3339 and RFC3339Micro, stored in UTC', () => {
  assert.equal(canonicalTime('2026-11-21T10:00:00.5+02:00', false), '2026-11-21T08:00:00Z');
  assert.equal(canonicalTime('2026-11-21T10:00:00.123456-01:30', true), '2026-11-21T11:30:00.123456Z');
  assert.throws(() => canonicalTime('2026-11-21T10:00:00Z', true), {
    message: 'parsing time "2026-11-21T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
  });
  assert.throws(() => canonicalTime('2026-11-21 10:00:00Z', false), { message: /cannot parse " 10:00:00Z" as "T"$/ });
  assert.throws(() => canonicalTime('2026-02-30T10:00:00Z', false), { message: 'parsing time "2026-02-30T10:00:00Z": day out of range' });
  assert.throws(() => canonicalTime('2026-11-21T10:00:00Zjunk', false), {
    message: 'parsing time "2026-11-21T10:00:00Zjunk": extra text: "junk"',
  });
});
