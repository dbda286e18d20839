// spec.backupSchedule as users wrote it for the anchor (robfig/cron, seconds first) and as they
// write cron elsewhere (5 fields), and what bad input says.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { CLUSTER_REASONS } from '../../../src/api/constants.ts';
import { decideSchedule, decideScheduleCondition, missedTick } from '../../../src/controllers/backupcron/decide-schedule.ts';
import { CATCH_UP_WINDOW_MS, latestTickBetween, parseSchedule, type Schedule } from '../../../src/controllers/backupcron/schedule.ts';
import { nextEveryTick } from '../../../src/controllers/backupcron/ticker.ts';

describe('parseSchedule', () => {
  it("reads the anchor's 6 fields, seconds first", () => {
    assert.deepEqual(parseSchedule('0 0 */6 * * *'), {
      ok: true,
      schedule: { kind: 'cron', pattern: '0 0 */6 * * *', timezone: undefined },
    });
  });
  it('reads classic 5 fields', () => {
    assert.deepEqual(parseSchedule('30 2 * * 1-5'), { ok: true, schedule: { kind: 'cron', pattern: '30 2 * * 1-5', timezone: undefined } });
  });
  it('turns CRON_TZ= and TZ= into a time zone', () => {
    assert.deepEqual(parseSchedule('CRON_TZ=Europe/Bucharest 0 0 3 * * *'), {
      ok: true,
      schedule: { kind: 'cron', pattern: '0 0 3 * * *', timezone: 'Europe/Bucharest' },
    });
    assert.deepEqual(parseSchedule('TZ=UTC 0 3 * * *'), { ok: true, schedule: { kind: 'cron', pattern: '0 3 * * *', timezone: 'UTC' } });
  });
  it("reads robfig's descriptors, including those node-cron lacks", () => {
    for (const [d, p] of [
      ['@daily', '0 0 0 * * *'],
      ['@midnight', '0 0 0 * * *'],
      ['@annually', '0 0 0 1 1 *'],
      ['@hourly', '0 0 * * * *'],
      ['@weekly', '0 0 0 * * 0'],
    ]) {
      assert.deepEqual(parseSchedule(d!), { ok: true, schedule: { kind: 'cron', pattern: p, timezone: undefined } }, d);
    }
  });
  it('reads @every with a Go duration', () => {
    assert.deepEqual(parseSchedule('@every 1h'), { ok: true, schedule: { kind: 'every', intervalMs: 3_600_000 } });
    assert.deepEqual(parseSchedule('@every 1h30m'), { ok: true, schedule: { kind: 'every', intervalMs: 5_400_000 } });
  });
  it('refuses bad input with what is wrong', () => {
    const error = (s: string) => (parseSchedule(s) as { ok: false; error: string }).error;
    assert.match(error('61 * * * * *'), /second: 61 is a invalid expression for second/);
    assert.match(error('* * *'), /expected 5 fields, or 6 with seconds first; got 3/);
    assert.match(error('@sometimes'), /unknown descriptor "@sometimes"/);
    assert.match(error('@every often'), /@every needs a duration such as 1h or 90m, got "often"/);
    assert.match(error('@every 500ms'), /shorter than 1s/);
    assert.match(error('CRON_TZ=Mars/Olympus 0 0 * * *'), /unknown time zone "Mars\/Olympus"/);
    assert.match(error('   '), /empty schedule/);
  });
});

describe('decideSchedule', () => {
  const spec = { secretName: 's', backupURL: 's3://bucket/x/' };
  it('no schedule, nothing scheduled', () => {
    assert.deepEqual(decideSchedule(spec), { state: 'none' });
  });
  it('an invalid schedule names the field and the parse error', () => {
    assert.deepEqual(decideSchedule({ ...spec, backupSchedule: '0 0 25 * * *' }), {
      state: 'invalid',
      reason: CLUSTER_REASONS.invalidBackupSchedule,
      message: 'spec.backupSchedule "0 0 25 * * *": hour: 25 is a invalid expression for hour',
    });
  });
  it('needs backupURL and a readable backupRetentionPeriod', () => {
    assert.match(
      (decideSchedule({ secretName: 's', backupSchedule: '@daily' }) as { message: string }).message,
      /^spec\.backupURL is required/,
    );
    assert.match(
      (decideSchedule({ ...spec, backupSchedule: '@daily', backupRetentionPeriod: 'a week' }) as { message: string }).message,
      /^spec\.backupRetentionPeriod "a week"/,
    );
  });
  it('refuses at once what every scheduled backup would fail on: a backupURL no backend takes, a missing credentials Secret', () => {
    const daily = { ...spec, backupSchedule: '@daily' };
    assert.deepEqual(decideSchedule({ ...daily, backupURL: 'ftp://host/dir/' }, { namespace: 'ns', backupSecretFound: true }), {
      state: 'invalid',
      reason: CLUSTER_REASONS.invalidBackupURL,
      message: 'spec.backupURL "ftp://host/dir/": ftp:// backups are not supported; use s3://, gs://, azure:// or file://',
    });
    assert.equal(
      (decideSchedule({ ...daily, backupURL: 's3://Bad_Bucket/x/' }) as { reason: string }).reason,
      CLUSTER_REASONS.invalidBackupURL,
    );
    const named = { ...daily, backupSecretName: 'creds' };
    assert.deepEqual(decideSchedule(named, { namespace: 'ns', backupSecretFound: false }), {
      state: 'invalid',
      reason: CLUSTER_REASONS.backupSecretNotFound,
      message: 'Secret ns/creds (spec.backupSecretName) does not exist; scheduled backups would have no storage credentials',
    });
    assert.equal(decideSchedule(named, { namespace: 'ns', backupSecretFound: true }).state, 'scheduled');
    assert.equal(
      decideSchedule(daily, { namespace: 'ns', backupSecretFound: false }).state,
      'scheduled',
      'no Secret named (IRSA, file://): none to find',
    );
  });
  it("the condition carries the refusal's reason and message", () => {
    const c = { metadata: { name: 'c', namespace: 'ns' }, spec: { secretName: 's' } } as unknown as MysqlCluster;
    const d = decideSchedule({ ...spec, backupSchedule: '@daily', backupURL: 'ftp://host/' });
    const [cond] = decideScheduleCondition(c, d, new Date('2026-01-01T00:00:00Z'))!;
    assert.deepEqual(
      [cond!.status, cond!.reason, cond!.message],
      ['False', CLUSTER_REASONS.invalidBackupURL, (d as { message: string }).message],
    );
  });
  it('carries the retention policy', () => {
    const d = decideSchedule({ ...spec, backupSchedule: '@daily', backupScheduleJobsHistoryLimit: 3, backupRetentionPeriod: '7d' });
    assert.deepEqual((d as { retention: unknown }).retention, { historyLimit: 3, maxAgeMs: 7 * 86_400_000 });
  });
});

describe('@every ticks', () => {
  it('fall on multiples of the interval since the epoch, whenever the timer starts', () => {
    const h = 3_600_000;
    assert.equal(nextEveryTick(Date.parse('2026-01-01T10:20:00Z'), h), Date.parse('2026-01-01T11:00:00Z'));
    assert.equal(nextEveryTick(Date.parse('2026-01-01T11:00:00Z'), h), Date.parse('2026-01-01T12:00:00Z'));
  });
});

describe('the tick no operator ran', () => {
  const cron = (pattern: string, timezone?: string): Schedule => ({ kind: 'cron', pattern, timezone });
  const at = (iso: string) => new Date(iso);
  const cluster = (condition?: { status: string; lastTransitionTime: string }) =>
    ({
      metadata: { name: 'c', namespace: 'ns' },
      spec: { secretName: 's' },
      status: condition ? { conditions: [{ type: 'BackupSchedule', reason: 'BackupScheduled', ...condition }] } : {},
    }) as unknown as MysqlCluster;

  it('is the latest tick after the schedule began and at or before now', () => {
    assert.deepEqual(
      latestTickBetween(cron('0 0 * * * *'), at('2026-01-01T09:30:00Z'), at('2026-01-01T12:10:00Z')),
      at('2026-01-01T12:00:00Z'),
    );
    assert.deepEqual(
      latestTickBetween(cron('30 2 * * *'), at('2026-01-01T00:00:00Z'), at('2026-01-01T02:30:00Z')),
      at('2026-01-01T02:30:00Z'),
      'a tick at now itself',
    );
    assert.deepEqual(
      latestTickBetween(cron('*/20 * * * * *'), at('2026-01-01T00:00:00Z'), at('2026-01-01T05:07:59.900Z')),
      at('2026-01-01T05:07:40Z'),
    );
    assert.deepEqual(
      latestTickBetween(cron('0 0 3 * * *', 'Europe/Bucharest'), at('2026-01-01T00:00:00Z'), at('2026-01-01T02:00:00Z')),
      at('2026-01-01T01:00:00Z'),
      '03:00 in Bucharest is 01:00 UTC in winter',
    );
    assert.deepEqual(
      latestTickBetween({ kind: 'every', intervalMs: 3_600_000 }, at('2026-01-01T00:00:00Z'), at('2026-01-01T05:10:00Z')),
      at('2026-01-01T05:00:00Z'),
    );
  });

  it('is none when no tick fell in between, or only longer ago than the window', () => {
    assert.equal(
      latestTickBetween(cron('0 0 * * * *'), at('2026-01-01T12:00:00Z'), at('2026-01-01T12:59:59Z')),
      undefined,
      'the tick at the start itself was not missed',
    );
    assert.equal(
      latestTickBetween(cron('0 0 0 * * *'), at('2026-01-01T00:00:00Z'), at('2026-01-02T07:00:00Z')),
      undefined,
      `midnight is more than ${CATCH_UP_WINDOW_MS / 3600_000} h back`,
    );
    assert.equal(
      latestTickBetween({ kind: 'every', intervalMs: 3_600_000 }, at('2026-01-01T05:00:00Z'), at('2026-01-01T05:59:00Z')),
      undefined,
    );
  });

  it('is looked for only where an earlier operator scheduled the cluster (its BackupSchedule condition is True)', () => {
    const hourly = cron('0 0 * * * *');
    const now = at('2026-01-01T12:10:00Z');
    assert.deepEqual(
      missedTick(cluster({ status: 'True', lastTransitionTime: '2026-01-01T09:30:00Z' }), hourly, now),
      at('2026-01-01T12:00:00Z'),
    );
    assert.equal(missedTick(cluster(), hourly, now), undefined, 'a schedule no operator ran yet has missed nothing');
    assert.equal(
      missedTick(cluster({ status: 'False', lastTransitionTime: '2026-01-01T09:30:00Z' }), hourly, now),
      undefined,
      'an invalid schedule ran nothing',
    );
  });
});
