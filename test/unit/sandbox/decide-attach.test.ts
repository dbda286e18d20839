// The decisions of a sandbox attached to an existing cluster (sandbox/decide-attach.ts): the name
// pods dial the API server by through the relay, and whose controllers run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideControllers, parseSubjectAltName, podApiAddress } from '../../../sandbox/decide-attach.ts';
import { renewAt } from '../../../sandbox/kubelet/tokens.ts';

const GATEWAY = '10.213.7.1';

test('subjectaltname text: DNS names (lower case) and IP addresses', () => {
  assert.deepEqual(parseSubjectAltName('DNS:Kubernetes, DNS:kubernetes.default.svc, IP Address:10.96.0.1, IP Address:127.0.0.1'), {
    dns: ['kubernetes', 'kubernetes.default.svc'],
    ips: ['10.96.0.1', '127.0.0.1'],
  });
  assert.deepEqual(parseSubjectAltName(undefined), { dns: [], ips: [] });
});

test('a kubeadm certificate (kubernetes.default.svc, the Service IP, the host): pods dial kubernetes.default.svc, mapped to the relay', () => {
  const kubeadm = parseSubjectAltName(
    'DNS:cp, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, IP Address:10.96.0.1, IP Address:172.18.0.2',
  );
  assert.deepEqual(podApiAddress(kubeadm, GATEWAY), {
    host: 'kubernetes.default.svc',
    hostNames: ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
  });
});

test('only the fully qualified name: pods dial that', () => {
  const cert = parseSubjectAltName('DNS:kubernetes.default.svc.cluster.local, IP Address:127.0.0.1');
  assert.equal((podApiAddress(cert, GATEWAY) as { host: string }).host, 'kubernetes.default.svc.cluster.local');
});

test("a certificate that covers the relay's address: pods dial the address, no hosts entries", () => {
  assert.deepEqual(podApiAddress({ dns: ['kubernetes.default.svc'], ips: [GATEWAY] }, GATEWAY), { host: GATEWAY, hostNames: [] });
});

test('a certificate for localhost and 127.0.0.1 only cannot be verified from a pod: the error says what it covers', () => {
  const r = podApiAddress(parseSubjectAltName('DNS:localhost, IP Address:127.0.0.1'), GATEWAY);
  assert.ok('error' in r);
  assert.match(
    r.error,
    /covers DNS:localhost, IP:127\.0\.0\.1: neither the sandbox's relay address 10\.213\.7\.1 nor kubernetes\.default\.svc/,
  );
});

test("controllers: auto takes the cluster's when its kube-controller-manager Lease is held and fresh", () => {
  const now = Date.parse('2026-11-28T07:00:00Z');
  const lease = (renewTime: string, holderIdentity = 'cp_1234') => ({ spec: { holderIdentity, renewTime, leaseDurationSeconds: 15 } });
  assert.equal(decideControllers('auto', lease('2026-11-28T06:59:58Z'), now).run, 'cluster');
  assert.match(decideControllers('auto', lease('2026-11-28T06:59:58Z'), now).reason, /cp_1234 holds its Lease/);
  assert.deepEqual(decideControllers('auto', undefined, now), {
    run: 'sandbox',
    reason: 'the cluster has no kube-controller-manager Lease in kube-system',
  });
  assert.equal(decideControllers('auto', lease('2026-11-28T06:50:00Z'), now).run, 'sandbox', 'renewed 10 minutes ago: not running');
  assert.equal(decideControllers('auto', lease('2026-11-28T06:59:58Z', ''), now).run, 'sandbox', 'no holder');
  assert.equal(decideControllers('sandbox', lease('2026-11-28T06:59:58Z'), now).run, 'sandbox', 'asked for');
  assert.equal(decideControllers('cluster', undefined, now).run, 'cluster', 'asked for');
});

test('a requested token is asked for again at 80 % of its life, as the kubelet does', () => {
  assert.equal(renewAt(1_000_000, 1_000_000 + 3600_000), 1_000_000 + 2880_000);
});
