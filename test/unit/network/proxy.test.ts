import assert from 'node:assert/strict';
import { test } from 'node:test';
import { desiredListeners, listenerEndpoints } from '../../../sandbox/network/proxy.ts';
import { pod, service } from './builders.ts';

const master = { app: 'db', role: 'master' };
const mysqlPort = { name: 'mysql', containerPort: 3306 };

test('every TCP port of every Service with a ClusterIP gets a listener; headless, UDP and ExternalName none', () => {
  const listeners = desiredListeners([
    service('m', {
      clusterIP: '10.1.0.2',
      ports: [
        { name: 'mysql', port: 3306 },
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'x', port: 9104, protocol: 'TCP' },
      ],
    }),
    service('h', {}),
    service('e', { type: 'ExternalName', clusterIP: '' }),
  ]);
  assert.deepEqual(
    listeners.map((l) => `${l.ip}:${l.port} ${l.service}/${l.portName}`),
    ['10.1.0.2:3306 m/mysql', '10.1.0.2:9104 m/x'],
  );
});

test('a listener forwards to the ready pods its selector matches, at the target port by number or by container port name', () => {
  const pods = [
    pod('db-0', { ip: '10.2.0.3', labels: master, ports: [{ name: 'mysql', containerPort: 3307 }] }),
    pod('db-1', { ip: '10.2.0.2', labels: { app: 'db', role: 'replica' }, ports: [mysqlPort] }),
    pod('db-2', { ip: '10.2.0.4', labels: master, ready: false, ports: [mysqlPort] }),
    pod('db-3', { ip: '10.2.0.5', labels: master, ns: 'other', ports: [mysqlPort] }),
    pod('db-4', { labels: master, ports: [mysqlPort] }),
  ];
  const byName = service('m', { clusterIP: '10.1.0.2', selector: master, ports: [{ name: 'mysql', port: 3306, targetPort: 'mysql' }] });
  const [l] = desiredListeners([byName]);
  assert.deepEqual(listenerEndpoints(l!, byName, pods), [{ ip: '10.2.0.3', port: 3307 }]);
  const byNumber = service('m', {
    clusterIP: '10.1.0.2',
    selector: { app: 'db' },
    ports: [{ name: 'mysql', port: 3306, targetPort: 13306 }],
  });
  assert.deepEqual(listenerEndpoints(l!, byNumber, pods), [
    { ip: '10.2.0.2', port: 13306 },
    { ip: '10.2.0.3', port: 13306 },
  ]);
});

test('a pod without the named container port, or a Service gone or without a selector, gives no endpoint', () => {
  const svc = service('m', { clusterIP: '10.1.0.2', selector: master, ports: [{ name: 'mysql', port: 3306, targetPort: 'mysql' }] });
  const [l] = desiredListeners([svc]);
  assert.deepEqual(listenerEndpoints(l!, svc, [pod('db-0', { ip: '10.2.0.3', labels: master })]), []);
  assert.deepEqual(listenerEndpoints(l!, undefined, [pod('db-0', { ip: '10.2.0.3', labels: master, ports: [mysqlPort] })]), []);
  const noSelector = service('m', { clusterIP: '10.1.0.2', ports: [{ name: 'mysql', port: 3306 }] });
  assert.deepEqual(listenerEndpoints(l!, noSelector, [pod('db-0', { ip: '10.2.0.3', labels: master, ports: [mysqlPort] })]), []);
});
