// Benchmark of the chaos faults (issue 22, docs/failure-modes.md): per fault and per replication
// mode, in one run on one sandbox, the time to detect (fault → role=master moved off the failed
// pod), the write outage (fault → the first write acknowledged through the master Service that
// began after it) and the acknowledged writes lost. The scenario
// (test/support/chaos.ts): 3 MariaDB nodes, every pod's link delayed 50 ms each way, a root and an
// application client each writing every 100 ms.
//
// Modes: async, and semiSync when the CRD has spec.replication.mode (branch semisync; its figures
// are null otherwise). Headline ratio: the median write outage over every fault in semiSync / the
// same in async, measured in this run (above 1: what losing nothing costs in outage); null
// without semiSync.
// `--quick`: one of each fault per mode (default 3).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../sandbox/index.ts';
import {
  CHAOS_FAULTS,
  modeSkip,
  outcomeLine,
  runFault,
  startChaosCluster,
  type FaultOutcome,
  type ReplicationMode,
} from '../test/support/chaos.ts';
import { watchMasters } from '../test/support/master-watch.ts';

const quick = process.argv.includes('--quick');
const TIMES = quick ? 1 : Number(process.env.CHAOS_BENCH_TIMES ?? 3);
const MODES: readonly ReplicationMode[] = ['async', 'semiSync'];

const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const secs = (ms: number | null): number | null => (ms === null ? null : Math.round(ms) / 1000);

const sb = await startSandbox({ workDir: mkdtempSync(join(tmpdir(), 'bench-chaos-')) });
const cleanups: (() => void)[] = [];
const outcomes: FaultOutcome[] = [];
const skipped: Record<string, string> = {};
try {
  await sb.ready;
  for (const mode of MODES) {
    const why = modeSkip(mode);
    if (why) {
      skipped[mode] = why;
      console.log(`chaos bench: ${mode} not measured: ${why}`);
      continue;
    }
    const lab = await startChaosCluster(sb, mode, `bench-${mode.toLowerCase()}`);
    const watch = await watchMasters(sb.client, lab.c.namespace, lab.c.name, { after: (fn: () => void) => cleanups.push(fn) });
    let n = 0;
    for (let round = 0; round < TIMES; round++) {
      for (const fault of CHAOS_FAULTS) {
        const o = await runFault(lab, watch, fault, ++n * 1_000_000);
        console.log(outcomeLine(o));
        outcomes.push(o);
      }
    }
    if (watch.violations.length) console.log(`chaos bench ${mode}: two pods with role=master at ${watch.violations.join('; ')}`);
    await sb.kubectl(['delete', 'namespace', lab.c.namespace, '--wait=false']);
  }
} finally {
  for (const fn of cleanups) fn();
  await sb.stop();
}

const figures: Record<string, number | null> = {};
for (const mode of MODES) {
  for (const fault of CHAOS_FAULTS) {
    const of = outcomes.filter((o) => o.mode === mode && o.fault === fault);
    const key = `${mode === 'semiSync' ? 'semisync' : 'async'}_${fault.replaceAll('-', '_')}`;
    figures[`${key}_runs`] = of.length;
    figures[`${key}_detect_median_s`] = secs(median(of.flatMap((o) => (o.detectMs === undefined ? [] : [o.detectMs]))));
    figures[`${key}_outage_median_s`] = secs(median(of.map((o) => o.outageMs)));
    figures[`${key}_outage_max_s`] = of.length ? secs(Math.max(...of.map((o) => o.outageMs))) : null;
    figures[`${key}_lost`] = of.length ? of.reduce((n, o) => n + o.lost.length, 0) : null;
    figures[`${key}_acked`] = of.length ? of.reduce((n, o) => n + o.acked, 0) : null;
  }
}
const outageOf = (mode: ReplicationMode) => median(outcomes.filter((o) => o.mode === mode).map((o) => o.outageMs));
const asyncOutage = outageOf('async');
const semiOutage = outageOf('semiSync');
console.log(
  JSON.stringify({
    bench: 'chaos',
    quick,
    times: TIMES,
    skipped,
    ...figures,
    async_outage_median_s: secs(asyncOutage),
    semisync_outage_median_s: secs(semiOutage),
    ratio: asyncOutage && semiOutage ? Math.round((semiOutage / asyncOutage) * 100) / 100 : null,
  }),
);
