// Waiting in tests for something another process, thread or timer brings about: the one polling
// helper the unit and integration tests share.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` until it returns something other than undefined or false, and returns that. A
 * probe that throws has not succeeded yet (a server still starting, an assertion not yet true).
 * After `timeoutMs`, a bound on waiting and not a timing assertion, it fails naming `what` and
 * the probe's last error.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  // Short first pauses keep fast conditions fast; the cap keeps long waits from loading the
  // servers under test with probes.
  for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last === undefined ? '' : `: ${last instanceof Error ? last.message : String(last)}`;
      throw new Error(`timed out waiting for ${what}${why}`);
    }
    await sleep(pause);
  }
}
