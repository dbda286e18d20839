// The API server's causes for a rendered object, mapped to the MysqlCluster field the user wrote.
// The causes come from the test API server's validation of the really rendered objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlClusterSpec } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { clusterRef } from '../../../src/controllers/cluster/render-cluster.ts';
import { renderPodDisruptionBudget } from '../../../src/controllers/cluster/render-pdb.ts';
import { parseFieldPath, refusalMessage, userField } from '../../../src/controllers/cluster/user-field.ts';
import { builtinDefs } from '../../../sandbox/apiserver/builtins.ts';
import { builtinCauses } from '../../../sandbox/apiserver/builtin-validation.ts';
import { cluster, render, wire } from './builders.ts';

function causesOf(resource: string, obj: unknown): Array<{ field: string; message: string }> {
  const def = builtinDefs().find((d) => d.resource === resource)!;
  return builtinCauses(def, wire(obj) as never).map((c) => ({ field: c.field ?? '', message: c.message }));
}

/** The user fields (each once) named for the causes the API server gives to the StatefulSet rendered from `spec`. */
function statefulSetFields(spec: Partial<MysqlClusterSpec>): Array<string | undefined> {
  const c = cluster(spec);
  const sts = render(c).statefulSet as V1StatefulSet & KubeObject;
  // As the API server defaults it before validating.
  const causes = causesOf('statefulsets', {
    ...sts,
    spec: { ...sts.spec, template: { ...sts.spec!.template, spec: { restartPolicy: 'Always', ...sts.spec!.template.spec } } },
  });
  assert.ok(causes.length, 'the API server refuses the rendered StatefulSet');
  return [...new Set(causes.map((x) => userField(c.spec, 'StatefulSet', sts, x.field)))];
}

test('field paths parse with indexes and bracketed keys', () => {
  assert.deepEqual(parseFieldPath('spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]'), [
    'spec',
    'template',
    'spec',
    'containers',
    0,
    'resources',
    'requests',
    'nvidia.com/gpu',
  ]);
});

test('requests over limits in the mysql (and init-only) container name spec.podSpec.resources', () => {
  assert.deepEqual(statefulSetFields({ podSpec: { resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } } }), [
    'spec.podSpec.resources.requests',
  ]);
});

test('the sidecar, which takes the mysql limits, names spec.podSpec.resources.limits', () => {
  // The sidecar requests 64Mi of its own: a 32Mi limit the mysql container accepts is too low for it.
  assert.deepEqual(statefulSetFields({ podSpec: { resources: { requests: { memory: '16Mi' }, limits: { memory: '32Mi' } } } }), [
    'spec.podSpec.resources.limits',
  ]);
});

test('each container resource field maps to its own podSpec field', () => {
  const over = { requests: { cpu: '2' }, limits: { cpu: '1' } };
  assert.deepEqual(statefulSetFields({ podSpec: { mysqlOperatorSidecarResources: over } }), [
    'spec.podSpec.mysqlOperatorSidecarResources.requests',
  ]);
  assert.deepEqual(statefulSetFields({ podSpec: { metricsExporterResources: over } }), ['spec.podSpec.metricsExporterResources.requests']);
  assert.deepEqual(statefulSetFields({ podSpec: { ptHeartbeatResources: over } }), ['spec.podSpec.ptHeartbeatResources.requests']);
});

test("the user's containers and init containers are named by their own index", () => {
  const extra = (name: string) => ({ name, image: 'busybox', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } });
  assert.deepEqual(statefulSetFields({ podSpec: { containers: [{ name: 'ok', image: 'busybox' }, extra('bad')] } }), [
    'spec.podSpec.containers[1].resources.requests',
  ]);
  assert.deepEqual(statefulSetFields({ podSpec: { initContainers: [extra('first')] } }), [
    'spec.podSpec.initContainers[0].resources.requests',
  ]);
});

test('pod-level fields copied from podSpec keep their path', () => {
  assert.deepEqual(statefulSetFields({ podSpec: { tolerations: [{ key: 'a', operator: 'Sometimes' }] } }), [
    'spec.podSpec.tolerations[0].operator',
  ]);
  assert.deepEqual(statefulSetFields({ podSpec: { imagePullPolicy: 'Sometimes' as never } }), ['spec.podSpec.imagePullPolicy']);
});

test('volumes, mounts, the claim template and the pod labels map to the spec that rendered them', () => {
  const c = cluster({
    podSpec: { volumes: [{ name: 'extra', emptyDir: {} }], volumeMounts: [{ name: 'extra', mountPath: '/extra' }], labels: { team: 'db' } },
    volumeSpec: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  });
  const sts = render(c).statefulSet as V1StatefulSet & KubeObject;
  const volumes = sts.spec!.template.spec!.volumes!.length;
  const mysqlMounts = sts.spec!.template.spec!.containers[0]!.volumeMounts!.length;
  const field = (path: string) => userField(c.spec, 'StatefulSet', sts, path);
  assert.equal(field(`spec.template.spec.volumes[${volumes - 1}].emptyDir.medium`), 'spec.podSpec.volumes[0].emptyDir.medium');
  assert.equal(
    field(`spec.template.spec.containers[0].volumeMounts[${mysqlMounts - 1}].mountPath`),
    'spec.podSpec.volumeMounts[0].mountPath',
  );
  assert.equal(field('spec.volumeClaimTemplates[0].spec.accessModes'), 'spec.volumeSpec.persistentVolumeClaim.accessModes');
  assert.equal(field('spec.template.metadata.labels'), 'spec.podSpec.labels');
});

test('values the operator wrote itself name no user field', () => {
  const c = cluster();
  const sts = render(c).statefulSet as KubeObject;
  for (const path of [
    'spec.selector',
    'spec.template.spec.containers[1].readinessProbe',
    'spec.template.spec.volumes[0].emptyDir',
    'spec.volumeClaimTemplates[0].spec.accessModes',
    'spec.template.spec.affinity',
  ]) {
    assert.equal(userField(c.spec, 'StatefulSet', sts, path), undefined, path);
  }
});

test('a PodDisruptionBudget refused for minAvailable names spec.minAvailable', () => {
  const c = cluster({ minAvailable: '150%' });
  const pdb = renderPodDisruptionBudget(clusterRef(c), '150%') as KubeObject;
  const causes = causesOf('poddisruptionbudgets', pdb);
  assert.deepEqual(
    causes.map((x) => userField(c.spec, 'PodDisruptionBudget', pdb, x.field)),
    ['spec.minAvailable'],
  );
});

test('the message names the user fields, then quotes the API server', () => {
  const c = cluster({ podSpec: { resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } } });
  const sts = render(c).statefulSet as KubeObject;
  const server = 'PUT /apis/apps/v1/...: 422 StatefulSet.apps "my-db-mysql" is invalid: ...';
  assert.equal(
    refusalMessage(
      c.spec,
      'StatefulSet',
      sts,
      [{ field: 'spec.template.spec.containers[0].resources.requests' }, { field: 'spec.selector' }],
      server,
    ),
    `spec.podSpec.resources.requests: the API server refused StatefulSet my-db-mysql: ${server}`,
  );
  assert.equal(refusalMessage(c.spec, 'StatefulSet', sts, [{ field: 'spec.selector' }], server), server);
  assert.equal(refusalMessage(c.spec, 'StatefulSet', sts, [], server), server);
});
