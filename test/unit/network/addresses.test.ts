import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cidrsOverlap, freeSlot, nextPodIp, slotPlan, vethName } from '../../../sandbox/network/addresses.ts';

test('a slot is skipped when its bridge exists or its ranges meet a range the machine uses', () => {
  assert.equal(freeSlot(7, { links: new Set(), cidrs: ['192.0.2.0/24'] })?.bridge, 'ksbx7');
  assert.equal(freeSlot(7, { links: new Set(['ksbx7']), cidrs: [] })?.slot, 8);
  assert.equal(freeSlot(7, { links: new Set(), cidrs: ['10.213.7.0/24', '10.214.8.128/25'] })?.slot, 9);
  assert.equal(freeSlot(255, { links: new Set(['ksbx255']), cidrs: [] })?.slot, 0, 'wraps around');
  assert.equal(freeSlot(0, { links: new Set(), cidrs: ['10.0.0.0/8'] }), undefined);
});

test('pod addresses start after the gateway, go round, and an address just freed is given last; link names fit IFNAMSIZ', () => {
  const plan = slotPlan(255);
  assert.equal(plan.gateway, '10.213.255.1');
  assert.equal(nextPodIp(plan, new Set()), '10.213.255.2');
  assert.equal(nextPodIp(plan, new Set(['10.213.255.2'])), '10.213.255.3');
  assert.equal(nextPodIp(plan, new Set(), '10.213.255.7'), '10.213.255.8', 'not .2, though free');
  assert.equal(nextPodIp(plan, new Set(['10.213.255.2']), '10.213.255.254'), '10.213.255.3', 'wraps past the gateway');
  const all = new Set(Array.from({ length: 253 }, (_, i) => `10.213.255.${i + 2}`));
  assert.equal(nextPodIp(plan, all), undefined);
  assert.ok(`${vethName(plan, '10.213.255.254')}p`.length <= 15);
});

test('CIDR overlap', () => {
  assert.ok(cidrsOverlap('10.0.0.0/8', '10.213.1.0/24'));
  assert.ok(!cidrsOverlap('10.213.1.0/24', '10.213.2.0/24'));
  assert.ok(cidrsOverlap('10.213.1.7/32', '10.213.1.0/24'));
});

test('the proxy speaks for a pod from its alias, the same last octet in the alias range; for anything else, from the node', async () => {
  const { proxyAlias } = await import('../../../sandbox/network/addresses.ts');
  const { upstreamSource } = await import('../../../sandbox/network/proxy-table.ts');
  const plan = slotPlan(7);
  assert.equal(plan.aliasCIDR, '10.215.7.0/24');
  assert.equal(proxyAlias(plan, '10.213.7.23'), '10.215.7.23');
  assert.equal(proxyAlias(plan, '10.213.8.23'), undefined);
  assert.equal(proxyAlias(plan, '10.213.70.2'), undefined);
  assert.equal(upstreamSource(plan, '::ffff:10.213.7.23', '10.213.7.9'), '10.215.7.23');
  assert.equal(upstreamSource(plan, '10.213.7.1', '10.213.7.9'), undefined, 'the gateway (the node) stays the node');
  assert.equal(upstreamSource(plan, '10.214.7.5', '10.213.7.9'), undefined, 'a client on the host (a ClusterIP as its source)');
  assert.equal(upstreamSource(plan, '10.213.7.23', '192.0.2.10'), undefined, 'an endpoint outside the pods (the API server relay)');
  assert.equal(upstreamSource(undefined, '10.213.7.23', '10.213.7.9'), undefined);
});

test('a slot whose alias range the machine uses is skipped', () => {
  assert.equal(freeSlot(3, { links: new Set(), cidrs: ['10.215.3.0/24'] })?.slot, 4);
});
