import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Container } from '@kubernetes/client-node';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { cluster, render } from './builders.ts';

const names = (cs: V1Container[] | undefined) => (cs ?? []).map((c) => c.name);
const env = (c: V1Container | undefined) => (c?.env ?? []).map((e) => e.name);
const pod = (spec: Parameters<typeof cluster>[0], opts = undefined) => render(cluster(spec), opts).statefulSet.spec!.template;

test('container layout: user init containers first, then init; pt-kill and user containers last', () => {
  const t = pod({
    queryLimits: { maxQueryTime: 30, kill: 'all', killMode: 'query', ignoreUser: ['root', 'app'] },
    podSpec: { initContainers: [{ name: 'my-init', image: 'busybox' }], containers: [{ name: 'my-extra', image: 'busybox' }] },
  });
  assert.deepEqual(names(t.spec?.initContainers), ['my-init', 'init', 'mysql-init-only']);
  assert.deepEqual(names(t.spec?.containers), ['mysql', 'sidecar', 'metrics-exporter', 'pt-heartbeat', 'pt-kill', 'my-extra']);
  const kill = t.spec!.containers.find((c) => c.name === 'pt-kill')!;
  assert.deepEqual(kill.args?.slice(kill.args.indexOf('--busy-time')), [
    '--busy-time',
    '30',
    '--kill-query',
    '--victims',
    'all',
    '--ignore-user',
    'root|app',
  ]);
});

test('MariaDB pods have no init-only container: the root credentials go on mysql', () => {
  const t = pod({ mysqlVersion: 'mariadb-10.11' });
  assert.deepEqual(names(t.spec?.initContainers), ['init']);
  const mysql = t.spec!.containers[0]!;
  assert.deepEqual(env(mysql).slice(-4), ['MYSQL_ROOT_PASSWORD', 'MYSQL_USER', 'MYSQL_PASSWORD', 'MYSQL_DATABASE']);
  assert.equal(mysql.env?.find((e) => e.name === 'MY_MYSQL_VERSION')?.value, '10.11.10');
});

test('the root password is never optional', () => {
  for (const v of ['5.7', 'mariadb-11.4']) {
    const t = pod({ mysqlVersion: v });
    const all = [...(t.spec?.initContainers ?? []), ...t.spec!.containers].flatMap((c) => c.env ?? []);
    const root = all.filter((e) => e.name === 'MYSQL_ROOT_PASSWORD');
    assert.equal(root.length, 1, v);
    assert.equal(root[0]!.valueFrom?.secretKeyRef?.optional, false);
  }
});

test('resources: mysql defaults, sidecar limits follow mysql, per-container overrides win', () => {
  const t = pod({
    podSpec: {
      resources: { requests: { cpu: '1', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } },
      metricsExporterResources: { requests: { cpu: '5m' } },
    },
  });
  const byName = Object.fromEntries(t.spec!.containers.map((c) => [c.name, c]));
  assert.deepEqual(byName.mysql!.resources, { requests: { cpu: '1', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } });
  assert.deepEqual(byName.sidecar!.resources, { requests: { cpu: '10m', memory: '64Mi' }, limits: { cpu: '2', memory: '4Gi' } });
  assert.deepEqual(byName['metrics-exporter']!.resources, { requests: { cpu: '5m' } });
  assert.deepEqual(pod({}).spec!.containers[0]!.resources, { requests: { cpu: '200m', memory: '1Gi' } });
});

test('scheduling settings of podSpec reach the pod; the default anti-affinity is replaced by the user one', () => {
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } };
  const t = pod({
    podSpec: {
      affinity,
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'db', operator: 'Exists' }],
      priorityClassName: 'high',
      serviceAccountName: 'mysql',
      imagePullPolicy: 'Always',
      imagePullSecrets: [{ name: 'regcred' }],
      labels: { team: 'a' },
      annotations: { note: 'x' },
    },
  });
  assert.deepEqual(t.spec?.affinity, affinity);
  assert.deepEqual(t.spec?.nodeSelector, { disk: 'ssd' });
  assert.deepEqual(t.spec?.tolerations, [{ key: 'db', operator: 'Exists' }]);
  assert.equal(t.spec?.priorityClassName, 'high');
  assert.equal(t.spec?.serviceAccountName, 'mysql');
  assert.deepEqual(t.spec?.imagePullSecrets, [{ name: 'regcred' }]);
  assert.ok([...t.spec!.initContainers!, ...t.spec!.containers].every((c) => c.imagePullPolicy === 'Always'));
  assert.equal(t.metadata?.labels?.team, 'a');
  assert.equal(t.metadata?.annotations?.note, 'x');
  assert.deepEqual(pod({}, clusterOptions({ imagePullSecretName: 'op-secret' }) as never).spec?.imagePullSecrets, [{ name: 'op-secret' }]);
});

test('user volumes and mounts are added; mounts go to mysql and sidecar', () => {
  const t = pod({ podSpec: { volumes: [{ name: 'extra', emptyDir: {} }], volumeMounts: [{ name: 'extra', mountPath: '/extra' }] } });
  assert.deepEqual(
    t.spec?.volumes?.map((v) => v.name),
    ['conf', 'config-map', 'data', 'extra'],
  );
  const mounts = (n: string) => t.spec!.containers.find((c) => c.name === n)!.volumeMounts!.map((m) => m.mountPath);
  assert.deepEqual(mounts('mysql'), ['/etc/mysql', '/var/lib/mysql', '/extra']);
  assert.deepEqual(mounts('sidecar'), ['/etc/mysql', '/var/lib/mysql', '/extra']);
  assert.deepEqual(mounts('pt-heartbeat'), ['/etc/mysql']);
});

test('a user mysqlLifecycle replaces the pre-stop takeover and drops the script from the ConfigMap', () => {
  const lifecycle = { preStop: { exec: { command: ['sleep', '1'] } } };
  const d = render(cluster({ podSpec: { mysqlLifecycle: lifecycle } }));
  assert.deepEqual(d.statefulSet.spec!.template.spec!.containers[0]!.lifecycle, lifecycle);
  assert.deepEqual(Object.keys(d.configMap.data!), ['my.cnf']);
});

test('the PVC template carries the cluster owner reference unless keepAfterDelete', () => {
  const owned = render(cluster({})).statefulSet.spec!.volumeClaimTemplates![0]!;
  assert.equal(owned.metadata?.ownerReferences?.[0]?.kind, 'MysqlCluster');
  assert.equal(owned.metadata?.ownerReferences?.[0]?.blockOwnerDeletion, undefined);
  const kept = render(cluster({ volumeSpec: { keepAfterDelete: true } })).statefulSet.spec!.volumeClaimTemplates![0]!;
  assert.equal(kept.metadata?.ownerReferences, undefined);
  assert.deepEqual(kept.spec?.resources?.requests, { storage: '1Gi' }, 'the CRD default volume');
});

test('emptyDir and hostPath data volumes have no claim template', () => {
  const d = render(cluster({ volumeSpec: { emptyDir: {} } }));
  assert.equal(d.statefulSet.spec!.volumeClaimTemplates, undefined);
  assert.deepEqual(d.statefulSet.spec!.template.spec!.volumes![2], { name: 'data', emptyDir: {} });
});

test('optional env appears only when its field is set, in the anchor order', () => {
  const t = pod({
    initBucketURL: 's3://b/x.xbackup.gz',
    initBucketSecretName: 'creds',
    serverIDOffset: 200,
    backupCompressCommand: ['zstd'],
    backupDecompressCommand: ['zstd', '-d'],
    rcloneExtraArgs: ['--a'],
    xtrabackupPrepareExtraArgs: ['--p'],
    initFileExtraSQL: ['SELECT 1', 'SELECT 2'],
  });
  const init = t.spec!.initContainers!.find((c) => c.name === 'init')!;
  assert.deepEqual(env(init).slice(7), [
    'INIT_BUCKET_URI',
    'MY_SERVER_ID_OFFSET',
    'BACKUP_DECOMPRESS_COMMAND',
    'RCLONE_EXTRA_ARGS',
    'XTRABACKUP_PREPARE_EXTRA_ARGS',
    'INITFILE_EXTRA_SQL',
    'BACKUP_USER',
    'BACKUP_PASSWORD',
  ]);
  assert.deepEqual(init.envFrom, [{ secretRef: { name: 'creds' } }, { secretRef: { name: 'my-db-mysql-operated' } }]);
  assert.equal(env(t.spec!.containers[0]).includes('MY_SERVER_ID_OFFSET'), true);
  assert.equal(
    env(pod({ serverIDOffset: 100 }).spec!.containers[0]).includes('MY_SERVER_ID_OFFSET'),
    false,
    'the CRD default is not emitted',
  );
});

test('annotations on the cluster may override the instance and component labels', () => {
  const c = cluster({});
  c.metadata!.annotations = { 'app.kubernetes.io/instance': 'shop', 'app.kubernetes.io/part-of': 'store' };
  const labels = render(c).statefulSet.spec!.template.metadata!.labels!;
  assert.equal(labels['app.kubernetes.io/instance'], 'shop');
  assert.equal(labels['app.kubernetes.io/part-of'], 'store');
  assert.equal(labels['mysql.presslabs.org/cluster'], 'my-db');
});

test('the config hash changes with config, Secret and images, not with replicas or backup settings', () => {
  const base = render(cluster({ replicas: 1 })).configHash;
  assert.equal(render(cluster({ replicas: 5 })).configHash, base);
  assert.equal(render(cluster({ replicas: 1, podSpec: { backupNodeSelector: { a: 'b' } } })).configHash, base);
  assert.notEqual(render(cluster({ replicas: 1, mysqlConf: { 'max-connections': 9 } })).configHash, base);
  assert.notEqual(render(cluster({ replicas: 1, image: 'other:1' })).configHash, base);
  assert.notEqual(render(cluster({ replicas: 1 }), undefined, undefined, { OPERATOR_PASSWORD: 'different' }).configHash, base);
});
