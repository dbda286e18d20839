// spec.backupSchedule → what the scheduler runs. The anchor parsed it with robfig/cron v3 in its
// seconds-first mode (6 fields, `CRON_TZ=`/`TZ=` prefix, `@daily`-style descriptors, `@every
// <duration>`); users also write classic 5-field lines. node-cron 4 reads 5 and 6 fields
// (seconds first) and the descriptors, but neither `@every` nor a time-zone prefix: the prefix
// becomes node-cron's `timezone` option and `@every` an interval of our own (every.ts).
import cron from 'node-cron';
import { parseDuration } from '../../runtime/settings.ts';

export type Schedule = { kind: 'cron'; pattern: string; timezone: string | undefined } | { kind: 'every'; intervalMs: number };

export type ScheduleParse = { ok: true; schedule: Schedule } | { ok: false; error: string };

// robfig's descriptors, written as 6-field patterns (node-cron knows some, not @annually/@midnight).
const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

/** Shorter intervals would make a MysqlBackup (and a Job) per second: refused, like a typo. */
export const MIN_EVERY_MS = 1000;

export function parseSchedule(text: string): ScheduleParse {
  let rest = text.trim();
  let timezone: string | undefined;
  const tz = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(rest);
  if (tz) {
    timezone = tz[1]!;
    if (!validTimeZone(timezone)) return { ok: false, error: `unknown time zone ${JSON.stringify(timezone)}` };
    rest = rest.slice(tz[0].length).trim();
  }
  if (!rest) return { ok: false, error: 'empty schedule' };
  if (rest.startsWith('@every')) {
    const arg = rest.slice('@every'.length).trim();
    const ms = parseDuration(arg);
    if (ms === undefined) return { ok: false, error: `@every needs a duration such as 1h or 90m, got ${JSON.stringify(arg)}` };
    if (ms < MIN_EVERY_MS) return { ok: false, error: `@every ${arg} is shorter than 1s` };
    return { ok: true, schedule: { kind: 'every', intervalMs: ms } };
  }
  const pattern = rest.startsWith('@') ? DESCRIPTORS[rest] : rest;
  if (pattern === undefined)
    return {
      ok: false,
      error: `unknown descriptor ${JSON.stringify(rest)} (known: ${Object.keys(DESCRIPTORS).join(', ')}, @every <duration>)`,
    };
  const fields = pattern.split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return { ok: false, error: `expected 5 fields, or 6 with seconds first; got ${fields}` };
  const v = cron.validateDetailed(pattern);
  if (!v.valid)
    return { ok: false, error: v.errors.map((e) => (e.field === 'expression' ? e.message : `${e.field}: ${e.message}`)).join('; ') };
  return { ok: true, schedule: { kind: 'cron', pattern, timezone } };
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Two parses that schedule the same ticks (a spec edit that changes nothing keeps the timer). */
export function sameSchedule(a: Schedule, b: Schedule): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** How far back an operator that takes over a schedule (a restart, a change of leader) looks for a tick no operator ran. */
export const CATCH_UP_WINDOW_MS = 6 * 3600_000;

/**
 * The latest tick of `schedule` after `after` and at or before `upTo`, looking back at most
 * CATCH_UP_WINDOW_MS; undefined when there is none. Minute by minute: every allowed second of a
 * minute whose other fields match is a tick, so one match per minute tells (at most 360 matches).
 */
export function latestTickBetween(schedule: Schedule, after: Date, upTo: Date): Date | undefined {
  const from = Math.max(after.getTime(), upTo.getTime() - CATCH_UP_WINDOW_MS);
  const end = Math.floor(upTo.getTime() / 1000) * 1000;
  if (schedule.kind === 'every') {
    const last = Math.floor(end / schedule.intervalMs) * schedule.intervalMs;
    return last > from ? new Date(last) : undefined;
  }
  const seconds = [...cron.parse(schedule.pattern).second].sort((a, b) => b - a);
  const matcher = cron.createTask(schedule.pattern, () => undefined, schedule.timezone ? { timezone: schedule.timezone } : {});
  try {
    for (let minute = Math.floor(end / 60_000) * 60_000; minute + 60_000 > from; minute -= 60_000) {
      if (!matcher.match(new Date(minute + seconds[0]! * 1000))) continue;
      const second = seconds.find((sec) => minute + sec * 1000 <= end && minute + sec * 1000 > from);
      if (second !== undefined) return new Date(minute + second * 1000);
    }
    return undefined;
  } finally {
    void matcher.destroy();
  }
}
