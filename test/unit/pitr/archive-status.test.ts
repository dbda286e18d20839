// The binlog archive's part of the cluster status: recoverable times from the index, and the
// BinlogArchive condition (current, behind, empty, unreadable) with an Event when it changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideArchiveStatus } from '../../../src/controllers/pitr/decide-archive-status.ts';
import { archiveIndex, archivingCluster } from './builders.ts';

const NOW = new Date('2026-01-02T03:01:00Z');

test('a current archive gives the earliest and latest recoverable times and BinlogsArchived, with a Normal Event once', () => {
  const d = decideArchiveStatus(archivingCluster(), { kind: 'index', index: archiveIndex() }, NOW);
  assert.deepEqual(d.status.binlogArchive, {
    earliestRecoverableTime: '2026-01-01T00:00:00Z',
    latestRecoverableTime: '2026-01-02T03:00:00Z',
    gtidPosition: '0-101-420',
  });
  assert.equal(d.status.conditions[0]?.status, 'True');
  assert.equal(d.status.conditions[0]?.reason, 'BinlogsArchived');
  assert.equal(d.lagSeconds, 60);
  assert.equal(d.event?.type, 'Normal');
  assert.ok(d.changed);
  const again = decideArchiveStatus(archivingCluster({ status: { ...d.status } }), { kind: 'index', index: archiveIndex() }, NOW);
  assert.equal(again.changed, false, 'the same status is not written again');
  assert.equal(again.event, undefined);
});

test('an archive older than twice the interval plus a minute is behind: a Warning naming the last complete time', () => {
  const late = new Date('2026-01-02T03:03:01Z');
  assert.equal(
    decideArchiveStatus(archivingCluster(), { kind: 'index', index: archiveIndex() }, new Date('2026-01-02T03:03:00Z')).status.conditions[0]
      ?.status,
    'True',
  );
  const d = decideArchiveStatus(archivingCluster(), { kind: 'index', index: archiveIndex() }, late);
  assert.equal(d.status.conditions[0]?.reason, 'BinlogArchiveBehind');
  assert.match(d.status.conditions[0]?.message ?? '', /nothing newer than 2026-01-02T03:00:00Z, more than 180 s ago/);
  assert.equal(d.event?.type, 'Warning');
  assert.equal(d.lagSeconds, 181);
  const longer = decideArchiveStatus(archivingCluster({ intervalSeconds: 300 }), { kind: 'index', index: archiveIndex() }, late);
  assert.equal(longer.status.conditions[0]?.status, 'True', 'the limit follows the interval');
});

test('no index yet, or one that cannot be read, is a False condition with a Warning; a secret in an error is redacted', () => {
  const empty = decideArchiveStatus(archivingCluster(), { kind: 'missing' }, NOW);
  assert.equal(empty.status.conditions[0]?.reason, 'BinlogArchiveEmpty');
  assert.equal(empty.status.binlogArchive, undefined);
  const bad = decideArchiveStatus(archivingCluster(), { kind: 'error', message: 'access denied password=hunter2' }, NOW);
  assert.equal(bad.status.conditions[0]?.reason, 'BinlogArchiveUnreadable');
  assert.ok(!bad.status.conditions[0]?.message?.includes('hunter2'), bad.status.conditions[0]?.message);
  assert.equal(bad.event?.type, 'Warning');
});

test('a cluster that does not archive owns nothing: its old archive status is removed once', () => {
  const off = decideArchiveStatus(archivingCluster({ enabled: false }), null, NOW);
  assert.deepEqual(off.status, { conditions: [] });
  assert.equal(off.changed, false);
  const was = archivingCluster({ enabled: false, status: { binlogArchive: { gtidPosition: '0-1-2' } } });
  assert.equal(decideArchiveStatus(was, null, NOW).changed, true);
});

test('a MySQL cluster asking for the archive is told it is MariaDB only, with a Warning', () => {
  const d = decideArchiveStatus(archivingCluster({ mysqlVersion: '8.0' }), { kind: 'missing' }, NOW);
  assert.equal(d.status.conditions[0]?.reason, 'BinlogArchiveUnsupported');
  assert.match(d.status.conditions[0]?.message ?? '', /mysqlVersion 8\.0 is not MariaDB/);
  assert.equal(d.event?.type, 'Warning');
});
