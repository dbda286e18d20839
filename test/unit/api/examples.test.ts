// Every example manifest and every manifest shape of docs/compatibility.md / docs/architecture.md / the anchor
// fixtures passes the generated CRDs; bad manifests are rejected naming the field.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { admit, loadCrds, REPO } from './support.ts';
import type { JsonObject } from '../../support/json.ts';

const crds = loadCrds();
const GROUP_VERSION = 'mysql.presslabs.org/v1alpha1';

function docsOf(path: string): JsonObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS() as JsonObject);
}

function cluster(spec: Record<string, unknown>): JsonObject {
  return { apiVersion: GROUP_VERSION, kind: 'MysqlCluster', metadata: { name: 'my-db' }, spec };
}

/** The anchor fixtures use placeholders like "<T>" for times; a real server would hold times. */
function withTimes(text: string): string {
  return text.replace(/"<T>"|"<TIME_[A-Z_]+>"/g, '"2026-01-01T00:00:00Z"');
}

describe('examples/', () => {
  const files = readdirSync(`${REPO}examples`).filter((f) => f.endsWith('.yaml'));

  it('has a cluster, a MariaDB cluster, a backup, a database and a user', () => {
    const kinds = files.flatMap((f) => docsOf(`${REPO}examples/${f}`).map((d) => d.kind));
    for (const k of ['MysqlCluster', 'MysqlBackup', 'MysqlDatabase', 'MysqlUser', 'Secret']) assert.ok(kinds.includes(k), k);
    const versions = files.flatMap((f) => docsOf(`${REPO}examples/${f}`).map((d) => d.spec?.mysqlVersion));
    assert.ok(versions.some((v) => String(v).startsWith('mariadb-')));
  });

  for (const file of files) {
    it(`${file}: every custom resource is accepted with no pruned field`, () => {
      for (const doc of docsOf(`${REPO}examples/${file}`)) {
        if (doc.apiVersion !== GROUP_VERSION) continue;
        const { warnings, messages } = admit(crds, doc);
        assert.deepEqual(messages, [], `${doc.kind} ${doc.metadata.name}`);
        assert.deepEqual(warnings, [], `${doc.kind} ${doc.metadata.name}`);
      }
    });

    it(`${file}: the Secrets the resources name are in the same file with their keys`, () => {
      const docs = docsOf(`${REPO}examples/${file}`);
      const secret = (name: string) => docs.find((d) => d.kind === 'Secret' && d.metadata.name === name);
      for (const d of docs) {
        if (d.kind === 'MysqlCluster') {
          assert.ok(secret(d.spec.secretName)?.stringData?.ROOT_PASSWORD, `${d.spec.secretName} has ROOT_PASSWORD`);
          if (d.spec.backupSecretName) assert.ok(secret(d.spec.backupSecretName)?.stringData?.AWS_ACCESS_KEY_ID);
        }
        if (d.kind === 'MysqlUser') {
          assert.ok(secret(d.spec.password.name)?.stringData?.[d.spec.password.key]);
        }
      }
    });
  }
});

describe('manifest shapes of docs/architecture.md, docs/compatibility.md and the anchor', () => {
  it('accepts the docs/architecture.md cluster with 6-field schedule, backups and a PVC', () => {
    const { messages, warnings } = admit(
      crds,
      cluster({
        replicas: 3,
        secretName: 'my-db-secret',
        mysqlVersion: '8.0',
        backupSchedule: '0 0 */6 * * *',
        backupURL: 's3://my-bucket/my-db/',
        backupSecretName: 'my-db-backup-creds',
        volumeSpec: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } },
      }),
    );
    assert.deepEqual([messages, warnings], [[], []]);
  });

  it('accepts a cluster restored from initBucketURL (and the deprecated initBucketURI)', () => {
    for (const key of ['initBucketURL', 'initBucketURI']) {
      const { messages } = admit(
        crds,
        cluster({
          secretName: 's',
          [key]: 's3://my-bucket/my-db/my-db-auto-2026-01-01t00-00-00.xbackup.gz',
          initBucketSecretName: 'creds',
        }),
      );
      assert.deepEqual(messages, []);
    }
  });

  it('accepts every documented spec field with a value of its documented type', () => {
    const { messages, warnings } = admit(
      crds,
      cluster({
        replicas: 0,
        secretName: 's',
        mysqlVersion: 'mariadb-11.4',
        image: 'mariadb:11.4',
        sidecarImage: 'sidecar:1',
        minAvailable: 1,
        backupSchedule: '@every 1h',
        backupURL: 'gs://b/p/',
        backupRemoteDeletePolicy: 'delete',
        backupScheduleJobsHistoryLimit: 3,
        mysqlConf: { max_connections: 100, innodb_log_file_size: '256M' },
        podSpec: {
          imagePullPolicy: 'Always',
          imagePullSecrets: [{ name: 'reg' }],
          labels: { a: 'b' },
          annotations: { c: 'd' },
          resources: { limits: { memory: '2Gi' } },
          affinity: { nodeAffinity: {} },
          mysqlLifecycle: { preStop: { exec: { command: ['true'] } } },
          nodeSelector: { disk: 'ssd' },
          priorityClassName: 'high',
          tolerations: [{ key: 'k', operator: 'Exists' }],
          serviceAccountName: 'sa',
          backupAffinity: {},
          backupNodeSelector: {},
          backupPriorityClassName: 'low',
          backupTolerations: [],
          volumes: [{ name: 'v', emptyDir: {} }],
          volumeMounts: [{ name: 'v', mountPath: '/v' }],
          initContainers: [{ name: 'i', image: 'busybox' }],
          containers: [{ name: 'c', image: 'busybox' }],
          metricsExporterResources: {},
          mysqlOperatorSidecarResources: {},
          ptHeartbeatResources: {},
        },
        volumeSpec: { hostPath: { path: '/data' }, emptyDir: {}, keepAfterDelete: true, deletePVCsOnScaleDown: true },
        tmpfsSize: '1Gi',
        maxSlaveLatency: 10,
        queryLimits: {
          maxIdleTime: 60,
          maxQueryTime: 30,
          kill: 'all-but-oldest',
          killMode: 'query',
          ignoreDb: ['a'],
          ignoreCommands: ['Sleep'],
          ignoreUser: ['root'],
        },
        readOnly: true,
        serverIDOffset: 1000,
        backupCompressCommand: ['zstd'],
        backupDecompressCommand: ['zstd', '-d'],
        metricsExporterExtraArgs: ['--x'],
        rcloneExtraArgs: ['--y'],
        xbstreamExtraArgs: ['--z'],
        xtrabackupExtraArgs: ['--parallel=2'],
        xtrabackupPrepareExtraArgs: ['--use-memory=1G'],
        xtrabackupTargetDir: '/tmp/x/',
        initFileExtraSQL: ['SELECT 1'],
      }),
    );
    assert.deepEqual([messages, warnings], [[], []]);
  });

  it('accepts the anchor sample cluster and backup, as created and as stored with status', () => {
    const dir = `${REPO}test/fixtures/anchor-v0.6.3/`;
    for (const file of ['mysqlcluster.yaml', 'mysqlbackup.yaml']) {
      const { messages, warnings } = admit(crds, parse(readFileSync(dir + file, 'utf8')));
      assert.deepEqual([messages, warnings], [[], []], file);
    }
    for (const file of ['mysqlcluster-after-reconcile.yaml', 'mysqlbackup-after-reconcile.yaml']) {
      const body = parse(withTimes(readFileSync(dir + file, 'utf8')));
      const { messages, warnings } = admit(crds, body, { keepStatus: true });
      assert.deepEqual([messages, warnings], [[], []], file);
    }
  });

  it('accepts the kube-apiserver fixture cluster body, pruning only its deliberate unknown fields', () => {
    const body = JSON.parse(readFileSync(`${REPO}test/fixtures/kube-apiserver/cr-create.req.json`, 'utf8'));
    const { messages, warnings } = admit(crds, body);
    assert.deepEqual(messages, []);
    assert.deepEqual(warnings, ['spec.podSpec.unknownPodField', 'spec.unknownField']);
  });

  it('accepts a MysqlDatabase and a MysqlUser with only their required fields', () => {
    const ref = { name: 'my-db' };
    assert.deepEqual(
      admit(crds, { apiVersion: GROUP_VERSION, kind: 'MysqlDatabase', metadata: { name: 'd' }, spec: { clusterRef: ref, database: 'db' } })
        .messages,
      [],
    );
    assert.deepEqual(
      admit(crds, {
        apiVersion: GROUP_VERSION,
        kind: 'MysqlUser',
        metadata: { name: 'u' },
        spec: { clusterRef: ref, user: 'u', password: { name: 's', key: 'k' }, allowedHosts: ['%'] },
      }).messages,
      [],
    );
  });
});

describe('bad manifests are rejected with a message naming the field', () => {
  it('a wrong type', () => {
    const { messages } = admit(crds, cluster({ secretName: 's', replicas: 'three' }));
    assert.equal(messages[0], 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
  });

  it('an unknown enum value', () => {
    const { messages } = admit(crds, cluster({ secretName: 's', backupRemoteDeletePolicy: 'keep' }));
    assert.deepEqual(messages, ['spec.backupRemoteDeletePolicy: Unsupported value: "keep": supported values: "retain", "delete"']);
  });

  it('a missing secretName', () => {
    const { messages } = admit(crds, cluster({ replicas: 1 }));
    assert.equal(messages[0], 'spec.secretName: Required value');
  });

  it('a missing spec', () => {
    const { messages } = admit(crds, { apiVersion: GROUP_VERSION, kind: 'MysqlCluster', metadata: { name: 'x' } });
    assert.equal(messages[0], 'spec: Required value');
  });

  it('a backupSchedule without a backupURL (CEL rule); an empty schedule means off and passes', () => {
    const { messages } = admit(crds, cluster({ secretName: 's', backupSchedule: '@daily' }));
    assert.deepEqual(messages, ['spec: Invalid value: "object": backupURL is required when backupSchedule is set']);
    assert.deepEqual(admit(crds, cluster({ secretName: 's', backupSchedule: '' })).messages, []);
  });

  it('negative replicas, queryLimits without maxQueryTime, an unknown killMode', () => {
    const { messages } = admit(crds, cluster({ secretName: 's', replicas: -1, queryLimits: { kill: 'oldest', killMode: 'session' } }));
    assert.deepEqual(messages, [
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      'spec.queryLimits.killMode: Unsupported value: "session": supported values: "connection", "query"',
      'spec.queryLimits.maxQueryTime: Required value',
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });

  it('a MysqlUser with no allowed host, or an unknown resource limit', () => {
    const user = (spec: Record<string, unknown>) => ({
      apiVersion: GROUP_VERSION,
      kind: 'MysqlUser',
      metadata: { name: 'u' },
      spec: { clusterRef: { name: 'c' }, user: 'u', password: { name: 's', key: 'k' }, allowedHosts: ['%'], ...spec },
    });
    assert.deepEqual(admit(crds, user({ allowedHosts: [] })).messages, [
      'spec.allowedHosts: Invalid value: 0: spec.allowedHosts in body should have at least 1 items',
    ]);
    assert.deepEqual(admit(crds, user({ resourceLimits: { MAX_USER_CONNECTIONS: 5, MAX_THINGS: 1 } })).messages, [
      'spec.resourceLimits: Invalid value: "object": keys must be among MAX_USER_CONNECTIONS, MAX_QUERIES_PER_HOUR, MAX_UPDATES_PER_HOUR, MAX_CONNECTIONS_PER_HOUR',
    ]);
  });

  it('a MysqlBackup without clusterName, a MysqlDatabase without database', () => {
    const backup = admit(crds, { apiVersion: GROUP_VERSION, kind: 'MysqlBackup', metadata: { name: 'b' }, spec: {} });
    assert.deepEqual(backup.messages, ['spec.clusterName: Required value']);
    const db = admit(crds, {
      apiVersion: GROUP_VERSION,
      kind: 'MysqlDatabase',
      metadata: { name: 'd' },
      spec: { clusterRef: { name: 'c' } },
    });
    assert.deepEqual(db.messages, ['spec.database: Required value']);
  });
});
