// The test API server's protobuf request bodies: bytes the real kubectl and helm sent (captured,
// fixtures/protobuf/README.md) and bodies encoded here with protobufjs from the server's own
// descriptors, turned into the JSON a JSON client would have sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeProtobufBody, protobufType } from '../../../sandbox/apiserver/protobuf.ts';
import { ApiError } from '../../../sandbox/apiserver/status.ts';

const captured = (name: string) => readFileSync(new URL(`fixtures/protobuf/${name}.pb`, import.meta.url));

/** A body as client-go's protobuf serializer writes it: the magic, then runtime.Unknown around the message. */
function wrap(apiVersion: string, kind: string, raw: Uint8Array, contentEncoding = ''): Buffer {
  const unknown = protobufType('Unknown');
  const body = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding, contentType: '' })).finish();
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), body]);
}

function envelope(apiVersion: string, kind: string, message: Record<string, unknown>): Buffer {
  const type = protobufType(kind);
  return wrap(apiVersion, kind, type.encode(type.fromObject(message)).finish());
}

test('captured kubectl and helm bodies decode to what their JSON form says', () => {
  assert.deepEqual(decodeProtobufBody(captured('kubectl-create-namespace'), 'Namespace'), {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name: 'cap' },
    spec: {},
    status: {},
  });
  assert.deepEqual(decodeProtobufBody(captured('kubectl-create-secret'), 'Secret'), {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: { name: 's', namespace: 'cap' },
    data: { empty: '', password: Buffer.from('s3cr3t').toString('base64') },
  });
  assert.deepEqual(decodeProtobufBody(captured('kubectl-create-configmap'), 'ConfigMap'), {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'c', namespace: 'cap' },
    data: { k: 'v' },
  });
  assert.deepEqual(decodeProtobufBody(captured('kubectl-create-service'), 'Service'), {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name: 'svc', namespace: 'cap', labels: { app: 'svc' } },
    spec: { ports: [{ name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http' }], selector: { app: 'svc' }, type: 'ClusterIP' },
    status: { loadBalancer: {} },
  });
  assert.deepEqual(decodeProtobufBody(captured('helm-delete-options'), 'DeleteOptions'), { kind: 'DeleteOptions', apiVersion: 'v1' });
});

test('object metadata: times, int64, owner references, managed fields, and pointer fields kept when false or zero', () => {
  const seconds = Date.parse('2026-11-24T05:16:09Z') / 1000;
  const body = envelope('v1', 'Secret', {
    metadata: {
      name: 'sh.helm.release.v1.mo.v1',
      generateName: '',
      namespace: 'ns',
      uid: 'u-1',
      resourceVersion: '42',
      generation: 7,
      creationTimestamp: { seconds, nanos: 0 },
      deletionTimestamp: {},
      deletionGracePeriodSeconds: 0,
      labels: { owner: 'helm' },
      annotations: { note: '' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u-0', controller: true, blockOwnerDeletion: false }],
      finalizers: ['example.com/keep'],
      managedFields: [
        {
          manager: 'helm',
          operation: 'Update',
          apiVersion: 'v1',
          time: { seconds },
          fieldsType: 'FieldsV1',
          fieldsV1: { Raw: Buffer.from('{"f:data":{".":{},"f:release":{}}}') },
          subresource: '',
        },
      ],
    },
    data: { bin: Buffer.from([0, 255, 1]), none: Buffer.alloc(0) },
    type: 'helm.sh/release.v1',
    immutable: false,
  });
  assert.deepEqual(decodeProtobufBody(body, 'Secret'), {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: {
      name: 'sh.helm.release.v1.mo.v1',
      namespace: 'ns',
      uid: 'u-1',
      resourceVersion: '42',
      generation: 7,
      creationTimestamp: '2026-11-24T05:16:09Z',
      deletionGracePeriodSeconds: 0,
      labels: { owner: 'helm' },
      annotations: { note: '' },
      ownerReferences: [{ kind: 'ConfigMap', name: 'o', uid: 'u-0', apiVersion: 'v1', controller: true, blockOwnerDeletion: false }],
      finalizers: ['example.com/keep'],
      managedFields: [
        {
          manager: 'helm',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-11-24T05:16:09Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { '.': {}, 'f:release': {} } },
        },
      ],
    },
    data: { bin: 'AP8B', none: '' },
    type: 'helm.sh/release.v1',
    immutable: false,
  });
});

test('Service: an int target port, session affinity, and Go pointer fields', () => {
  const body = envelope('v1', 'Service', {
    metadata: { name: 's' },
    spec: {
      ports: [
        { name: 'mysql', protocol: 'TCP', port: 3306, targetPort: { type: 0, intVal: 3306 }, nodePort: 0 },
        { port: 8080, targetPort: { type: 0, intVal: 0 } },
      ],
      clusterIP: 'None',
      type: 'ClusterIP',
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
      publishNotReadyAddresses: true,
      allocateLoadBalancerNodePorts: false,
      ipFamilies: [],
    },
  });
  assert.deepEqual(decodeProtobufBody(body, 'Service').spec, {
    ports: [{ name: 'mysql', protocol: 'TCP', port: 3306, targetPort: 3306 }, { port: 8080 }],
    clusterIP: 'None',
    type: 'ClusterIP',
    sessionAffinity: 'ClientIP',
    publishNotReadyAddresses: true,
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
    allocateLoadBalancerNodePorts: false,
  });
});

test('DeleteOptions: preconditions, a zero grace period, the propagation policy and dry run', () => {
  const body = envelope('meta.k8s.io/v1', 'DeleteOptions', {
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u-1', resourceVersion: '9' },
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
  });
  assert.deepEqual(decodeProtobufBody(body, 'DeleteOptions'), {
    kind: 'DeleteOptions',
    apiVersion: 'meta.k8s.io/v1',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u-1', resourceVersion: '9' },
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
  });
});

test('refusals: a kind without a message is a 415 naming it; no magic or an encoding is a 400', () => {
  const refused = (body: Buffer, expected: string) => {
    try {
      decodeProtobufBody(body, expected);
    } catch (e) {
      assert.ok(e instanceof ApiError);
      return { code: e.code, reason: e.body.reason, message: String(e.body.message) };
    }
    assert.fail('decoded');
  };
  assert.deepEqual(refused(wrap('apps/v1', 'Deployment', new Uint8Array([0x0a, 0x03, 0x0a, 0x01, 0x64])), 'Deployment'), {
    code: 415,
    reason: 'UnsupportedMediaType',
    message: 'the test API server cannot decode protobuf bodies of kind "Deployment" (apiVersion "apps/v1"); send it as application/json',
  });
  const plain = refused(Buffer.from('{"kind":"Secret"}'), 'Secret');
  assert.equal(plain.code, 400);
  assert.match(plain.message, /^the object provided is unrecognized \(must be of type Secret\): provided object is not protobuf/);
  const gzipped = refused(wrap('v1', 'Secret', new Uint8Array(), 'gzip'), 'Secret');
  assert.equal(gzipped.code, 400);
  assert.match(gzipped.message, /unsupported content encoding "gzip"/);
});
