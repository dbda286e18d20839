// A recovery's active period as the recorded Orchestrator 3.2.6 kept it
// (test/fixtures/orchestrator/README.md, "second set"): IsActive from the start until
// RecoveryPeriodBlockSeconds later or an ack, ended or not; an automatic recovery of the instance
// it promoted, or of the same cluster name, is blocked meanwhile and listed as blocked until the
// blocking recovery is acknowledged.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  acknowledge,
  blockedRecoveryJson,
  blockingRecoveries,
  inActivePeriod,
  registerBlocked,
  unexpiredBlocked,
} from '../../../sandbox/orchestrator/recovery-period.ts';
import type { RecoveryRecord } from '../../../sandbox/orchestrator/shapes.ts';
import type { Json } from '../../support/json.ts';

const FIXTURES = new URL('../../fixtures/orchestrator/', import.meta.url);
const recorded = (file: string): Json => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));

const T0 = new Date('2026-11-28T07:00:23Z');
const at = (s: number): Date => new Date(T0.getTime() + s * 1000);
const k = (host: string) => ({ host, port: 3306 });

function recovery(id: number, failed: string, successor: string | null, over: Partial<RecoveryRecord> = {}): RecoveryRecord {
  return {
    id,
    uid: `uid${id}`,
    analysis: 'DeadMaster',
    failed: k(failed),
    clusterName: `${failed}:3306`,
    clusterAlias: 'rec.ns',
    replicas: [],
    successor: successor === null ? null : k(successor),
    successorAlias: '',
    activeClearedAt: null,
    successful: successor !== null,
    errors: [],
    startedAt: T0,
    endedAt: T0,
    acknowledged: null,
    detectionId: 1,
    ...over,
  };
}

test('a recovery that ended stays active for RecoveryPeriodBlockSeconds after it began, as recorded', () => {
  const [justEnded] = recorded('audit-recovery_alias_just-ended.json');
  assert.deepEqual([justEnded.IsActive, justEnded.RecoveryEndTimestamp !== ''], [true, true]);
  const r = recovery(1, '127.0.0.31', '127.0.0.32');
  assert.equal(inActivePeriod(r, at(0), 30), true);
  assert.equal(inActivePeriod(r, at(29), 30), true);
  assert.equal(inActivePeriod(r, at(30), 30), false);
  const expired = recorded('audit-recovery_alias_after-expiry.json').find((x: Json) => x.Id === 1);
  assert.deepEqual([expired.IsActive, expired.Acknowledged], [false, false]);
});

test('an ack ends the active period at once and is kept once', () => {
  const r = recovery(1, '127.0.0.31', '127.0.0.32');
  acknowledge(r, at(3), 'orc', 'seen');
  assert.equal(inActivePeriod(r, at(4), 30), false);
  acknowledge(r, at(5), 'other', 'again');
  assert.deepEqual(r.acknowledged, { at: at(3), by: 'orc', comment: 'seen' });
  assert.ok(recorded('audit-recovery_alias_after-ack.json').every((x: Json) => !x.IsActive && x.Acknowledged));
});

test('the promoted master is not failed over again while the recovery that promoted it is active; nor is the same cluster name', () => {
  const first = recovery(1, '127.0.0.31', '127.0.0.32');
  // Recorded: the promoted .32 killed 0.2 s after recovery 1 ended; blocked by recovery 1.
  const [row] = recorded('blocked-recoveries_while-active.json');
  const blocking = blockingRecoveries([first], k('127.0.0.32'), '127.0.0.32:3306', at(3), 30);
  assert.deepEqual(
    blocking.map((r) => r.id),
    [row.BlockingRecoveryId],
  );
  assert.deepEqual(blockingRecoveries([first], k('127.0.0.32'), '127.0.0.32:3306', at(31), 30), []);
  // An aborted attempt (PreFailover failed) blocks its own cluster name: the retry waits.
  const aborted = recovery(2, '127.0.0.32', null, { errors: ['Failed running PreFailoverProcesses'] });
  assert.deepEqual(
    blockingRecoveries([aborted], k('127.0.0.32'), '127.0.0.32:3306', at(1), 5).map((r) => r.id),
    [2],
  );
  assert.deepEqual(blockingRecoveries([aborted], k('127.0.0.33'), '127.0.0.33:3306', at(1), 5), []);
});

test('a blocked recovery is listed in the recorded shape until the blocking recovery is acknowledged', () => {
  const first = recovery(1, '127.0.0.31', '127.0.0.32');
  let rows = registerBlocked([], { failed: k('127.0.0.32'), clusterName: '127.0.0.32:3306', analysis: 'DeadMaster', lastBlocked: at(3) }, [
    first,
  ]);
  rows = registerBlocked(rows, { failed: k('127.0.0.32'), clusterName: '127.0.0.32:3306', analysis: 'DeadMaster', lastBlocked: at(4) }, [
    first,
  ]);
  assert.equal(rows.length, 1);
  const [want] = recorded('blocked-recoveries_while-active.json');
  assert.deepEqual(Object.keys(blockedRecoveryJson(rows[0]!)), Object.keys(want));
  assert.deepEqual(blockedRecoveryJson(rows[0]!).FailedInstanceKey, want.FailedInstanceKey);
  // Recorded: still listed after its recovery ran, as long as recovery 1 is not acknowledged.
  assert.equal(recorded('blocked-recoveries_after-expiry.json').length, 1);
  assert.equal(unexpiredBlocked(rows, [first]).length, 1);
  acknowledge(first, at(40), 'orc', 'seen');
  assert.deepEqual(unexpiredBlocked(rows, [first]), []);
});
