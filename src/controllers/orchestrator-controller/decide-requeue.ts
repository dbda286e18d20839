// How soon the controller looks at a cluster again when this pass changed what Orchestrator will
// show, rather than at the resync period (5 s) or the next event: a new cluster's first master is
// labelled that much sooner (issue 20: within 5 s of pod 0's server answering).
// - A server was just registered: Orchestrator names the cluster's alias at its next
//   UpdateClusterAliases tick (every InstancePollSeconds, 1 s in the chart), and only then does
//   the alias lookup find the master.
// - A master was just made writable: the next pass finds it writable and labels it.
// - No master yet while some server answers (a cluster starting): look again each tick.
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { MasterVerdict } from './decide-master.ts';

/** Orchestrator's alias tick in the chart (InstancePollSeconds). */
export const ALIAS_TICK_MS = 1000;
/** After a master was made writable: its label follows in the next pass. */
export const AFTER_WRITABLE_MS = 100;

export interface PassActions {
  /** Servers registered (discovered) in Orchestrator this pass. */
  discovered: number;
  /** Servers made writable through Orchestrator this pass. */
  madeWritable: number;
  /** A server of the cluster answered this pass. */
  anyServerAnswered: boolean;
}

/** Milliseconds until the next pass, or undefined to leave it to the resync period and events. */
export function decideRequeue(acted: PassActions, verdict: MasterVerdict): number | undefined {
  if (acted.madeWritable > 0) return AFTER_WRITABLE_MS;
  if (acted.discovered > 0) return ALIAS_TICK_MS;
  if (verdict.kind === 'none' && verdict.reason === ORCHESTRATOR_REASONS.noMaster && acted.anyServerAnswered) return ALIAS_TICK_MS;
  return undefined;
}
