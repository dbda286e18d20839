import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dnsRecords, renderHostsFile, resolveName, withApiServerNames } from '../../../sandbox/network/hosts.ts';
import { NS, pod, service } from './builders.ts';

const db = { app: 'db' };

test('a ClusterIP Service answers at its ClusterIP under every name the cluster DNS knows it by', () => {
  const records = dnsRecords([service('web', { clusterIP: '10.1.0.5', selector: { app: 'web' } })], []);
  for (const name of [`web.${NS}`, `web.${NS}.svc`, `web.${NS}.svc.cluster.local`]) assert.equal(resolveName(records, name), '10.1.0.5');
  assert.equal(resolveName(records, 'web'), undefined, 'the bare name needs a namespace to search in');
});

test('a headless Service names its ready pods, and each pod by hostname under it (operator short form too)', () => {
  const pods = [
    pod('db-0', { ip: '10.2.0.2', labels: db, subdomain: 'mysql' }),
    pod('db-1', { ip: '10.2.0.3', labels: db, subdomain: 'mysql', ready: false }),
  ];
  const records = dnsRecords([service('mysql', { selector: db })], pods);
  assert.equal(resolveName(records, `db-0.mysql.${NS}`), '10.2.0.2');
  assert.equal(resolveName(records, `db-0.mysql.${NS}.svc.cluster.local`), '10.2.0.2');
  assert.equal(resolveName(records, `db-1.mysql.${NS}`), undefined, 'not ready');
  assert.equal(resolveName(records, `mysql.${NS}`), '10.2.0.2');
});

test('publishNotReadyAddresses names pods that are not ready, but never terminating ones', () => {
  const pods = [
    pod('db-0', { ip: '10.2.0.2', labels: db, subdomain: 'mysql', ready: false }),
    pod('db-1', { ip: '10.2.0.3', labels: db, subdomain: 'mysql', terminating: true }),
  ];
  const records = dnsRecords([service('mysql', { selector: db, publishNotReady: true })], pods);
  assert.equal(resolveName(records, `db-0.mysql.${NS}`), '10.2.0.2');
  assert.equal(resolveName(records, `db-1.mysql.${NS}`), undefined);
});

test('a pod is named under a headless Service only when its subdomain is that Service', () => {
  const records = dnsRecords([service('other', { selector: db })], [pod('db-0', { ip: '10.2.0.2', labels: db, subdomain: 'mysql' })]);
  assert.equal(resolveName(records, `db-0.other.${NS}`), undefined);
  assert.equal(resolveName(records, `other.${NS}`), '10.2.0.2');
});

test("a pod's hosts file has the kubelet's lines, and bare names only of its own namespace", () => {
  const records = dnsRecords(
    [service('web', { clusterIP: '10.1.0.5', selector: {} }), service('web', { ns: 'other', clusterIP: '10.1.0.6', selector: {} })],
    [],
  );
  const text = renderHostsFile({ ip: '10.2.0.9', namespace: NS, hostname: 'db-0', subdomain: 'mysql' }, records);
  assert.match(text, /^127\.0\.0\.1\tlocalhost$/m);
  assert.match(text, new RegExp(`^10\\.2\\.0\\.9\\tdb-0\\.mysql\\.${NS}\\.svc\\.cluster\\.local\\tdb-0$`, 'm'));
  assert.match(text, /^10\.1\.0\.5\tweb$/m);
  assert.doesNotMatch(text, /^10\.1\.0\.6\tweb$/m);
  assert.match(text, /^10\.1\.0\.6\tweb\.other\.svc\.cluster\.local\tweb\.other\.svc\tweb\.other$/m);
  assert.match(renderHostsFile({ ip: '10.2.0.9', namespace: NS, hostname: 'solo' }, []), /^10\.2\.0\.9\tsolo$/m);
});

test('ExternalName Services and Services without an address are not named', () => {
  assert.deepEqual(dnsRecords([service('ext', { type: 'ExternalName', clusterIP: '' }), service('none', { clusterIP: '' })], []), []);
});

test("attached to a cluster: the kubernetes.default.svc names go to the relay, not the kubernetes Service's ClusterIP; its other names stay", () => {
  const kubernetes = service('kubernetes', {
    ns: 'default',
    clusterIP: '10.96.0.1',
    ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
  });
  const web = service('web', { clusterIP: '10.1.0.5', selector: { app: 'web' } });
  const names = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const records = withApiServerNames(dnsRecords([kubernetes, web], []), '10.213.7.1', names);
  for (const n of names.slice(1)) assert.equal(resolveName(records, n), '10.213.7.1', n);
  assert.equal(resolveName(records, `web.${NS}`), '10.1.0.5');
  const file = renderHostsFile({ ip: '10.213.7.5', namespace: 'default', hostname: 'p' }, records);
  assert.match(file, /^10\.213\.7\.1\tkubernetes\tkubernetes\.default\t/m);
  assert.doesNotMatch(file, /10\.96\.0\.1/, 'no line gives a kubernetes name the ClusterIP');
  assert.deepEqual(withApiServerNames(records, '10.213.7.1', []), records, 'no names: unchanged');
});
