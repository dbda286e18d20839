// Runs a parsed schedule: node-cron for cron patterns, a timer for `@every`. Behind one function
// type so the controller can be given a ticker the tests fire by hand (a clock they control).
import cron from 'node-cron';
import type { Schedule } from './schedule.ts';

export interface Ticker {
  stop(): void;
}

/**
 * Calls `onTick` with each tick's scheduled time (not the time the callback ran). `onTick`'s
 * promise settles when the tick's work is done: a ticker driven by a test awaits it.
 */
export type StartTicker = (schedule: Schedule, onTick: (at: Date) => Promise<void>) => Ticker;

/**
 * `@every` ticks fall on multiples of the interval since the epoch, not on multiples since the
 * operator started (robfig's way): the tick times, and so the backup names, are the same
 * whichever replica schedules them and after any restart.
 */
export function nextEveryTick(nowMs: number, intervalMs: number): number {
  return (Math.floor(nowMs / intervalMs) + 1) * intervalMs;
}

export const startTicker: StartTicker = (schedule, onTick) => {
  if (schedule.kind === 'cron') {
    const task = cron.schedule(schedule.pattern, (c) => void onTick(c.date), {
      ...(schedule.timezone ? { timezone: schedule.timezone } : {}),
      // A tick delayed by a busy event loop is still a tick: the name makes it run at most once.
      suppressMissedWarning: true,
    });
    return { stop: () => void task.destroy() };
  }
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const next = nextEveryTick(Date.now(), schedule.intervalMs);
    timer = setTimeout(() => {
      void onTick(new Date(next));
      arm();
    }, next - Date.now());
  };
  arm();
  return { stop: () => clearTimeout(timer) };
};
