// How many pods the StatefulSet gets when spec.replicas shrinks it (docs/switchover.md,
// "Scale-down"). A StatefulSet removes its highest ordinals; when the master is one of them, the
// StatefulSet keeps its size until the orchestrator controller has handed the master to a pod
// that stays (decide-handover.ts there), so the master moves once, to a pod of the operator's
// choosing, instead of by the preStop's `-auto` takeover to whichever replica Orchestrator picks
// (possibly one removed next). The wait is bounded: past SCALE_DOWN_HOLD_SECONDS the StatefulSet
// shrinks anyway and the preStop or a failover moves the master, as in the anchor.
import { CLUSTER_REASONS, SCALE_DOWN_HOLD_SECONDS } from '../../api/constants.ts';

export interface ScaleDownInput {
  /** spec.replicas. */
  wanted: number;
  /** The StatefulSet's spec.replicas now; undefined before it exists. */
  current: number | undefined;
  /** The pod labelled role=master and not being deleted, if any. */
  master: { name: string; ordinal: number } | undefined;
  /** When the Synced condition turned ScaleDownHeld, if it is now. */
  heldSince: Date | undefined;
  now: Date;
}

export type ScaleDownDecision =
  | { kind: 'scale'; replicas: number }
  /** The wait ran out: shrink, and say so. */
  | { kind: 'expired'; replicas: number; reason: string; message: string }
  /** Keep the current size: the Synced condition says why. */
  | { kind: 'hold'; replicas: number; reason: string; message: string };

export function decideScaleDown(i: ScaleDownInput): ScaleDownDecision {
  const scale: ScaleDownDecision = { kind: 'scale', replicas: i.wanted };
  if (i.current === undefined || i.wanted >= i.current || i.wanted < 1) return scale;
  if (i.master === undefined || i.master.ordinal < i.wanted) return scale;
  const what = `spec.replicas ${i.wanted} removes the master ${i.master.name} (ordinal ${i.master.ordinal})`;
  const waited = i.heldSince === undefined ? 0 : (i.now.getTime() - i.heldSince.getTime()) / 1000;
  if (waited >= SCALE_DOWN_HOLD_SECONDS) {
    return {
      kind: 'expired',
      replicas: i.wanted,
      reason: CLUSTER_REASONS.scaleDownHoldExpired,
      message: `${what}, and it was not handed to a pod that stays within ${SCALE_DOWN_HOLD_SECONDS}s: the StatefulSet shrinks to ${i.wanted}; its preStop or a failover moves the master`,
    };
  }
  return {
    kind: 'hold',
    replicas: i.current,
    reason: CLUSTER_REASONS.scaleDownHeld,
    message: `${what}: the StatefulSet keeps ${i.current} pods until the master is handed to a pod that stays (at most ${SCALE_DOWN_HOLD_SECONDS}s)`,
  };
}
