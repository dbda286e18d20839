// What a MysqlDatabase may touch (decide-ownership.ts, and the database kind's parts that use
// it): the server's and the operator's schemas refused naming the field, one object per schema
// on a cluster, a schema that existed before adopted and kept on deletion unless asked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATABASE_KIND } from '../../../src/controllers/database/reconcile.ts';
import { planDatabase } from '../../../src/controllers/database/desired-database.ts';
import { claimHolder, reservedSchemaProblem } from '../../../src/controllers/shared/decide-ownership.ts';
import { claimant } from '../../../src/controllers/shared/provision.ts';
import { mysqlDatabase, READY } from './builders.ts';

const EXISTS = { characterSet: 'utf8mb4', collation: 'utf8mb4_general_ci' };

test('mysql, sys, information_schema, performance_schema and sys_operator are refused in any case, naming spec.database', () => {
  for (const database of ['mysql', 'sys', 'information_schema', 'INFORMATION_SCHEMA', 'performance_schema', 'sys_operator', 'MySQL']) {
    const r = DATABASE_KIND.reserved(mysqlDatabase({ database }), []);
    assert.ok(r, database);
    assert.equal(r.refused, 'ReservedName');
    assert.ok(r.message.startsWith(`spec.database ${JSON.stringify(database)} is a schema of the server or of the operator`), r.message);
  }
  for (const database of ['shop', 'mysql_app', 'sysadmin']) assert.equal(reservedSchemaProblem(database), null, database);
});

test('two MysqlDatabases naming one schema of one cluster: the later is refused; another cluster is not', () => {
  const first = mysqlDatabase({ database: 'shop' }, { name: 'first', created: '2026-01-01T00:00:00Z' });
  const later = mysqlDatabase({ database: 'Shop' }, { name: 'later', created: '2026-01-02T00:00:00Z' });
  const elsewhere = mysqlDatabase(
    { database: 'shop', clusterRef: { name: 'db', namespace: 'other' } },
    { name: 'x', created: '2026-01-03T00:00:00Z' },
  );
  const all = [first, later, elsewhere].map((o) => claimant(DATABASE_KIND, o));
  assert.equal(claimHolder(claimant(DATABASE_KIND, first), all), undefined);
  assert.deepEqual(claimHolder(claimant(DATABASE_KIND, later), all)?.holder.name, 'first');
  assert.equal(claimHolder(claimant(DATABASE_KIND, elsewhere), all), undefined);
});

test('a schema that existed at the first look is adopted and recorded; one the object creates is not', () => {
  const adopted = planDatabase({ name: 'shop' }, EXISTS, { recorded: undefined, ready: false });
  assert.deepEqual(adopted.changes, []);
  assert.deepEqual(adopted.status(true), { adopted: true });
  assert.match(adopted.done[0]!, /^adopted database shop/);
  const created = planDatabase({ name: 'shop' }, null, { recorded: undefined, ready: false });
  assert.deepEqual(created.changes, [{ kind: 'createDatabase', name: 'shop' }]);
  assert.deepEqual(created.status(false), { adopted: false }, 'recorded even when the create fails');
  assert.deepEqual(
    planDatabase({ name: 'shop' }, EXISTS, { recorded: false, ready: true }).status(true),
    { adopted: false },
    'the record stands',
  );
  assert.deepEqual(
    planDatabase({ name: 'shop' }, EXISTS, { recorded: undefined, ready: true }).status(true),
    { adopted: false },
    'provisioned before the record: made by us',
  );
});

test('deletion drops a schema the object made, keeps one it adopted unless the annotation says delete, and never touches one it never looked at', () => {
  const drop = { changes: [{ kind: 'dropDatabase', name: 'shop' }], kept: [] };
  assert.deepEqual(DATABASE_KIND.dropPlan(mysqlDatabase({}, { status: { conditions: [READY], adopted: false } })), drop);
  assert.deepEqual(DATABASE_KIND.dropPlan(mysqlDatabase({}, { status: { conditions: [READY], adopted: true } })), {
    changes: [],
    kept: ['database shop'],
  });
  assert.deepEqual(DATABASE_KIND.dropPlan(mysqlDatabase({}, { status: { conditions: [READY], adopted: true }, policy: 'delete' })), drop);
  assert.deepEqual(
    DATABASE_KIND.dropPlan(mysqlDatabase({}, { status: { conditions: [READY] } })),
    drop,
    "the anchor's objects: dropped as before",
  );
  assert.deepEqual(DATABASE_KIND.dropPlan(mysqlDatabase({}, {})), { changes: [], kept: [] }, 'never applied');
});
