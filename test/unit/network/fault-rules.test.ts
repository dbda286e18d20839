// The iptables rules of the sandbox's link faults (sandbox/faults/index.ts, docs/sandbox-faults.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DELAY_QUEUE, faultRules } from '../../../sandbox/faults/index.ts';

test('a partition drops everything in and out of eth0, tagged with the fault', () => {
  assert.deepEqual(faultRules({ kind: 'partition' }, 't1'), [
    ['-i', 'eth0', '-m', 'comment', '--comment', 't1', '-j', 'DROP'],
    ['-o', 'eth0', '-m', 'comment', '--comment', 't1', '-j', 'DROP'],
  ]);
});

test('loss drops each packet with the probability asked, both ways; out-of-range percents are refused', () => {
  const rules = faultRules({ kind: 'loss', percent: 30 }, 't2');
  assert.equal(rules.length, 2);
  for (const r of rules) assert.deepEqual(r.slice(-8), ['-m', 'statistic', '--mode', 'random', '--probability', '0.3000', '-j', 'DROP']);
  for (const bad of [0, -1, 101, Number.NaN]) assert.throws(() => faultRules({ kind: 'loss', percent: bad }, 't'), RangeError);
});

test('a delay queues both directions to the delayer, passing packets when none listens', () => {
  const rules = faultRules({ kind: 'delay' }, 't3');
  assert.deepEqual(
    rules.map((r) => r.slice(0, 2)),
    [
      ['-i', 'eth0'],
      ['-o', 'eth0'],
    ],
  );
  for (const r of rules) assert.deepEqual(r.slice(-5), ['-j', 'NFQUEUE', '--queue-num', String(DELAY_QUEUE), '--queue-bypass']);
});

test("a delay between pods only lets the host's traffic (the gateway) pass first, then queues the pod range", () => {
  const rules = faultRules({ kind: 'delay', between: { podCIDR: '10.213.7.0/24', gateway: '10.213.7.1' } }, 't4');
  assert.deepEqual(
    rules.map((r) => [r[0], r[2], r[3], r.at(-1) === '--queue-bypass' ? 'NFQUEUE' : r.at(-1)]),
    [
      ['-i', '-s', '10.213.7.1', 'RETURN'],
      ['-o', '-d', '10.213.7.1', 'RETURN'],
      ['-i', '-s', '10.213.7.0/24', 'NFQUEUE'],
      ['-o', '-d', '10.213.7.0/24', 'NFQUEUE'],
    ],
  );
});
