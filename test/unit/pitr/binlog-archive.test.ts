// The binlog archive's pure parts: names, event scanning, where a new master continues, what goes
// next, how a range is cut, and the replay plan (docs/pitr.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binlogArchiveUrl, parseSegmentName, segmentName } from '../../../src/api/binlog-archive.ts';
import { headerEnd, scanEvents } from '../../../src/sidecar/binlog-events.ts';
import { archiveView, decideNext, decideStart, shapeSegment } from '../../../src/sidecar/decide-binlog-archive.ts';
import { planReplay } from '../../../src/sidecar/decide-binlog-replay.ts';
import { binlogFile, binlogs, scan, segment } from './builders.ts';

test('the archive sits in the backup folder; an object URL gives its folder', () => {
  assert.equal(binlogArchiveUrl('s3://b/c1/'), 's3://b/c1/binlogs/');
  assert.equal(binlogArchiveUrl('s3://b/c1'), 's3://b/c1/binlogs/');
  assert.equal(binlogArchiveUrl('s3://b/c1/x.xbackup.gz'), 's3://b/c1/binlogs/');
});

test('a segment name carries order, server, times, GTIDs, range and file, and reads back', () => {
  const s = segment({ seq: 12, endState: '0-101-40,1-102-3', firstGtid: '0-101-31', file: 'mysql-bin.000007', start: 4096, end: 9000 });
  const name = segmentName(s);
  assert.equal(name, '0000000012_101_1700000000_1700000060_0-101-31_0-101-40,1-102-3_4096-9000_mysql-bin.000007');
  assert.deepEqual(parseSegmentName(name), s);
  assert.deepEqual(parseSegmentName(segmentName(segment({ seq: 1, endState: '' }))), segment({ seq: 1, endState: '' }));
  assert.equal(parseSegmentName('index.json'), null);
  assert.equal(parseSegmentName('0000000012_101_1_2_none_none_90-80_f'), null, 'an empty range is no segment');
});

test('scanning finds each event, GTIDs and the GTID list, and stops before a cut-off event', () => {
  const { bytes, starts } = binlogFile(
    [
      { seq: 8, ts: 1700000001 },
      { seq: 9, ts: 1700000002, domain: 1, serverId: 7 },
    ],
    [[0, 101, 7]],
  );
  const all = scanEvents(bytes, 0);
  assert.equal(all.next, bytes.length);
  assert.deepEqual(
    all.events.filter((e) => e.gtid).map((e) => [e.pos, e.gtid, e.timestamp]),
    [
      [starts[0], '0-1-8', 1700000001],
      [starts[1], '1-7-9', 1700000002],
    ],
  );
  assert.equal(all.events.find((e) => e.gtidList !== undefined)?.gtidList, '0-101-7');
  const cut = scanEvents(bytes.subarray(0, starts[1]! + 5), 0);
  assert.equal(cut.next, starts[1]);
  const fromMiddle = scanEvents(bytes.subarray(starts[1]!), starts[1]!);
  assert.equal(fromMiddle.events[0]?.gtid, '1-7-9');
  assert.throws(() => scanEvents(Buffer.from('not a binlog'), 0), /bad magic/);
  assert.equal(headerEnd(bytes), all.events[1]!.pos, 'the header ends where the GTID list begins');
});

test('a closed file is uploaded to its end at once; the open one only when the interval passed', () => {
  const b = binlogs(
    [
      ['mysql-bin.000001', 5000],
      ['mysql-bin.000002', 300],
    ],
    ['mysql-bin.000002', 300],
  );
  const base = { binlogs: b, lastOpenUploadAt: 10_000, now: 20_000, intervalMs: 60_000 };
  assert.deepEqual(decideNext({ ...base, cursor: { file: 'mysql-bin.000001', offset: 1200 } }), {
    kind: 'upload',
    cursor: { file: 'mysql-bin.000001', offset: 1200 },
    end: 5000,
    closed: true,
  });
  const done = decideNext({ ...base, cursor: { file: 'mysql-bin.000001', offset: 5000 } });
  assert.equal(done.kind, 'wait', 'the next file is open and not due');
  assert.deepEqual(done.cursor, { file: 'mysql-bin.000002', offset: 0 });
  assert.deepEqual(decideNext({ ...base, now: 70_000, cursor: { file: 'mysql-bin.000001', offset: 5000 } }), {
    kind: 'upload',
    cursor: { file: 'mysql-bin.000002', offset: 0 },
    end: 300,
    closed: false,
  });
  assert.equal(decideNext({ ...base, now: 70_000, cursor: { file: 'mysql-bin.000002', offset: 300 } }).kind, 'wait', 'nothing new');
});

test('a file purged before it was archived is a gap, and archiving goes on from the oldest file left', () => {
  const d = decideNext({
    binlogs: binlogs([['mysql-bin.000005', 900]], ['mysql-bin.000005', 900]),
    cursor: { file: 'mysql-bin.000003', offset: 700 },
    lastOpenUploadAt: 0,
    now: 1,
    intervalMs: 1,
  });
  assert.equal(d.kind, 'gap');
  assert.deepEqual(d.cursor, { file: 'mysql-bin.000005', offset: 0 });
});

test('a new master continues at its first transaction the archive lacks, whoever wrote the ones before', () => {
  const b = binlogs(
    [
      ['mysql-bin.000001', 900],
      ['mysql-bin.000002', 800],
    ],
    ['mysql-bin.000002', 800],
  );
  const scans = [
    scan('mysql-bin.000001', '0-101-3', [
      [300, '0-101-4'],
      [500, '0-101-5'],
    ]),
    scan('mysql-bin.000002', '0-101-5', [
      [300, '0-101-6'],
      [600, '0-102-7'],
    ]),
  ];
  const view = { endState: '0-101-6', lastSeq: 9, firstEventTime: 1 };
  assert.deepEqual(decideStart(view, b, scans), {
    kind: 'start',
    cursor: { file: 'mysql-bin.000002', offset: 600 },
    reason: "first transaction after the archive's 0-101-6: 0-102-7 in mysql-bin.000002",
  });
  assert.deepEqual(decideStart({ ...view, endState: '' }, b, scans), {
    kind: 'start',
    cursor: { file: 'mysql-bin.000001', offset: 0 },
    reason: 'empty archive: from the oldest binlog',
  });
  assert.deepEqual(decideStart({ ...view, endState: '0-102-7' }, b, scans), {
    kind: 'start',
    cursor: { file: 'mysql-bin.000002', offset: 800 },
    reason: 'the archive holds every transaction of this server (0-102-7)',
  });
});

test('a new master whose binlogs begin after the archive ends reports a gap; one behind the archive has diverged', () => {
  const b = binlogs([['mysql-bin.000004', 900]], ['mysql-bin.000004', 900]);
  const scans = [scan('mysql-bin.000004', '0-101-20', [[300, '0-101-21']])];
  const gap = decideStart({ endState: '0-101-12', lastSeq: 3, firstEventTime: 1 }, b, scans);
  assert.equal(gap.kind, 'gap');
  assert.match(gap.kind === 'gap' ? gap.reason : '', /begins at 0-101-20, after the archive's 0-101-12/);
  const behind = decideStart({ endState: '0-101-30', lastSeq: 3, firstEventTime: 1 }, b, scans);
  assert.equal(behind.kind, 'diverged');
});

test('a long range is cut at a transaction start inside the limit; its times, first GTID and end state', () => {
  const { bytes, starts } = binlogFile([
    { seq: 4, ts: 1700000010, bytes: 400 },
    { seq: 5, ts: 1700000020, bytes: 400 },
    { seq: 6, ts: 1700000030, bytes: 400 },
  ]);
  const { events } = scanEvents(bytes, 0);
  const whole = shapeSegment(events, 0, bytes.length, '0-1-3');
  assert.deepEqual(whole, { end: bytes.length, firstTime: 1700000010, lastTime: 1700000030, firstGtid: '0-1-4', endState: '0-1-6' });
  const limited = shapeSegment(events, starts[0]!, bytes.length, '0-1-3', starts[2]! - starts[0]! + 10);
  assert.deepEqual(limited, { end: starts[2], firstTime: 1700000010, lastTime: 1700000020, firstGtid: '0-1-4', endState: '0-1-5' });
  const oneBig = shapeSegment(events, starts[0]!, bytes.length, '0-1-3', 10);
  assert.equal(oneBig.end, starts[1], 'a transaction larger than the limit stays whole');
});

test('the archive view merges the end states in order and keeps the first event time', () => {
  assert.deepEqual(
    archiveView([segment({ seq: 2, endState: '0-102-9', firstTime: 50 }), segment({ seq: 1, endState: '0-101-5,1-101-2', firstTime: 0 })]),
    {
      endState: '0-102-9,1-101-2',
      lastSeq: 2,
      firstEventTime: 50,
    },
  );
});

test('the replay plan skips what the backup holds, applies an overlap once, and finds a gap', () => {
  const segs = [
    segment({ seq: 1, endState: '0-101-10', firstGtid: '0-101-1' }),
    segment({ seq: 2, endState: '0-101-20', firstGtid: '0-101-11' }),
    segment({ seq: 3, endState: '0-101-24', firstGtid: '0-101-21', serverId: 101 }),
    // the new master's first upload overlaps the old master's last
    segment({ seq: 3, endState: '0-102-26', firstGtid: '0-101-19', serverId: 102 }),
    segment({ seq: 4, endState: '0-102-30', firstGtid: '0-102-27', serverId: 102 }),
  ];
  const plan = planReplay(segs, '0-101-12');
  assert.equal(plan.gapAfter, null);
  assert.deepEqual(
    plan.steps.map((s) => [s.segment.seq, s.segment.serverId, s.startPosition]),
    [
      [2, 101, '0-101-12'],
      [3, 101, '0-101-20'],
      [3, 102, '0-101-24'],
      [4, 102, '0-102-26'],
    ],
  );
  assert.equal(
    planReplay(
      segs.filter((s) => s.seq !== 2),
      '0-101-10',
    ).gapAfter,
    '0-101-10',
  );
});
