// The NetworkPolicy compiler of the sandbox network (sandbox/network/policy.ts): which pods a
// policy isolates, what its rules let in (pod and namespace selectors, ports by number, range and
// name, ipBlocks, the proxy's aliases), and the nftables text a pod's namespace gets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { policyPod } from '../../../sandbox/network/policy-enforcer.ts';
import { podIngress, renderNftScript, type PolicyView } from '../../../sandbox/network/policy.ts';
import { namespaceLabels, networkPolicy, NS, pod } from './builders.ts';

const db = pod('db-0', { ip: '10.213.5.10', labels: { app: 'db' }, ports: [{ name: 'mysql', containerPort: 3306 }] });
const app = pod('app-0', { ip: '10.213.5.11', labels: { app: 'web' } });
const other = pod('other-0', { ns: 'other', ip: '10.213.5.12', labels: { app: 'web' } });
const ops = pod('ops-0', { ns: 'ops', ip: '10.213.5.13', labels: { role: 'operator' } });
const pods = [db, app, other, ops];

function view(policies: PolicyView['policies'], o: { aliases?: boolean } = {}): PolicyView {
  return {
    pods: pods.map((p) => policyPod(p, undefined)),
    namespaces: namespaceLabels([NS], ['other'], ['ops', { team: 'platform' }]),
    policies,
    aliases: (ip) => (o.aliases ? [ip.replace('10.213.', '10.215.')] : []),
  };
}

const dbPod = policyPod(db, undefined);

test('a pod no policy selects is not isolated; its script only removes the table', () => {
  const ing = podIngress(dbPod, view([networkPolicy('p', { podSelector: { matchLabels: { app: 'other' } }, ingress: [] })]));
  assert.deepEqual(ing, { isolated: false, accept: [] });
  assert.equal(renderNftScript(ing, '10.213.5.1'), 'table ip sandbox_netpol\ndelete table ip sandbox_netpol\n');
});

test('a policy of another namespace, or for Egress only, does not isolate the pod', () => {
  assert.equal(podIngress(dbPod, view([networkPolicy('p', { ns: 'other', ingress: [] })])).isolated, false);
  assert.equal(podIngress(dbPod, view([networkPolicy('p', { policyTypes: ['Egress'] })])).isolated, false);
  // No policyTypes: Ingress always, even with egress rules.
  assert.equal(podIngress(dbPod, view([networkPolicy('p', { egress: [{}] })])).isolated, true);
});

test('an empty ingress list denies everything but the node, loopback and replies', () => {
  const ing = podIngress(dbPod, view([networkPolicy('deny', { ingress: [] })]));
  assert.deepEqual(ing, { isolated: true, accept: [] });
  const script = renderNftScript(ing, '10.213.5.1');
  assert.match(
    script,
    /ct state established,related accept\n\s+iif "lo" accept\n\s+ip saddr 10\.213\.5\.1 accept\n\s+reject with icmp admin-prohibited\n/,
  );
});

test('a pod selector peer means pods of the policy namespace; a namespace selector, pods of the namespaces it matches', () => {
  const ing = podIngress(
    dbPod,
    view([
      networkPolicy('p', {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [
          { from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 3306 }] },
          {
            from: [{ namespaceSelector: { matchLabels: { team: 'platform' } }, podSelector: { matchLabels: { role: 'operator' } } }],
            ports: [{ port: 'mysql' }, { port: 8080 }],
          },
          {
            from: [
              { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['other'] }] } },
            ],
          },
        ],
      }),
    ]),
  );
  assert.deepEqual(ing.accept, [
    { sources: { kind: 'addresses', addresses: ['10.213.5.11'] }, ports: [{ protocol: 'tcp', port: 3306 }] },
    {
      sources: { kind: 'addresses', addresses: ['10.213.5.13'] },
      ports: [
        { protocol: 'tcp', port: 3306 },
        { protocol: 'tcp', port: 8080 },
      ],
    },
    { sources: { kind: 'addresses', addresses: ['10.213.5.12'] }, ports: 'any' },
  ]);
  const script = renderNftScript(ing, '10.213.5.1');
  assert.match(script, /ip saddr \{ 10\.213\.5\.11 \} tcp dport \{ 3306 \} accept/);
  assert.match(script, /ip saddr \{ 10\.213\.5\.13 \} tcp dport \{ 3306, 8080 \} accept/);
  assert.match(script, /ip saddr \{ 10\.213\.5\.12 \} accept/);
});

test('policies add up; a rule without from or ports lets everyone in on its ports', () => {
  const ing = podIngress(
    dbPod,
    view([
      networkPolicy('a', { ingress: [{ ports: [{ port: 9125 }] }] }),
      networkPolicy('b', {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ from: [], ports: [{ port: 3306, protocol: 'UDP' }] }],
      }),
    ]),
  );
  assert.deepEqual(ing.accept, [
    { sources: { kind: 'any' }, ports: [{ protocol: 'tcp', port: 9125 }] },
    { sources: { kind: 'any' }, ports: [{ protocol: 'udp', port: 3306 }] },
  ]);
  const script = renderNftScript(ing, '10.213.5.1');
  assert.match(script, /\n\s+tcp dport \{ 9125 \} accept\n\s+udp dport \{ 3306 \} accept\n/);
});

test('a named port the pod lacks, or a peer matching no pod, allows nothing', () => {
  const ing = podIngress(
    dbPod,
    view([
      networkPolicy('p', {
        ingress: [
          { from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 'http' }] },
          { from: [{ podSelector: { matchLabels: { app: 'nobody' } } }] },
        ],
      }),
    ]),
  );
  assert.deepEqual(ing, { isolated: true, accept: [] });
});

test('port ranges, ipBlocks with exceptions, and the proxy aliases of the peers', () => {
  const ing = podIngress(
    dbPod,
    view(
      [
        networkPolicy('p', {
          ingress: [
            { from: [{ ipBlock: { cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] } }], ports: [{ port: 3000, endPort: 3010 }] },
            { from: [{ podSelector: { matchLabels: { app: 'web' } } }] },
          ],
        }),
      ],
      { aliases: true },
    ),
  );
  assert.deepEqual(ing.accept, [
    {
      sources: { kind: 'block', cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] },
      ports: [{ protocol: 'tcp', port: 3000, endPort: 3010 }],
    },
    { sources: { kind: 'addresses', addresses: ['10.213.5.11', '10.215.5.11'] }, ports: 'any' },
  ]);
  const script = renderNftScript(ing, '10.213.5.1');
  assert.match(script, /ip saddr 192\.0\.2\.0\/24 ip saddr != \{ 192\.0\.2\.128\/25 \} tcp dport \{ 3000-3010 \} accept/);
  assert.match(script, /ip saddr \{ 10\.213\.5\.11, 10\.215\.5\.11 \} accept/);
});

test('a pod without an address is no source', () => {
  const v = view([networkPolicy('p', { ingress: [{ from: [{ podSelector: {} }] }] })]);
  const noIp = { ...v, pods: [...v.pods, policyPod(pod('new-0', { labels: { app: 'web' } }), undefined)] };
  assert.deepEqual(podIngress(dbPod, noIp).accept, [
    { sources: { kind: 'addresses', addresses: ['10.213.5.10', '10.213.5.11'] }, ports: 'any' },
  ]);
});
