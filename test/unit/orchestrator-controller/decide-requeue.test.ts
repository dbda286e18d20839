import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ORCHESTRATOR_REASONS } from '../../../src/api/constants.ts';
import type { MasterVerdict } from '../../../src/controllers/orchestrator-controller/decide-master.ts';
import { AFTER_WRITABLE_MS, ALIAS_TICK_MS, decideRequeue } from '../../../src/controllers/orchestrator-controller/decide-requeue.ts';
import { decideMaster } from '../../../src/controllers/orchestrator-controller/decide-master.ts';
import { healthy } from './builders.ts';

const noMaster: MasterVerdict = {
  kind: 'none',
  reason: ORCHESTRATOR_REASONS.noMaster,
  message: 'Orchestrator knows no master for the cluster',
};
const idle = { discovered: 0, madeWritable: 0, anyServerAnswered: true };

test('a new cluster is looked at again on Orchestrator alias tick, not at the resync period', () => {
  assert.equal(decideRequeue({ ...idle, discovered: 1 }, noMaster), ALIAS_TICK_MS, 'a server just registered');
  assert.equal(decideRequeue(idle, noMaster), ALIAS_TICK_MS, 'no master yet while a server answers');
  assert.equal(decideRequeue({ ...idle, madeWritable: 1 }, noMaster), AFTER_WRITABLE_MS, 'the master just made writable: label it next');
});

test('a cluster with its master, or none of whose servers answers, waits for the resync period and events', () => {
  assert.equal(decideRequeue(idle, decideMaster(healthy())), undefined);
  assert.equal(decideRequeue({ ...idle, anyServerAnswered: false }, noMaster), undefined);
  const disagreement: MasterVerdict = { kind: 'none', reason: ORCHESTRATOR_REASONS.masterDisagreement, message: 'x' };
  assert.equal(decideRequeue(idle, disagreement), undefined);
});
