// The MysqlUser spec as an account (desired-user.ts) and the changes that make the master hold it
// (decide-account.ts), from observed accounts built here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MysqlUserSpec } from '../../../src/api/index.ts';
import { flavourFromVersionSpec, nativePasswordHash, noLimits, type Flavour, type ObservedAccount } from '../../../src/mysql/index.ts';
import { decideAccount, describeChange } from '../../../src/controllers/user/decide-account.ts';
import { desiredUser, type DesiredUser } from '../../../src/controllers/user/desired-user.ts';

const MARIA = flavourFromVersionSpec('mariadb-10.11') as Flavour;
const MYSQL57 = flavourFromVersionSpec('5.7') as Flavour;

function spec(over: Partial<MysqlUserSpec> = {}): MysqlUserSpec {
  return {
    clusterRef: { name: 'db' },
    user: 'app',
    password: { name: 's', key: 'PASSWORD' },
    allowedHosts: ['127.0.0.2', '127.0.0.3'],
    permissions: [
      { schema: 'shop', tables: ['*'], permissions: ['SELECT', 'insert'] },
      { schema: 'audit', tables: ['log'], permissions: ['SELECT'] },
    ],
    ...over,
  };
}

function desired(s: MysqlUserSpec, f = MARIA): DesiredUser {
  const d = desiredUser(s, f);
  assert.ok(!('refused' in d), JSON.stringify(d));
  return d;
}

function refusedMessage(s: MysqlUserSpec, f = MARIA): string {
  const d = desiredUser(s, f);
  assert.ok('refused' in d, 'expected a refusal');
  assert.equal(d.refused, 'InvalidSpec');
  return d.message;
}

function account(host: string, over: Partial<ObservedAccount> = {}): ObservedAccount {
  return { host, plugin: 'mysql_native_password', authenticationString: nativePasswordHash('pw'), limits: noLimits(), grants: [], ...over };
}

test('the spec becomes one grant per scope, schema names escaped as patterns, hosts deduplicated', () => {
  const d = desired(
    spec({
      allowedHosts: ['%', '%'],
      permissions: [
        { schema: 'my_shop', tables: ['*', 'orders'], permissions: ['SELECT'] },
        { schema: 'my_shop', tables: ['*'], permissions: ['INSERT'] },
      ],
      resourceLimits: { MAX_USER_CONNECTIONS: 5, MAX_QUERIES_PER_HOUR: '100' },
    }),
  );
  assert.deepEqual(d.hosts, ['%']);
  assert.deepEqual(d.grants, [
    { db: 'my\\_shop', table: null, privileges: ['INSERT', 'SELECT'] },
    { db: 'my_shop', table: 'orders', privileges: ['SELECT'] },
  ]);
  assert.equal(d.limits.MAX_USER_CONNECTIONS, 5);
  assert.equal(d.limits.MAX_QUERIES_PER_HOUR, 100);
  assert.equal(d.limits.MAX_UPDATES_PER_HOUR, 0);
});

test('what MySQL would refuse or misread is refused, naming the field', () => {
  assert.match(refusedMessage(spec({ user: 'u'.repeat(33) }), MYSQL57), /^spec\.user "u+" is longer than 32 characters$/);
  assert.match(refusedMessage(spec({ allowedHosts: ['%', 'h'.repeat(256)] })), /^spec\.allowedHosts\[1\] /);
  assert.match(
    refusedMessage(spec({ permissions: [{ schema: 's'.repeat(65), tables: ['*'], permissions: ['SELECT'] }] })),
    /^spec\.permissions\[0\]\.schema .* longer than 64/,
  );
  assert.match(
    refusedMessage(spec({ permissions: [{ schema: 'a', tables: ['*', 't '], permissions: ['SELECT'] }] })),
    /^spec\.permissions\[0\]\.tables\[1\] "t " ends with a space$/,
  );
  assert.match(
    refusedMessage(spec({ permissions: [{ schema: 'a', tables: ['*'], permissions: ['SELECT', 'SELECT ON *.* TO root; --'] }] })),
    /^spec\.permissions\[0\]\.permissions\[1\] "SELECT ON \*\.\* TO root; --" is not a privilege on a schema; one of ALL, /,
  );
  assert.match(
    refusedMessage(spec({ permissions: [{ schema: '*', tables: ['*'], permissions: ['SELECT'] }] })),
    /^spec\.permissions\[0\]\.schema "\*" names no schema/,
  );
  assert.match(
    refusedMessage(spec({ resourceLimits: { MAX_USER_CONNECTIONS: '-1' } })),
    /^spec\.resourceLimits\.MAX_USER_CONNECTIONS "-1" is not an integer/,
  );
  assert.match(
    refusedMessage(spec({ resourceLimits: { MAX_USER_CONNECTIONS: '1; DROP' } })),
    /^spec\.resourceLimits\.MAX_USER_CONNECTIONS /,
  );
});

test('a new account on each host: created, limited, granted', () => {
  const d = desired(spec({ allowedHosts: ['h1'], resourceLimits: { MAX_USER_CONNECTIONS: 2 } }));
  const changes = decideAccount(d, 'pw', [], []);
  assert.deepEqual(changes.map(describeChange), [
    'created app@h1',
    'set the limits of app@h1',
    'granted INSERT, SELECT on shop.* to app@h1',
    'granted SELECT on audit.log to app@h1',
  ]);
});

test('an account that holds its spec needs nothing: zero writes in steady state', () => {
  const d = desired(spec());
  const grants = d.grants.map((g) => ({ ...g }));
  const observed = [account('127.0.0.2', { grants }), account('127.0.0.3', { grants })];
  assert.deepEqual(decideAccount(d, 'pw', observed, ['127.0.0.2', '127.0.0.3']), []);
});

test('a permission removed from the spec is revoked, a hand-made one too; a new one is granted', () => {
  const d = desired(spec({ allowedHosts: ['h'], permissions: [{ schema: 'shop', tables: ['*'], permissions: ['SELECT', 'UPDATE'] }] }));
  const observed = [
    account('h', {
      grants: [
        { db: 'shop', table: null, privileges: ['INSERT', 'SELECT'] },
        { db: 'audit', table: 'log', privileges: ['SELECT'] },
        { db: 'other%', table: null, privileges: ['GRANT OPTION'] },
      ],
    }),
  ];
  assert.deepEqual(decideAccount(d, 'pw', observed, ['h']).map(describeChange), [
    'revoked INSERT on shop.* from app@h',
    'revoked SELECT on audit.log from app@h',
    'revoked GRANT OPTION on other%.* from app@h',
    'granted UPDATE on shop.* to app@h',
  ]);
});

test('a host removed from allowedHosts is dropped; hosts the operator never applied are left alone', () => {
  const d = desired(spec({ allowedHosts: ['a'], permissions: [] }));
  const observed = [account('a'), account('b'), account('by-hand')];
  assert.deepEqual(decideAccount(d, 'pw', observed, ['a', 'b', 'gone']).map(describeChange), ['dropped app@b']);
});

test('a rotated password is set again; a hash that cannot be compared is set too; limits follow the spec', () => {
  const d = desired(spec({ allowedHosts: ['a', 'b'], permissions: [] }));
  const observed = [
    account('a', { limits: { ...noLimits(), MAX_USER_CONNECTIONS: 3 } }),
    account('b', { plugin: 'caching_sha2_password', authenticationString: '$A$005$salt' }),
  ];
  assert.deepEqual(decideAccount(d, 'new', observed, ['a', 'b']).map(describeChange), [
    'set the password of app@a',
    'set the limits of app@a',
    'set the password of app@b',
  ]);
  assert.ok(
    !JSON.stringify(decideAccount(d, 'new', observed, []).map(describeChange)).includes('new'),
    'descriptions never hold the password',
  );
});
