// Running `count` numbered jobs with at most `concurrency` in flight, as the benchmarks' clients
// issue their bursts of requests.

/** Runs `work(0..count-1)`, `concurrency` at a time; resolves with the elapsed milliseconds. */
export async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<number> {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
  return performance.now() - start;
}
