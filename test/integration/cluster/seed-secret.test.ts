// A user Secret made with `username` and `password` instead of ROOT_PASSWORD (our first user
// guide did that): the cluster is rendered with MYSQL_ROOT_PASSWORD reading `password`, one
// Event says so however many reconciles follow, and a Secret with neither key is refused with a
// condition naming both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { CLUSTER_REASONS } from '../../../src/api/constants.ts';
import { renderedRootPasswordKey } from '../../../src/controllers/cluster/decide-root-password.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { operatorTest } from './operator.ts';
import { eventually } from '../../support/wait.ts';

const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
type Event = KubeObject & { reason?: string; message?: string; type?: string; count?: number; involvedObject?: { name?: string } };

async function synced(client: KubeClient, namespace: string, name: string) {
  const c = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace, name });
  return c.status?.conditions?.find((x) => x.type === 'Synced');
}

async function events(client: KubeClient, namespace: string, name: string, reason: string): Promise<Event[]> {
  const list = await client.list<Event>({ apiVersion: 'v1', kind: 'Event' }, { namespace });
  return list.items.filter((e) => e.involvedObject?.name === name && e.reason === reason);
}

test('a {username, password} Secret: the root password is read from `password`, said once; neither key is refused', async (t) => {
  const { namespace: ns, client, op } = await operatorTest(t);
  const secret = (name: string, stringData: Record<string, string>) =>
    client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, stringData } as KubeObject);
  await secret('seed', { username: 'admin', password: 'Seed-Pass-41' });
  await secret('anchor', { ROOT_PASSWORD: 'Anchor-Pass-17' });
  await secret('neither', { username: 'admin', PASSWORD: 'app-password' });
  for (const [name, secretName] of [
    ['seeded', 'seed'],
    ['anchored', 'anchor'],
    ['broken', 'neither'],
  ]) {
    await client.create({
      ...CLUSTER,
      metadata: { name, namespace: ns },
      spec: { secretName, mysqlVersion: 'mariadb-10.11' },
    } as KubeObject);
  }

  const sts = (name: string) =>
    client.getIfExists<V1StatefulSet & KubeObject>({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: ns, name: `${name}-mysql` });
  await eventually('seeded synced', async () => (await synced(client, ns, 'seeded'))?.status === 'True');
  await eventually('anchored synced', async () => (await synced(client, ns, 'anchored'))?.status === 'True');

  const seeded = await sts('seeded');
  const mysql = seeded?.spec?.template.spec?.containers.find((c) => c.name === 'mysql');
  assert.deepEqual(mysql?.env?.find((e) => e.name === 'MYSQL_ROOT_PASSWORD')?.valueFrom?.secretKeyRef, {
    name: 'seed',
    key: 'password',
    optional: false,
  });
  assert.equal(renderedRootPasswordKey(await sts('anchored')), 'ROOT_PASSWORD', 'a Secret with ROOT_PASSWORD keeps the anchor template');

  // Several more reconciles of every cluster (RESYNC_PERIOD is 1 s), then count.
  const after = op.reconciles.mark();
  await eventually('more reconciles', async () => op.reconciles.mark() >= after + 9);
  const said = await eventually('the Event', async () => {
    const e = await events(client, ns, 'seeded', CLUSTER_REASONS.rootPasswordFromPasswordKey);
    return e.length ? e : undefined;
  });
  assert.equal(said.length, 1);
  assert.equal(said[0]!.count, 1, 'recorded once, not on every reconcile');
  assert.equal(said[0]!.type, 'Normal');
  assert.match(
    said[0]!.message ?? '',
    new RegExp(`^Secret ${ns}/seed has no key ROOT_PASSWORD, so the root password is read from its key "password"`),
  );
  assert.doesNotMatch(said[0]!.message ?? '', /Seed-Pass-41/);
  assert.deepEqual(await events(client, ns, 'anchored', CLUSTER_REASONS.rootPasswordFromPasswordKey), []);

  const refused = await eventually('broken refused', async () => {
    const c = await synced(client, ns, 'broken');
    return c?.status === 'False' ? c : undefined;
  });
  assert.equal(refused.reason, CLUSTER_REASONS.userSecretKeyMissing);
  assert.equal(refused.message, `Secret ${ns}/neither (spec.secretName) has no non-empty key ROOT_PASSWORD (or password)`);
  assert.equal(await sts('broken'), undefined, 'nothing that would start MySQL without a root password');
});
