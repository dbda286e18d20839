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

test('pod addresses start after the gateway and never repeat; link names fit IFNAMSIZ', () => {
  const plan = slotPlan(255);
  assert.equal(plan.gateway, '10.213.255.1');
  assert.equal(nextPodIp(plan, new Set()), '10.213.255.2');
  assert.equal(nextPodIp(plan, new Set(['10.213.255.2'])), '10.213.255.3');
  const all = new Set(Array.from({ length: 253 }, (_, i) => `10.213.255.${i + 2}`));
  assert.equal(nextPodIp(plan, all), undefined);
  assert.ok(`${vethName(plan, '10.213.255.254')}p`.length <= 15);
});

test('CIDR overlap', () => {
  assert.ok(cidrsOverlap('10.0.0.0/8', '10.213.1.0/24'));
  assert.ok(!cidrsOverlap('10.213.1.0/24', '10.213.2.0/24'));
  assert.ok(cidrsOverlap('10.213.1.7/32', '10.213.1.0/24'));
});
