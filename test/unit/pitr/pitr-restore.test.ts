// Restore to a point in time, the plan: which segments after the backup, with which start and stop
// options, and a refusal naming the window for a target outside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planPointInTimeRestore, stopDatetime } from '../../../src/sidecar/decide-pitr-restore.ts';
import { segment } from './builders.ts';

const T0 = Date.parse('2026-01-02T00:00:00Z') / 1000;
const SEGMENTS = [
  segment({ seq: 1, endState: '0-101-10', firstGtid: '0-101-1', firstTime: T0, lastTime: T0 + 50 }),
  segment({ seq: 2, endState: '0-101-20', firstGtid: '0-101-11', firstTime: T0 + 60, lastTime: T0 + 110 }),
  segment({ seq: 3, endState: '0-102-30', firstGtid: '0-101-21', firstTime: T0 + 120, lastTime: T0 + 170, serverId: 102 }),
];
const FACTS = { segments: SEGMENTS, backupGtid: '0-101-12', backupTime: T0 + 70, completeUpTo: T0 + 180 };

test('to a time: the segments after the backup, the one holding the time stopped at it', () => {
  const plan = planPointInTimeRestore(FACTS, { time: T0 + 130 });
  assert.equal(plan.kind, 'plan');
  assert.deepEqual(plan.kind === 'plan' && plan.runs.map((r) => [r.segment.seq, r.args]), [
    [2, ['--start-position=0-101-12']],
    [3, ['--start-position=0-101-20', '--stop-datetime=2026-01-02 00:02:10']],
  ]);
  const between = planPointInTimeRestore(FACTS, { time: T0 + 115 });
  assert.deepEqual(between.kind === 'plan' && between.runs.map((r) => r.segment.seq), [2], 'a time between two segments needs no stop');
  assert.equal(stopDatetime(T0 + 1), '2026-01-02 00:00:01');
});

test('to a GTID: up to the segment that holds it, stopped there (inclusive); the backup position itself needs nothing', () => {
  const plan = planPointInTimeRestore(FACTS, { gtid: '0-101-15' });
  assert.deepEqual(plan.kind === 'plan' && plan.runs.map((r) => [r.segment.seq, r.args]), [
    [2, ['--start-position=0-101-12', '--stop-position=0-101-15']],
  ]);
  const later = planPointInTimeRestore(FACTS, { gtid: '0-102-25' });
  assert.deepEqual(later.kind === 'plan' && later.runs.map((r) => r.segment.seq), [2, 3]);
  const same = planPointInTimeRestore(FACTS, { gtid: '0-101-12' });
  assert.deepEqual(same.kind === 'plan' && same.runs, []);
});

test('a target outside the window is refused, naming the window', () => {
  const early = planPointInTimeRestore(FACTS, { time: T0 + 10 });
  assert.equal(early.kind, 'refused');
  assert.match(
    early.kind === 'refused' ? early.reason : '',
    /2026-01-02T00:00:10Z is before the backup; recoverable from 2026-01-02T00:01:10Z to 2026-01-02T00:03:00Z/,
  );
  const late = planPointInTimeRestore(FACTS, { time: T0 + 181 });
  assert.match(late.kind === 'refused' ? late.reason : '', /past what the archive holds/);
  const beforeGtid = planPointInTimeRestore(FACTS, { gtid: '0-101-5' });
  assert.match(
    beforeGtid.kind === 'refused' ? beforeGtid.reason : '',
    /0-101-5 is before the backup; recoverable from 0-101-12 to 0-102-30/,
  );
  assert.equal(planPointInTimeRestore(FACTS, { gtid: '0-102-31' }).kind, 'refused');
  assert.equal(planPointInTimeRestore(FACTS, { gtid: '0-1-2,1-1-2' }).kind, 'refused');
  const gap = planPointInTimeRestore({ ...FACTS, segments: SEGMENTS.filter((s) => s.seq !== 2) }, { time: T0 + 130 });
  assert.match(gap.kind === 'refused' ? gap.reason : '', /gap after 0-101-12/);
});
