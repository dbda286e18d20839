// What a MysqlUser may touch (decide-ownership.ts, and the user kind's parts that use it):
// reserved accounts refused naming the field, one object per account on a cluster, accounts that
// existed before the object adopted and kept on deletion unless the annotation asks for delete.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flavourFromVersionSpec, type Flavour } from '../../../src/mysql/index.ts';
import { USER_KIND } from '../../../src/controllers/user/reconcile.ts';
import { planAccount } from '../../../src/controllers/user/decide-account.ts';
import { desiredUser, type DesiredUser } from '../../../src/controllers/user/desired-user.ts';
import { claimHolder, reservedUserProblem } from '../../../src/controllers/shared/decide-ownership.ts';
import { claimant } from '../../../src/controllers/shared/provision.ts';
import { account, mysqlUser, READY, userSpec } from './builders.ts';

const MARIA = flavourFromVersionSpec('mariadb-10.11') as Flavour;

function desired(spec = userSpec()): DesiredUser {
  const d = desiredUser(spec, MARIA);
  assert.ok(!('refused' in d), JSON.stringify(d));
  return d;
}

test("root, the operator's accounts, the server's mysql.*/mariadb.* accounts and the anonymous user are refused, naming spec.user", () => {
  const systemUsers = ['custom_repl'];
  for (const user of [
    'root',
    'ROOT',
    'sys_operator',
    'sys_replication',
    'sys_exporter',
    'sys_heartbeat',
    'sys_backups',
    'orchestrator',
    'custom_repl',
    'mysql.sys',
    'mysql.session',
    'mysql.infoschema',
    'mariadb.sys',
    '',
    ' ',
  ]) {
    const r = USER_KIND.reserved(mysqlUser({ user }), systemUsers);
    assert.ok(r, `${JSON.stringify(user)} should be refused`);
    assert.equal(r.refused, 'ReservedName');
    assert.ok(r.message.startsWith(`spec.user ${JSON.stringify(user)} `), r.message);
    assert.match(r.message, /nothing is done on the server, and deleting this object drops nothing$/);
  }
  for (const user of ['app', 'rooted', 'mysql', 'sys_operator_app', 'my.sys'])
    assert.equal(reservedUserProblem(user, systemUsers), null, user);
});

test('a grant on the mysql or sys_operator schema is refused, naming the field; performance_schema stays grantable', () => {
  const mysqlGrant = desiredUser(
    userSpec({
      permissions: [
        { schema: 'shop', tables: ['*'], permissions: ['SELECT'] },
        { schema: 'MySQL', tables: ['user'], permissions: ['INSERT'] },
      ],
    }),
    MARIA,
  );
  assert.ok('refused' in mysqlGrant);
  assert.equal(mysqlGrant.refused, 'ReservedName');
  assert.ok(mysqlGrant.message.startsWith('spec.permissions[1].schema "MySQL" '), mysqlGrant.message);
  const own = desiredUser(userSpec({ permissions: [{ schema: 'sys_operator', tables: ['*'], permissions: ['SELECT'] }] }), MARIA);
  assert.ok('refused' in own && own.message.startsWith('spec.permissions[0].schema "sys_operator" '));
  desired(userSpec({ permissions: [{ schema: 'performance_schema', tables: ['*'], permissions: ['SELECT'] }] }));
});

test('two MysqlUsers claiming one account of one cluster: the later (creationTimestamp, then name) is refused; other hosts and clusters are not', () => {
  const first = mysqlUser({ allowedHosts: ['10.0.0.%', '%'] }, { name: 'b-first', created: '2026-01-01T00:00:00Z' });
  const later = mysqlUser({ allowedHosts: ['%'] }, { name: 'a-later', created: '2026-01-02T00:00:00Z' });
  const sameSecond = mysqlUser({ allowedHosts: ['10.0.0.%'] }, { name: 'c-same-second', created: '2026-01-01T00:00:00Z' });
  const otherHost = mysqlUser({ allowedHosts: ['192.168.%'] }, { name: 'd', created: '2026-01-03T00:00:00Z' });
  const otherCluster = mysqlUser({ clusterRef: { name: 'other' } }, { name: 'e', created: '2026-01-03T00:00:00Z' });
  const otherUser = mysqlUser({ user: 'App' }, { name: 'f', created: '2026-01-03T00:00:00Z' });
  const all = [first, later, sameSecond, otherHost, otherCluster, otherUser].map((o) => claimant(USER_KIND, o));
  const holderOf = (o: typeof first) => claimHolder(claimant(USER_KIND, o), all);
  assert.equal(holderOf(first), undefined, 'the first holds its claims');
  assert.deepEqual([holderOf(later)?.holder.name, holderOf(later)?.claim], ['b-first', 'account app@%']);
  assert.equal(holderOf(sameSecond)?.holder.name, 'b-first', 'same second: namespace/name decides');
  assert.equal(holderOf(otherHost), undefined);
  assert.equal(holderOf(otherCluster), undefined);
  assert.equal(holderOf(otherUser), undefined, 'user names are compared exactly, as MySQL does');
  const upper = mysqlUser({ allowedHosts: ['LOCALHOST'] }, { name: 'g', created: '2026-01-04T00:00:00Z' });
  const lower = mysqlUser({ allowedHosts: ['localhost'] }, { name: 'h', created: '2026-01-05T00:00:00Z' });
  assert.equal(
    claimHolder(
      claimant(USER_KIND, lower),
      [upper, lower].map((o) => claimant(USER_KIND, o)),
    )?.holder.name,
    'g',
    'hosts without case',
  );
});

test('an account that existed before is adopted and recorded; one the object created is not', () => {
  const d = desired(userSpec({ allowedHosts: ['%', '10.0.0.%'] }));
  const plan = planAccount(d, 'pw', [account('%')], { applied: [], adopted: [], dropAdopted: false });
  assert.deepEqual(plan.status(true), { allowedHosts: ['%', '10.0.0.%'], adoptedHosts: ['%'] });
  assert.match(plan.done[0]!, /^adopted app@%, which existed before/);
  assert.ok(plan.changes.some((c) => c.kind === 'createUser' && c.account.host === '10.0.0.%'));
  // A later pass keeps the record: the account the object created stays its own.
  const next = planAccount(d, 'pw', [account('%'), account('10.0.0.%')], {
    applied: ['%', '10.0.0.%'],
    adopted: ['%'],
    dropAdopted: false,
  });
  assert.deepEqual(next.status(true), { allowedHosts: ['%', '10.0.0.%'], adoptedHosts: ['%'] });
  assert.ok(!next.done.some((w) => w.startsWith('adopted')), 'said once');
  // A failed pass records the adoption too: the next pass could not tell it.
  assert.deepEqual(plan.status(false), { allowedHosts: ['%', '10.0.0.%'], adoptedHosts: ['%'] });
});

test('a host removed from the spec: its adopted account is left in place unless the annotation says delete; a created one is dropped', () => {
  const d = desired(userSpec({ allowedHosts: ['%'] }));
  const observed = [account('%'), account('10.0.0.%'), account('old.host')];
  const rec = { applied: ['%', '10.0.0.%', 'old.host'], adopted: ['10.0.0.%'] };
  const kept = planAccount(d, 'pw', observed, { ...rec, dropAdopted: false });
  assert.deepEqual(
    kept.changes.filter((c) => c.kind === 'dropUser').map((c) => c.account.host),
    ['old.host'],
  );
  assert.ok(kept.done.includes('left app@10.0.0.% in place: it existed before this object'));
  assert.deepEqual(kept.status(true), { allowedHosts: ['%'] });
  const asked = planAccount(d, 'pw', observed, { ...rec, dropAdopted: true });
  assert.deepEqual(
    asked.changes.filter((c) => c.kind === 'dropUser').map((c) => c.account.host),
    ['10.0.0.%', 'old.host'],
  );
});

test('deletion drops the accounts the object made, keeps those it adopted unless asked, and drops nothing it never applied', () => {
  const status = { conditions: [READY], allowedHosts: ['%', '10.0.0.%'], adoptedHosts: ['%'] };
  const plain = USER_KIND.dropPlan(mysqlUser({ allowedHosts: ['%', '10.0.0.%'] }, { status }));
  assert.deepEqual(plain.changes, [{ kind: 'dropUser', account: { user: 'app', host: '10.0.0.%' } }]);
  assert.deepEqual(plain.kept, ['app@%']);
  const asked = USER_KIND.dropPlan(mysqlUser({ allowedHosts: ['%', '10.0.0.%'] }, { status, policy: 'delete' }));
  assert.deepEqual(
    asked.changes.map((c) => c.kind === 'dropUser' && c.account.host),
    ['%', '10.0.0.%'],
  );
  assert.deepEqual(asked.kept, []);
  // Refused before any pass applied (no allowedHosts recorded, never Ready): the spec's accounts are someone else's.
  const never = USER_KIND.dropPlan(
    mysqlUser({ allowedHosts: ['%'] }, { status: { conditions: [{ ...READY, status: 'False', reason: 'PasswordSecretNotFound' }] } }),
  );
  assert.deepEqual(never, { changes: [], kept: [] });
  // Provisioned by the anchor (Ready, no record): the spec's hosts are taken as made by it, as before.
  const legacy = USER_KIND.dropPlan(mysqlUser({ allowedHosts: ['%'] }, { status: { conditions: [READY] } }));
  assert.deepEqual(legacy.changes, [{ kind: 'dropUser', account: { user: 'app', host: '%' } }]);
});
