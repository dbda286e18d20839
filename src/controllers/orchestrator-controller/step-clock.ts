// Where a pass spends its time, for the hook-to-label latency (the timings option of bench/failover-routing).

/** Milliseconds since the pass began at the end of each named step. */
export class StepClock {
  readonly #start = performance.now();
  readonly laps: Record<string, number> = {};
  lap(step: string): void {
    this.laps[step] = Math.round(performance.now() - this.#start);
  }
}
