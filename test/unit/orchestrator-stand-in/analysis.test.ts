// What the stand-in concludes from the instances it polled: the analysis Orchestrator 3.2.6
// reported in the recordings, and whom it promotes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import {
  analyze, chooseSuccessor, clusterAliasOf, lostInRecoveryToExpire, sqlThreadBehind, type Downtime, type InstanceState,
} from '../../../sandbox/orchestrator/analysis.ts';
import { analysisJson } from '../../../sandbox/orchestrator/shapes.ts';
import { gtidCovers } from '../../../src/mysql/gtid-set.ts';

const NOW = new Date('2026-11-24T00:00:00Z');
const M = { host: 'my-db-mysql-0.mysql.default', port: 3306 };

function instance(host: string, over: Partial<InstanceState> = {}): InstanceState {
  return {
    key: { host, port: 3306 }, lastCheckValid: true, failedChecks: 0, lastSeen: NOW, firstSeen: NOW, serverId: 1,
    version: '10.11', versionComment: '', readOnly: true, instanceAlias: host, suggestedClusterAlias: 'my-db.default',
    master: M, ioRunning: true, sqlRunning: true, usingGtid: true, gtidPosition: '0-11-5', gtidReceived: '0-11-5',
    lastIoError: '', lastSqlError: '', secondsBehind: 0, binlog: null, downtime: null, ...over,
  };
}
const deadMaster = (failedChecks: number, over: Partial<InstanceState> = {}): InstanceState =>
  instance(M.host, { master: null, readOnly: false, lastCheckValid: false, failedChecks, ...over });
const codes = (all: InstanceState[]): string[] =>
  analyze(all, NOW).map((a) => `${a.code}${a.actionable ? '!' : ''}${a.skippable ? ' skippable' : ''}`);
/** A downtime that began `ageMs` before NOW and lasts a year more. */
const downtimed = (reason: string, ageMs = 0, owner = 'mysql-operator-0'): Downtime =>
  ({ owner, reason, beganAt: new Date(NOW.getTime() - ageMs), endsAt: new Date(NOW.getTime() + 365 * 86400_000) });
const HOOKS = new URL('../../fixtures/orchestrator/hooks/', import.meta.url);
const fixture = (name: string): any => JSON.parse(readFileSync(new URL(name, HOOKS), 'utf8'));

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

test('a reachable or replica-less master has no analysis', () => {
  assert.deepEqual(codes([instance(M.host, { master: null }), instance('r1')]), []);
  assert.deepEqual(codes([deadMaster(3)]), []);
});

test('a downtimed dead master is listed as SkippableDueToDowntime, an expired downtime no longer counts (failover-unsuccessful)', () => {
  const lost = { ioRunning: false };
  assert.deepEqual(codes([deadMaster(3, { downtime: downtimed('lost-in-recovery') }), instance('r1', lost)]), ['DeadMaster! skippable']);
  assert.deepEqual(codes([deadMaster(3, { downtime: { ...downtimed('lost-in-recovery'), endsAt: NOW } }), instance('r1', lost)]), ['DeadMaster!']);
});

test('a skippable analysis row has the recorded downtime fields (failover-unsuccessful_replication-analysis)', () => {
  const [want] = fixture('failover-unsuccessful_replication-analysis.json').Details;
  const all = [deadMaster(3, { downtime: downtimed('lost-in-recovery') }), instance('r1', { sqlRunning: false })];
  const [a] = analyze(all, NOW);
  assert.ok(a);
  const got = analysisJson(all, a, true, NOW);
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
  const fields = ['Analysis', 'IsMaster', 'LastCheckValid', 'IsDowntimed', 'SkippableDueToDowntime', 'CountDowntimedReplicas'];
  assert.deepEqual(fields.map((f) => got[f]), fields.map((f) => want[f]));
  assert.match(String(got['DowntimeEndTimestamp']), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
});

test('the successor is the reachable replica that applied the most, ties to the lowest key', () => {
  const pick = (...r: InstanceState[]): string | undefined => chooseSuccessor(r)?.key.host;
  assert.equal(pick(instance('a', { gtidPosition: '0-11-5' }), instance('b', { gtidPosition: '0-11-7' })), 'b');
  assert.equal(pick(instance('b'), instance('a')), 'a');
  assert.equal(pick(instance('a', { gtidPosition: '0-11-9', lastCheckValid: false }), instance('b')), 'b');
  assert.equal(pick(instance('a', { lastCheckValid: false })), undefined);
});

test('a downtimed replica is a candidate like any other: 3.2.6 promoted one (failover-stopped-downtimed-replicas)', () => {
  // Both replicas stopped (STOP SLAVE) and downtimed by begin-downtime when the master died.
  const stopped = { ioRunning: false, sqlRunning: false, downtime: downtimed('lab', 0, 'lab') };
  const replicas = [instance('my-db-mysql-0.mysql.default', stopped), instance('my-db-mysql-2.mysql.default', { ...stopped, gtidPosition: '0-11-6' })];
  assert.deepEqual(codes([deadMaster(1), ...replicas]), ['DeadMaster!']);
  assert.equal(chooseSuccessor(replicas)?.key.host, 'my-db-mysql-2.mysql.default');
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
  const lost = downtimed('lost-in-recovery');
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

test('a lost-in-recovery downtime ends once a minute old and the server replicates, or masters alone under its alias (expireLostInRecoveryDowntime)', () => {
  const S = { host: 'my-db-mysql-1.mysql.default', port: 3306 };
  const newMaster = instance(S.host, { master: null, readOnly: false });
  const expired = (old: InstanceState, ...rest: InstanceState[]): boolean =>
    lostInRecoveryToExpire([old, ...rest], NOW).includes(old);
  const minute = 60_000;
  // Rejoined as a replica of the new master (old-master-rejoin): over once a minute old, not before.
  const rejoined = instance(M.host, { master: S, downtime: downtimed('lost-in-recovery', minute) });
  assert.equal(expired(rejoined, newMaster), true);
  assert.equal(expired({ ...rejoined, downtime: downtimed('lost-in-recovery', minute - 1) }, newMaster), false);
  // Not replicating yet (a demoted master left stopped by a plain takeover), or not answering.
  assert.equal(expired({ ...rejoined, ioRunning: false }, newMaster), false);
  assert.equal(expired({ ...rejoined, lastCheckValid: false }, newMaster), false);
  // Restarted alone: the new master suggests the same alias, so it is not the alias' sole owner.
  const alone = instance(M.host, { master: null, downtime: downtimed('lost-in-recovery', minute) });
  assert.equal(expired(alone, newMaster), false);
  assert.equal(expired(alone, instance(S.host, { master: null, suggestedClusterAlias: 'other' })), true);
  assert.equal(expired({ ...alone, suggestedClusterAlias: '' }), false);
  // Only lost-in-recovery downtimes: a backup's stays until its end or end-downtime.
  assert.equal(expired({ ...rejoined, downtime: downtimed('backup default/b1', minute, 'mysql-operator') }, newMaster), false);
  // The age to wait is the caller's (tests shorten Orchestrator's minute).
  assert.deepEqual(lostInRecoveryToExpire([{ ...rejoined, downtime: downtimed('lost-in-recovery', 2000) }, newMaster], NOW, 1000).map((i) => i.key.host), [M.host]);
});
