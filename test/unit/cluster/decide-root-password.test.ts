// The user Secret's root password key: ROOT_PASSWORD (the anchor's), else `password` of a
// Secret made with `username`/`password`; the pods read that key; one Event when they start to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import { CLUSTER_REASONS, CONTAINER } from '../../../src/api/constants.ts';
import { ENV } from '../../../src/api/pod-contract.ts';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { validateCluster } from '../../../src/controllers/cluster/validate-cluster.ts';
import {
  announceRootPasswordKey,
  renderedRootPasswordKey,
  rootPasswordKeyMessage,
} from '../../../src/controllers/cluster/decide-root-password.ts';
import { rootPasswordKey } from '../../../src/controllers/shared/root-password-key.ts';
import { redactString } from '../../../src/runtime/redact.ts';
import { cluster, render, ROOT_SECRET } from './builders.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const SEED_SECRET: V1Secret = {
  metadata: { name: 'my-db-secret', namespace: 'default' },
  data: { username: b64('admin'), password: b64('s3cret') },
};

test('ROOT_PASSWORD is the root password key; without it, a non-empty `password`; else none', () => {
  assert.equal(rootPasswordKey(ROOT_SECRET), 'ROOT_PASSWORD');
  assert.equal(rootPasswordKey(SEED_SECRET), 'password');
  assert.equal(rootPasswordKey({ data: { ROOT_PASSWORD: b64('r'), password: b64('p') } }), 'ROOT_PASSWORD');
  assert.equal(rootPasswordKey({ stringData: { password: 'p' } }), 'password');
  assert.equal(rootPasswordKey({ data: { ROOT_PASSWORD: '', password: b64('p') } }), 'password');
  // PASSWORD (upper case) is the app user's password, not root's.
  assert.equal(rootPasswordKey({ data: { USER: b64('app'), PASSWORD: b64('p') } }), undefined);
  assert.equal(rootPasswordKey({ data: { username: b64('admin'), password: '' } }), undefined);
});

test('validation passes the key on, and refuses a Secret with neither key naming both', () => {
  const opts = clusterOptions();
  const seed = validateCluster(cluster(), SEED_SECRET, opts);
  assert.ok(seed.ok);
  assert.equal(seed.rootPasswordKey, 'password');
  const anchor = validateCluster(cluster(), ROOT_SECRET, opts);
  assert.ok(anchor.ok);
  assert.equal(anchor.rootPasswordKey, 'ROOT_PASSWORD');
  const neither = validateCluster(cluster(), { metadata: { name: 'my-db-secret' }, data: { username: b64('admin') } }, opts);
  assert.ok(!neither.ok);
  assert.equal(neither.problems[0]?.reason, CLUSTER_REASONS.userSecretKeyMissing);
  assert.match(
    neither.problems[0]!.message,
    /Secret default\/my-db-secret \(spec\.secretName\) has no non-empty key ROOT_PASSWORD \(or password\)/,
  );
});

test('MYSQL_ROOT_PASSWORD reads the chosen key, in mysql or in mysql-init-only; nothing else changes', () => {
  for (const version of ['mariadb-10.11', '5.7']) {
    const seed = render(cluster({ mysqlVersion: version }), undefined, undefined, undefined, SEED_SECRET).statefulSet;
    const anchor = render(cluster({ mysqlVersion: version })).statefulSet;
    assert.equal(renderedRootPasswordKey(seed), 'password', version);
    assert.equal(renderedRootPasswordKey(anchor), 'ROOT_PASSWORD', version);
    const holder = version === '5.7' ? CONTAINER.mysqlInitOnly : CONTAINER.mysql;
    const spec = seed.spec!.template.spec!;
    const c = [...(spec.initContainers ?? []), ...spec.containers].find((x) => x.name === holder)!;
    assert.deepEqual(c.env?.find((e) => e.name === ENV.mysqlRootPassword)?.valueFrom?.secretKeyRef, {
      name: 'my-db-secret',
      key: 'password',
      optional: false,
    });
    // The only difference from the anchor's template is that key.
    const json = (s: V1StatefulSet) => JSON.stringify(s);
    assert.equal(json(seed).replace('"key":"password","optional":false', '"key":"ROOT_PASSWORD","optional":false'), json(anchor));
  }
});

test('the Event is due only when a written StatefulSet starts reading the fallback key', () => {
  const seedSts = render(cluster(), undefined, undefined, undefined, SEED_SECRET).statefulSet;
  const anchorSts = render(cluster()).statefulSet;
  const create = { op: 'create', object: seedSts } as const;
  const update = { op: 'update', object: seedSts } as const;
  assert.equal(announceRootPasswordKey('password', undefined, create), true);
  assert.equal(announceRootPasswordKey('password', anchorSts, update), true);
  assert.equal(announceRootPasswordKey('password', seedSts, update), false, 'already reading it: a replicas change says nothing');
  assert.equal(announceRootPasswordKey('password', seedSts, { op: 'none' }), false, 'steady state');
  assert.equal(announceRootPasswordKey('password', undefined, { op: 'refuse', message: 'x' }), false, 'not written');
  assert.equal(announceRootPasswordKey('ROOT_PASSWORD', undefined, create), false);
  assert.equal(announceRootPasswordKey('ROOT_PASSWORD', seedSts, update), false);
});

test('the Event names the Secret and its keys, never a value', () => {
  const m = rootPasswordKeyMessage('default', SEED_SECRET, 'password');
  assert.equal(
    m,
    'Secret default/my-db-secret has no key ROOT_PASSWORD, so the root password is read from its key "password"; its key "username" is not used (the root user\'s name is fixed)',
  );
  assert.doesNotMatch(m, /s3cret|admin/);
  assert.equal(redactString(m), m, 'nothing in it looks like a secret to the Event recorder');
  assert.equal(
    rootPasswordKeyMessage('ns', { metadata: { name: 's' }, stringData: { password: 'p' } }, 'password'),
    'Secret ns/s has no key ROOT_PASSWORD, so the root password is read from its key "password"',
  );
});
