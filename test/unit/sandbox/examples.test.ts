// sandbox/examples.ts forSandbox: attached to a cluster whose own scheduler runs, the example
// clusters' pods and backup Jobs are steered to the sandbox's node; otherwise left alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forSandbox, readExample } from '../../../sandbox/examples.ts';
import { REPO } from '../../../sandbox/index.ts';

const S3 = {
  AWS_ACCESS_KEY_ID: 'k',
  AWS_SECRET_ACCESS_KEY: 's',
  AWS_REGION: 'r',
  S3_ENDPOINT: 'http://10.213.0.1:1',
  S3_PROVIDER: 'Other',
};

test('with a nodeSelector, every MysqlCluster gets it in podSpec and backupNodeSelector, and the change is said', () => {
  const { docs, changes } = forSandbox(readExample(REPO, 'mysqlcluster.yaml'), S3, {
    nodeSelector: { 'kubernetes.io/hostname': 'sandbox' },
  });
  const cluster = docs.find((d) => d.kind === 'MysqlCluster')!;
  assert.deepEqual(cluster.spec.podSpec.nodeSelector, { 'kubernetes.io/hostname': 'sandbox' });
  assert.deepEqual(cluster.spec.backupNodeSelector, { 'kubernetes.io/hostname': 'sandbox' });
  assert.ok(
    changes.some((c) => /podSpec\.nodeSelector and backupNodeSelector kubernetes\.io\/hostname=sandbox/.test(c)),
    changes.join('\n'),
  );
});

test('without one, the clusters keep their scheduling as written', () => {
  const { docs } = forSandbox(readExample(REPO, 'mysqlcluster-mariadb.yaml'), S3);
  const cluster = docs.find((d) => d.kind === 'MysqlCluster')!;
  assert.equal(cluster.spec.podSpec?.nodeSelector, undefined);
  assert.equal(cluster.spec.backupNodeSelector, undefined);
});
