// What the stand-in concludes from the instances it polled: the analysis Orchestrator 3.2.6
// reported in the recordings, and whom it promotes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  analyze,
  chooseSuccessor,
  dueForCheck,
  clusterAliasOf,
  lastCheckStillValid,
  sqlThreadBehind,
  type InstanceState,
} from '../../../sandbox/orchestrator/analysis.ts';
import { gtidCovers } from '../../../src/mysql/gtid-set.ts';

const NOW = new Date('2026-11-24T00:00:00Z');
const M = { host: 'my-db-mysql-0.mysql.default', port: 3306 };

function instance(host: string, over: Partial<InstanceState> = {}): InstanceState {
  return {
    key: { host, port: 3306 },
    lastCheckValid: true,
    failedChecks: 0,
    lastSeen: NOW,
    firstSeen: NOW,
    serverId: 1,
    version: '10.11',
    versionComment: '',
    readOnly: true,
    instanceAlias: host,
    suggestedClusterAlias: 'my-db.default',
    master: M,
    ioRunning: true,
    sqlRunning: true,
    usingGtid: true,
    gtidPosition: '0-11-5',
    gtidReceived: '0-11-5',
    lastIoError: '',
    lastSqlError: '',
    secondsBehind: 0,
    binlog: null,
    downtime: null,
    ...over,
  };
}
const deadMaster = (failedChecks: number, over: Partial<InstanceState> = {}): InstanceState =>
  instance(M.host, { master: null, readOnly: false, lastCheckValid: false, failedChecks, ...over });
const codes = (all: InstanceState[]): string[] => analyze(all, NOW).map((a) => `${a.code}${a.actionable ? '!' : ''}`);

test('a killed master is UnreachableMaster at the first failed check and an actionable DeadMaster once the replicas lost it', () => {
  const lost = { ioRunning: false };
  assert.deepEqual(codes([deadMaster(1), instance('r1', lost), instance('r2', lost)]), ['UnreachableMaster']);
  assert.deepEqual(codes([deadMaster(2), instance('r1', lost), instance('r2', lost)]), ['DeadMaster!']);
  // One replica still replicating: the master may only be cut off from the stand-in.
  assert.deepEqual(codes([deadMaster(2), instance('r1'), instance('r2', lost)]), ['UnreachableMaster']);
});

test('replicas whose SQL thread is stopped make the failed master DeadMaster at once (failover-unsuccessful)', () => {
  assert.deepEqual(codes([deadMaster(1), instance('r1', { sqlRunning: false }), instance('r2', { sqlRunning: false })]), ['DeadMaster!']);
});

test('a reachable, downtimed or replica-less master has no analysis', () => {
  assert.deepEqual(codes([instance(M.host, { master: null }), instance('r1')]), []);
  const downtime = { owner: 'o', reason: 'lost-in-recovery', endsAt: new Date(NOW.getTime() + 1000) };
  assert.deepEqual(codes([deadMaster(3, { downtime }), instance('r1', { ioRunning: false })]), []);
  assert.deepEqual(codes([deadMaster(3, { downtime: { ...downtime, endsAt: NOW } }), instance('r1', { ioRunning: false })]), [
    'DeadMaster!',
  ]);
  assert.deepEqual(codes([deadMaster(3)]), []);
});

test('the successor is the reachable replica that applied the most, downtimed or not (as 3.2.6), ties to the lowest key', () => {
  const pick = (...r: InstanceState[]): string | undefined => chooseSuccessor(r)?.key.host;
  assert.equal(pick(instance('a', { gtidPosition: '0-11-5' }), instance('b', { gtidPosition: '0-11-7' })), 'b');
  assert.equal(pick(instance('b'), instance('a')), 'a');
  assert.equal(pick(instance('a', { gtidPosition: '0-11-9', lastCheckValid: false }), instance('b')), 'b');
  // 3.2.6 promoted replicas that were STOP SLAVE'd and downtimed (hooks/failover-stopped-downtimed-replicas).
  const downtime = { owner: 'o', reason: 'lost-in-recovery', endsAt: new Date(NOW.getTime() + 3600_000) };
  assert.equal(pick(instance('a', { gtidPosition: '0-11-9', downtime }), instance('b')), 'a');
  assert.equal(pick(instance('a', { lastCheckValid: false })), undefined);
});

test('GTID positions compare per domain; a candidate that fetched more than it applied is behind', () => {
  assert.equal(gtidCovers('0-11-9,1-12-3', '0-13-9, 1-12-2'), true);
  assert.equal(gtidCovers('0-11-9', '0-11-9,1-12-1'), false);
  assert.equal(gtidCovers('', ''), true);
  // failover-unsuccessful_setup.txt: gtid_slave_pos 0-12-6, Gtid_IO_Pos 0-13-9.
  assert.equal(sqlThreadBehind(instance('r', { gtidPosition: '0-12-6', gtidReceived: '0-13-9' })), true);
  assert.equal(sqlThreadBehind(instance('r', { gtidPosition: '0-13-9', gtidReceived: '0-13-9' })), false);
});

test('a demoted old master back alone in its own cluster does not take the alias: it stays with the cluster that carried on (old-master-rejoin)', () => {
  const lost = { owner: 'mysql-operator-0', reason: 'lost-in-recovery', endsAt: new Date(NOW.getTime() + 365 * 86400_000) };
  const S = { host: 'my-db-mysql-1.mysql.default', port: 3306 };
  // Restarted read-only by its init-file, replicating from no one, downtimed by the recovery.
  const old = instance(M.host, { master: null, downtime: lost });
  const all = [old, instance(S.host, { master: null, readOnly: false }), instance('my-db-mysql-2.mysql.default', { master: S })];
  assert.equal(clusterAliasOf(all, `${M.host}:3306`, NOW), `${M.host}:3306`);
  assert.equal(clusterAliasOf(all, `${S.host}:3306`, NOW), 'my-db.default');
  // Once its downtime is over it is an ordinary live member again.
  assert.equal(clusterAliasOf([{ ...old, downtime: { ...lost, endsAt: NOW } }, ...all.slice(1)], `${M.host}:3306`, NOW), 'my-db.default');
  // Promoted again later (a graceful takeover and back), still downtimed but with replicas: the alias followed it.
  const back = [old, instance(S.host, { master: M, downtime: lost })];
  assert.equal(clusterAliasOf(back, `${M.host}:3306`, NOW), 'my-db.default');
});

test('with InstancePollSeconds 1 an instance is checked every 2 s, as 3.2.6 compares whole seconds (ReadOutdatedInstanceKeys)', () => {
  const at = (s: number): number => Date.UTC(2026, 10, 28, 12, 0, 0) + s * 1000;
  assert.equal(dueForCheck(undefined, at(0), 1), true, 'never checked');
  assert.equal(dueForCheck(at(10.2), at(11.9), 1), false, 'the next whole second is not yet past the interval');
  assert.equal(dueForCheck(at(10.9), at(11.1), 1), false);
  assert.equal(dueForCheck(at(10.9), at(12.0), 1), true, 'two whole seconds later');
  assert.equal(dueForCheck(at(10.2), at(12.9), 2), false);
  assert.equal(dueForCheck(at(10.2), at(13.0), 2), true);
});

test('a check that fails within the second of the last good one still reads valid, as 3.2.6 compares whole seconds (recorded)', () => {
  const fixtures = new URL('../../fixtures/orchestrator/', import.meta.url);
  const recorded = (f: string) => JSON.parse(readFileSync(new URL(f, fixtures), 'utf8')) as { IsLastCheckValid: boolean };
  const good = new Date('2026-11-28T16:21:06.040Z');
  assert.equal(lastCheckStillValid(good, new Date('2026-11-28T16:21:06.400Z')), true);
  assert.equal(recorded('instance_failed-discover_same-second_127.0.0.1_23306.json').IsLastCheckValid, true);
  assert.equal(lastCheckStillValid(good, new Date('2026-11-28T16:21:07.001Z')), false);
  assert.equal(lastCheckStillValid(new Date('2026-11-28T16:19:40.030Z'), new Date('2026-11-28T16:19:42.600Z')), false);
  assert.equal(recorded('instance_failed-discover_later-second_127.0.0.1_23306.json').IsLastCheckValid, false);
  assert.equal(lastCheckStillValid(null, good), false, 'never seen: never valid');
});
