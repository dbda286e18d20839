// The anchor's objects for its sample cluster, rendered by us: my.cnf and the pre-stop script byte
// for byte, every other object field for field (the fixtures leave out API-server defaults).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSecretData } from '../../../src/runtime/kube/secret-data.ts';
import { renderOperatedSecret } from '../../../src/controllers/cluster/render-operated-secret.ts';
import { anchorCluster, anchorObject, anchorText, render, wire } from './builders.ts';

const desired = render(anchorCluster());

test('my.cnf of the anchor sample cluster is byte-identical to the anchor', () => {
  assert.equal(desired.configMap.data?.['my.cnf'], anchorText('configmap-data/my.cnf'));
});

test('pre-shutdown-ha.sh is byte-identical to the anchor, tabs included', () => {
  assert.equal(desired.configMap.data?.['pre-shutdown-ha.sh'], anchorText('configmap-data/pre-shutdown-ha.sh'));
});

test('the ConfigMap has the anchor name, labels, owner and exactly its two keys', () => {
  const anchor = anchorObject('configmap.yaml');
  assert.deepEqual(wire(desired.configMap), anchor);
});

test('the StatefulSet equals the anchor one field for field', () => {
  assert.deepEqual(wire(desired.statefulSet), anchorObject('statefulset.yaml'));
});

test('the four Services equal the anchor ones', () => {
  assert.deepEqual(wire(desired.headlessService), anchorObject('service-mysql.yaml'));
  const [master, healthy, replicas] = desired.services.map(wire);
  assert.deepEqual(master, anchorObject('service-master.yaml'));
  assert.deepEqual(healthy, anchorObject('service-healthy-nodes.yaml'));
  assert.deepEqual(replicas, anchorObject('service-healthy-replicas.yaml'));
});

test('the PodDisruptionBudget equals the anchor one', () => {
  assert.deepEqual(wire(desired.podDisruptionBudget), anchorObject('pdb.yaml'));
});

test('an existing anchor operated Secret keeps every value', () => {
  const anchor = anchorObject<{ data: Record<string, string> }>('secret-operated.yaml');
  const kept = render(anchorCluster(), undefined, undefined, decodeSecretData(anchor.data));
  assert.deepEqual(renderOperatedSecret(kept.ref, kept.secretData).data, anchor.data);
  assert.deepEqual(wire(renderOperatedSecret(kept.ref, kept.secretData)), anchorObject('secret-operated.yaml'));
});
