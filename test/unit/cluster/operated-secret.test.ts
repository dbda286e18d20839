// The topology password in the operated Secret (docs/credentials.md): a hash for this project's
// sidecar, the anchor's plain value for the anchor's, the other form's key taken out, and a
// rollout hash that does not move when the Secret swaps the password for its hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Secret } from '@kubernetes/client-node';
import { planSecret } from '../../../src/controllers/cluster/decide-writes.ts';
import {
  announcePlainTopologyPassword,
  operatedSecretData,
  REMOVABLE_OPERATED_KEYS,
  renderOperatedSecret,
  rolloutSecretView,
  topologyPasswordForm,
  topologyPasswordMessage,
} from '../../../src/controllers/cluster/render-operated-secret.ts';
import { redactString } from '../../../src/runtime/logger.ts';
import { flavourFromVersionSpec, nativePasswordHash, storedHashMatches, type Flavour } from '../../../src/mysql/index.ts';

function flavour(spec: string): Flavour {
  const f = flavourFromVersionSpec(spec);
  assert.ok(f, spec);
  return f;
}

const REF = { namespace: 'tenant-a', name: 'db' };
const OURS = 'mysql-operator-sidecar:latest';
const ORC = { user: 'orchestrator', password: 'Install-Wide-Password-1' };
const generate = (): string => 'generated-1';

test('the anchor sidecar images read the plain password; every other image gets the hash', () => {
  for (const image of [
    'docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3',
    'docker.io/bitpoke/mysql-operator-sidecar-8.0:v0.6.3',
    'bitpoke/mysql-operator-sidecar-5.7@sha256:abc',
    'quay.io/presslabs/mysql-operator-sidecar:0.4.0',
  ]) {
    assert.equal(topologyPasswordForm(image, flavour('5.7'), REF).kind, 'plain', image);
  }
  for (const image of [OURS, 'registry.example/team/mysql-operator-sidecar:1.0', 'docker.io/bitpoke/mysql-operator:v0.6.3']) {
    assert.equal(topologyPasswordForm(image, flavour('8.0'), REF).kind, 'hash', image);
  }
});

test("this project's sidecar: the Secret holds the hash and no key holds the password", () => {
  const form = topologyPasswordForm(OURS, flavour('mariadb-10.11'), REF);
  const d = operatedSecretData({ ORC_TOPOLOGY_PASSWORD: 'old-plain' }, ORC, generate, form);
  assert.equal(d.ORC_TOPOLOGY_PASSWORD_HASH, nativePasswordHash(ORC.password));
  assert.equal(d.ORC_TOPOLOGY_PASSWORD, undefined);
  assert.ok(!Object.values(d).some((v) => v.includes(ORC.password)));
  assert.equal(d.ORC_TOPOLOGY_USER, 'orchestrator');
});

test('MySQL 8.4 gets a caching_sha2_password hash, salted per cluster and stable across passes', () => {
  const f = flavour('8.4');
  const a = operatedSecretData({}, ORC, generate, topologyPasswordForm(OURS, f, REF)).ORC_TOPOLOGY_PASSWORD_HASH!;
  const again = operatedSecretData({}, ORC, generate, topologyPasswordForm(OURS, f, REF)).ORC_TOPOLOGY_PASSWORD_HASH!;
  const other = operatedSecretData({}, ORC, generate, topologyPasswordForm(OURS, f, { ...REF, namespace: 'tenant-b' }))
    .ORC_TOPOLOGY_PASSWORD_HASH!;
  assert.match(a, /^\$A\$005\$[./0-9A-Za-z]{63}$/);
  assert.equal(a, again);
  assert.notEqual(a, other);
  assert.ok(storedHashMatches(a, ORC.password));
  assert.ok(!storedHashMatches(a, 'wrong'));
});

test('without a configured password: a hash is kept, an older plain value becomes its hash, a new Secret gets the hash of a password nobody knows', () => {
  const form = topologyPasswordForm(OURS, flavour('mariadb-10.11'), REF);
  const none = { user: '', password: '' };
  assert.equal(operatedSecretData({ ORC_TOPOLOGY_PASSWORD_HASH: '*AB' }, none, generate, form).ORC_TOPOLOGY_PASSWORD_HASH, '*AB');
  const converted = operatedSecretData({ ORC_TOPOLOGY_PASSWORD: 'older' }, none, generate, form);
  assert.equal(converted.ORC_TOPOLOGY_PASSWORD_HASH, nativePasswordHash('older'));
  assert.equal(converted.ORC_TOPOLOGY_PASSWORD, undefined);
  assert.equal(operatedSecretData({}, none, generate, form).ORC_TOPOLOGY_PASSWORD_HASH, nativePasswordHash('generated-1'));
});

test("the anchor's sidecar: the anchor's plain value, and no hash key", () => {
  const form = topologyPasswordForm('docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3', flavour('5.7'), REF);
  const d = operatedSecretData({ ORC_TOPOLOGY_PASSWORD_HASH: '*AB' }, ORC, generate, form);
  assert.equal(d.ORC_TOPOLOGY_PASSWORD, ORC.password);
  assert.equal(d.ORC_TOPOLOGY_PASSWORD_HASH, undefined);
});

test('the rollout view shows the hash as the password it was made from, so the swap rolls nothing and a rotation still does', () => {
  const form = topologyPasswordForm(OURS, flavour('mariadb-10.11'), REF);
  const before = operatedSecretData({}, ORC, generate, { kind: 'plain' });
  const after = operatedSecretData(before, ORC, generate, form);
  assert.deepEqual(rolloutSecretView(after, ORC, form), before);
  const rotated = { ...ORC, password: 'Rotated-2' };
  assert.notDeepEqual(rolloutSecretView(operatedSecretData(after, rotated, generate, form), rotated, form), before);
});

test('the Secret write takes out the other form’s key, and leaves keys others added', () => {
  const secret = (data: Record<string, string>): V1Secret => renderOperatedSecret({ ...REF, uid: 'uid-1' }, data);
  const existing = secret({ ORC_TOPOLOGY_PASSWORD: 'plain', OTHER: 'kept' });
  const desired = secret({ ORC_TOPOLOGY_PASSWORD_HASH: '*AB' });
  const plan = planSecret(desired, existing, REMOVABLE_OPERATED_KEYS);
  assert.equal(plan.op, 'update');
  const data = plan.op === 'update' ? (plan.object.data ?? {}) : {};
  assert.deepEqual(Object.keys(data).sort(), ['ORC_TOPOLOGY_PASSWORD_HASH', 'OTHER']);
  assert.equal(planSecret(desired, secret({ ORC_TOPOLOGY_PASSWORD_HASH: '*AB', OTHER: 'kept' }), REMOVABLE_OPERATED_KEYS).op, 'none');
});

test('writing the plain password into a tenant Secret is announced, naming the image and the way out, never a value', () => {
  assert.equal(announcePlainTopologyPassword(true, ORC, 'create'), true);
  assert.equal(announcePlainTopologyPassword(true, ORC, 'update'), true);
  assert.equal(announcePlainTopologyPassword(true, ORC, 'none'), false, 'an adopted Secret left as it is: nothing written');
  assert.equal(announcePlainTopologyPassword(false, ORC, 'create'), false);
  assert.equal(announcePlainTopologyPassword(true, { user: 'orc', password: '' }, 'create'), false, 'no install-wide password copied');
  const m = topologyPasswordMessage('docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3');
  assert.match(m, /bitpoke\/mysql-operator-sidecar-5\.7:v0\.6\.3/);
  assert.match(m, /--sidecar-image/);
  assert.equal(redactString(m), m, 'nothing in it reads as a secret');
});
