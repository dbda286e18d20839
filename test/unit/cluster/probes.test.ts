// The probes of the rendered pod: a new cluster's pods are Ready as soon as they are configured,
// and running pods (adopted from the anchor, or of our earlier releases) keep their probes until
// their template changes for another reason (decide-rollout.ts, docs/cluster-controller.md "Probes").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Container, V1PodTemplateSpec, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH } from '../../../src/api/constants.ts';
import { decideProbes } from '../../../src/controllers/cluster/decide-rollout.ts';
import type { ProbeStyle } from '../../../src/controllers/cluster/render-statefulset.ts';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { anchorCluster, anchorObject, cluster, render, wire } from './builders.ts';

const HASH = { [ANNOTATION_CONFIG_HASH]: '<HASH>' };
const ANCHOR_REVS = { config_rev: '<CONFIGMAP_RESOURCE_VERSION>', secret_rev: '<OPERATED_SECRET_RESOURCE_VERSION>' };

const template = (c: MysqlCluster, rollout: Record<string, string>, probes: ProbeStyle): V1PodTemplateSpec =>
  wire(render(c, undefined, rollout, {}, undefined, probes).statefulSet.spec!.template);
/** The probes the reconcile chooses for `c` given the template the pods run. */
const decided = (c: MysqlCluster, rollout: Record<string, string>, existing: V1PodTemplateSpec | undefined): ProbeStyle =>
  decideProbes(existing, template(c, rollout, 'anchor'));
const container = (t: V1PodTemplateSpec, name: string): V1Container => t.spec!.containers.find((c) => c.name === name)!;

test('a new cluster: a startup probe on mysqld gates liveness and readiness, which have no initial delay', () => {
  const c = cluster({ mysqlVersion: 'mariadb-10.11' });
  assert.equal(decided(c, HASH, undefined), 'fast');
  const t = template(c, HASH, 'fast');
  const mysql = container(t, 'mysql');
  const ping = ['mysqladmin', '--defaults-file=/etc/mysql/client.conf', 'ping'];
  assert.deepEqual(mysql.startupProbe?.exec?.command, ping);
  assert.equal(mysql.startupProbe?.periodSeconds, 1);
  // A crash recovery of up to an hour is never cut short: liveness starts after the startup probe.
  assert.ok(mysql.startupProbe!.periodSeconds! * mysql.startupProbe!.failureThreshold! >= 3600);
  assert.deepEqual(mysql.livenessProbe?.exec?.command, ping);
  assert.equal(mysql.livenessProbe?.initialDelaySeconds, 0);
  // Ready means configured by the node controller, as before.
  assert.match(mysql.readinessProbe?.exec?.command?.join(' ') ?? '', /sys_operator\.status WHERE name="configured" AND value="1"/);
  assert.equal(mysql.readinessProbe?.initialDelaySeconds, 0);
  const sidecar = container(t, 'sidecar');
  assert.deepEqual(sidecar.readinessProbe?.httpGet, { path: '/health', port: 8080, scheme: 'HTTP' });
  assert.equal(sidecar.readinessProbe?.initialDelaySeconds, 0);
  for (const c of t.spec!.containers) {
    assert.ok((c.readinessProbe?.periodSeconds ?? 0) <= 2, `${c.name} readiness is checked at least every 2 s`);
  }
});

test('an adopted anchor StatefulSet keeps the anchor probes: adoption changes nothing in its pods', () => {
  const existing = anchorObject<V1StatefulSet>('statefulset.yaml').spec!.template;
  assert.equal(decided(anchorCluster(), ANCHOR_REVS, existing), 'anchor');
  assert.equal(container(existing, 'mysql').startupProbe, undefined);
  assert.equal(container(existing, 'sidecar').readinessProbe?.initialDelaySeconds, 30);
});

test('pods of an earlier release (config hash, anchor probes) keep them while nothing else changes: no rollout on upgrade', () => {
  const c = cluster({ replicas: 3 });
  assert.equal(decided(c, HASH, template(c, HASH, 'anchor')), 'anchor');
  assert.equal(decided(cluster({ replicas: 5 }), HASH, template(c, HASH, 'anchor')), 'anchor', 'scaling does not roll pods');
});

test('the first real change of the template brings the new probes, in the same rollout', () => {
  const before = cluster({ replicas: 3 });
  const existing = template(before, HASH, 'anchor');
  assert.equal(decided(before, { [ANNOTATION_CONFIG_HASH]: '<OTHER>' }, existing), 'fast', 'a config change');
  assert.equal(decided(cluster({ replicas: 3, podSpec: { nodeSelector: { disk: 'ssd' } } }), HASH, existing), 'fast', 'a new nodeSelector');
  const adopted = anchorObject<V1StatefulSet>('statefulset.yaml').spec!.template;
  const changed = anchorCluster();
  changed.spec.podSpec = { ...changed.spec.podSpec, tolerations: [{ key: 'dedicated', operator: 'Exists' }] };
  assert.equal(decided(changed, ANCHOR_REVS, adopted), 'fast', 'a change of an adopted cluster');
});

test('pods with the new probes keep them', () => {
  const c = cluster({ replicas: 3 });
  assert.equal(decided(c, HASH, template(c, HASH, 'fast')), 'fast');
});
