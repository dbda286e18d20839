// The generated CRDs and types: fresh, structural, and carrying the anchor's API surface.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { buildCrd } from '../../../src/api/crd.ts';
import { generatedFiles, renderCrdYaml } from '../../../src/api/generate.ts';
import { clusterWithDefaults } from '../../../src/api/index.ts';
import { KINDS } from '../../../src/api/schemas/index.ts';
import { checkCrd } from '../../../sandbox/apiserver/structural/index.ts';
import { admit, loadCrds, REPO } from './support.ts';
import type { JsonObject } from '../../support/json.ts';

const crds = loadCrds();

function specProps(kind: string): JsonObject {
  return crds.get(kind)?.crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
}

describe('generated files', () => {
  it('crds/ and src/api/types.generated.ts match the schemas (run `npm run gen` when this fails)', () => {
    for (const [path, content] of generatedFiles()) {
      let onDisk = '';
      try {
        onDisk = readFileSync(`${REPO}${path}`, 'utf8');
      } catch {
        assert.fail(`${path} is missing: run npm run gen`);
      }
      assert.ok(onDisk === content, `${path} is stale: run npm run gen`);
    }
  });

  it('the YAML reads back as exactly the CRD objects (no YAML type surprises like 5.7 → number)', () => {
    for (const def of KINDS) assert.deepEqual(parse(renderCrdYaml(def)), buildCrd(def), def.kind);
  });

  it('generation is deterministic', () => {
    assert.deepEqual([...generatedFiles()], [...generatedFiles()]);
  });

  for (const [kind, { crd }] of crds) {
    it(`${kind}: is a valid apiextensions.k8s.io/v1 CRD with a structural schema`, () => {
      assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
      assert.equal(crd.kind, 'CustomResourceDefinition');
      assert.equal(crd.spec.scope, 'Namespaced');
      assert.equal(crd.spec.group, 'mysql.presslabs.org');
      assert.equal(crd.metadata.name, `${crd.spec.names.plural}.mysql.presslabs.org`);
      assert.deepEqual(checkCrd(crd), []);
    });
  }
});

describe('API surface of docs/compatibility.md', () => {
  it('MysqlCluster: names, short name, status and scale subresources, printer columns', () => {
    const spec = crds.get('MysqlCluster')?.crd.spec;
    assert.deepEqual(spec.names, {
      kind: 'MysqlCluster',
      listKind: 'MysqlClusterList',
      plural: 'mysqlclusters',
      singular: 'mysqlcluster',
      shortNames: ['mysql'],
    });
    const v = spec.versions[0];
    assert.equal(v.name, 'v1alpha1');
    assert.deepEqual(v.subresources, {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.readyNodes' },
    });
    assert.deepEqual(
      v.additionalPrinterColumns.map((c: { name: string }) => c.name),
      ['Ready', 'Replicas', 'Age'],
    );
    assert.equal(v.additionalPrinterColumns[0].jsonPath, '.status.conditions[?(@.type == "Ready")].status');
  });

  it('MysqlCluster: every spec field of the anchor, secretName required with 1..63 chars', () => {
    const spec = specProps('MysqlCluster');
    const anchorFields = [
      'replicas',
      'secretName',
      'mysqlVersion',
      'image',
      'sidecarImage',
      'initBucketURL',
      'initBucketURI',
      'initBucketSecretName',
      'minAvailable',
      'backupSchedule',
      'backupURL',
      'backupSecretName',
      'backupRemoteDeletePolicy',
      'backupScheduleJobsHistoryLimit',
      'mysqlConf',
      'podSpec',
      'volumeSpec',
      'tmpfsSize',
      'maxSlaveLatency',
      'queryLimits',
      'readOnly',
      'serverIDOffset',
      'backupCompressCommand',
      'backupDecompressCommand',
      'metricsExporterExtraArgs',
      'rcloneExtraArgs',
      'xbstreamExtraArgs',
      'xtrabackupExtraArgs',
      'xtrabackupPrepareExtraArgs',
      'xtrabackupTargetDir',
      'initFileExtraSQL',
    ];
    for (const f of anchorFields) assert.ok(spec.properties[f], `spec.${f} exists`);
    assert.deepEqual(spec.required, ['secretName']);
    assert.equal(spec.properties.secretName.minLength, 1);
    assert.equal(spec.properties.secretName.maxLength, 63);
    const podSpecFields = [
      'imagePullPolicy',
      'imagePullSecrets',
      'labels',
      'annotations',
      'resources',
      'affinity',
      'mysqlLifecycle',
      'nodeSelector',
      'priorityClassName',
      'tolerations',
      'serviceAccountName',
      'backupAffinity',
      'backupNodeSelector',
      'backupPriorityClassName',
      'backupTolerations',
      'volumes',
      'volumeMounts',
      'initContainers',
      'containers',
      'metricsExporterResources',
      'mysqlOperatorSidecarResources',
      'ptHeartbeatResources',
    ];
    for (const f of podSpecFields) assert.ok(spec.properties.podSpec.properties[f], `spec.podSpec.${f} exists`);
    assert.deepEqual(Object.keys(spec.properties.volumeSpec.properties).slice(0, 4), [
      'persistentVolumeClaim',
      'hostPath',
      'emptyDir',
      'keepAfterDelete',
    ]);
    assert.deepEqual(spec.properties.queryLimits.required, ['maxQueryTime']);
    assert.equal(spec.properties.mysqlConf.additionalProperties['x-kubernetes-int-or-string'], true);
    assert.equal(spec.properties.minAvailable['x-kubernetes-int-or-string'], true);
  });

  it('MysqlCluster: the defaults of docs/compatibility.md are stored by the API server', () => {
    const { obj, errors } = admit(crds, {
      apiVersion: 'mysql.presslabs.org/v1alpha1',
      kind: 'MysqlCluster',
      metadata: { name: 'c' },
      spec: { secretName: 's', podSpec: {} },
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(obj.spec, {
      secretName: 's',
      podSpec: { resources: { requests: { cpu: '200m', memory: '1Gi' } } },
      replicas: 1,
      mysqlVersion: '5.7',
      backupRemoteDeletePolicy: 'retain',
      volumeSpec: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      maxSlaveLatency: 30,
      serverIDOffset: 100,
      xtrabackupTargetDir: '/tmp/xtrabackup_backupfiles/',
    });
  });

  it('MysqlCluster: a mysqlConf value with a line break or another control character is refused, naming the field', () => {
    const cluster = (mysqlConf: Record<string, unknown>) =>
      admit(crds, {
        apiVersion: 'mysql.presslabs.org/v1alpha1',
        kind: 'MysqlCluster',
        metadata: { name: 'c' },
        spec: { secretName: 's', mysqlConf },
      });
    for (const value of ['1\ninit-file=/tmp/x', '1\rx', 'a\u0000b']) {
      const { messages } = cluster({ max_connections: value });
      assert.equal(messages.length, 1, JSON.stringify(value));
      assert.match(messages[0]!, /^spec\.mysqlConf\.max_connections: Invalid value: .* should match/);
    }
    assert.deepEqual(cluster({ max_connections: 100, 'sql-mode': '\tSTRICT_TRANS_TABLES', 'log-error': '/var/log/x#1' }).messages, []);
  });

  it('MysqlCluster status: readyNodes, conditions, nodes, observedGeneration and (ours) restoredFrom, binlogArchive', () => {
    const status = crds.get('MysqlCluster')?.crd.spec.versions[0].schema.openAPIV3Schema.properties.status;
    assert.deepEqual(Object.keys(status.properties).sort(), [
      'binlogArchive',
      'conditions',
      'nodes',
      'observedGeneration',
      'readyNodes',
      'restoredFrom',
    ]);
    assert.deepEqual(Object.keys(status.properties.conditions.items.properties), [
      'type',
      'status',
      'lastTransitionTime',
      'reason',
      'message',
    ]);
    assert.deepEqual(Object.keys(status.properties.nodes.items.properties), ['name', 'conditions']);
  });

  it('MysqlBackup, MysqlDatabase, MysqlUser: required fields and printer columns', () => {
    assert.deepEqual(specProps('MysqlBackup').required, ['clusterName']);
    assert.deepEqual(specProps('MysqlBackup').properties.remoteDeletePolicy.enum, ['retain', 'delete']);
    assert.deepEqual(specProps('MysqlDatabase').required, ['clusterRef', 'database']);
    assert.deepEqual(specProps('MysqlUser').required, ['clusterRef', 'user', 'password', 'allowedHosts']);
    const columns = (kind: string) => crds.get(kind)?.crd.spec.versions[0].additionalPrinterColumns.map((c: { name: string }) => c.name);
    assert.deepEqual(columns('MysqlDatabase'), ['Ready', 'Cluster', 'Database', 'Age']);
    assert.deepEqual(columns('MysqlUser'), ['Ready', 'Cluster', 'UserName', 'Age']);
    const backupStatus = crds.get('MysqlBackup')?.crd.spec.versions[0].schema.openAPIV3Schema.properties.status;
    assert.ok(backupStatus.properties.completed && backupStatus.properties.conditions);
  });
});

describe('in-memory defaults', () => {
  it('give a typed cluster the same defaults the API server stores, without touching the input', () => {
    const input = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', metadata: { name: 'c' }, spec: { secretName: 's' } };
    const out = clusterWithDefaults(input);
    assert.deepEqual(out, admit(crds, input).obj);
    assert.equal(out.spec.replicas, 1);
    assert.deepEqual(input.spec, { secretName: 's' });
  });
});
