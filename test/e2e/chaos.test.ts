// The chaos suite of issue 22 (docs/failure-modes.md) on the composed sandbox: a 3-node MariaDB
// cluster with every pod's link delayed (LINK_DELAY_MS each way, sandbox/faults/), clients writing
// through the master Service as root and as the example MysqlUser, and the faults one at a time,
// each several times: the master's mysqld killed, the master pod lost, the master partitioned,
// a switchover, a replica pod lost. Semi-sync: 0 acknowledged writes lost, never two pods with
// role=master, writes resume after each. Async, under the same lag: writes are lost (the test
// that shows the suite can fail for the property it names).
// It runs with E2E_CHAOS=1 (CI's time limit has no room for it). Rounds: CHAOS_ROUNDS (default 1:
// 5 faults; 4 gives the 20 faults in semi-sync; CHAOS_ONLY=mysqld-kill,... narrows them). The async half runs with CHAOS_ASYNC=1 (and in bench/chaos.ts, which measures both
// modes): the lossy faults until a loss shows, at most CHAOS_ASYNC_MAX faults (default 8).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import {
  CHAOS_FAULTS,
  chosenFaults,
  modeSkip,
  outcomeLine,
  runFault,
  startChaosCluster,
  type ChaosFault,
  type ChaosLab,
  type FaultOutcome,
} from '../support/chaos.ts';
import { watchMasters, type MasterWatch } from '../support/master-watch.ts';
import { e2eChartValues, printSandboxOnFailure, sandboxSkip } from '../support/sandbox.ts';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 1);
const ASYNC_MAX = Number(process.env.CHAOS_ASYNC_MAX ?? 8);
/** CHAOS_ONLY narrows the semi-sync round to the faults it names (looking at one closely). */
const FAULTS = chosenFaults();
/** The faults where an async master's last commits can be cut off. */
const LOSSY: readonly ChaosFault[] = ['master-pod-loss', 'master-partition'];

/** CI's 25 minutes hold the other e2e files but not this one (6-11 min a round): it runs when asked. */
const chaosSkip = (): string | false =>
  sandboxSkip() || (process.env.E2E_CHAOS === '1' ? false : "the chaos suite runs with E2E_CHAOS=1 (it does not fit in CI's time limit)");

describe('chaos: faults under replication lag on the sandbox', { skip: chaosSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-chaos-'));
  let sb: Sandbox;
  const cleanups: (() => void)[] = [];
  before(async () => {
    sb = await startSandbox({ workDir, chartValues: e2eChartValues() });
    await sb.ready;
  });
  after(async () => {
    for (const fn of cleanups) fn();
    await sb?.stop();
  });
  printSandboxOnFailure(() => sb);

  const start = async (mode: 'async' | 'semiSync'): Promise<{ lab: ChaosLab; watch: MasterWatch }> => {
    const lab = await startChaosCluster(sb, mode, `chaos-${mode.toLowerCase()}`);
    const watch = await watchMasters(sb.client, lab.c.namespace, lab.c.name, { after: (fn: () => void) => cleanups.push(fn) });
    return { lab, watch };
  };

  it('semi-sync: every fault, several times, loses no acknowledged write, never shows two masters, and writes resume', {
    skip: modeSkip('semiSync'),
    // A fault with its recovery takes minutes on a loaded machine (a rebuilt old master clones
    // under the delayed link): npm test's 10 minutes per test would end a 4-round run part way.
    timeout: (ROUNDS * FAULTS.length + 2) * 5 * 60_000,
  }, async () => {
    const { lab, watch } = await start('semiSync');
    const outcomes: FaultOutcome[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, fault] of FAULTS.entries()) {
        const o = await runFault(lab, watch, fault, (round * FAULTS.length + i + 1) * 1_000_000);
        console.log(outcomeLine(o));
        outcomes.push(o);
        assert.deepEqual(o.lost, [], `${fault} (round ${round + 1}) lost acknowledged writes`);
        assert.ok(o.acked > 0);
      }
    }
    assert.equal(outcomes.length, ROUNDS * FAULTS.length, `${outcomes.length} faults`);
    assert.deepEqual(watch.violations, [], 'never two pods with role=master');
  });

  it('async, under the same lag: the same faults lose acknowledged writes (the suite can fail)', {
    skip:
      modeSkip('async') ||
      (process.env.CHAOS_ASYNC === '1' ? false : 'the async half runs with CHAOS_ASYNC=1 and in bench/chaos.ts (CI time)'),
  }, async () => {
    const { lab, watch } = await start('async');
    const outcomes: FaultOutcome[] = [];
    // One of each fault first (the whole suite's faults run in this mode too), the partition last
    // (its old master may take longest to rejoin), then the lossy ones until a loss shows.
    const plan: ChaosFault[] = ['master-pod-loss', 'mysqld-kill', 'switchover', 'replica-pod-loss', 'master-partition'];
    while (plan.length < ASYNC_MAX) plan.push(LOSSY[plan.length % LOSSY.length]!);
    for (const [i, fault] of plan.entries()) {
      const o = await runFault(lab, watch, fault, (i + 1) * 1_000_000);
      console.log(outcomeLine(o));
      outcomes.push(o);
      if (i >= CHAOS_FAULTS.length - 1 && outcomes.some((x) => x.lost.length > 0)) break;
    }
    const lost = outcomes.reduce((n, o) => n + o.lost.length, 0);
    console.log(`chaos async: ${lost} acknowledged writes lost over ${outcomes.length} faults`);
    assert.ok(
      lost > 0,
      `async replication under ${outcomes.length} faults lost no acknowledged write: the lag is not enough to show a loss`,
    );
    assert.deepEqual(watch.violations, [], 'never two pods with role=master');
  });
});
