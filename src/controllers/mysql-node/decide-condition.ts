// The pod condition `mysql.presslabs.org/NodeInitialized` (anchor: not a readiness gate, just the
// story of the node's configuration). Pure: the condition to write, or null when the pod already
// says exactly that (zero writes in steady state); and what it says about the last check.
import { CONDITION_STATUS, POD_CONDITION_NODE_INITIALIZED, POD_INIT_REASONS } from '../../api/constants.ts';
import { redactString } from '../../runtime/redact.ts';
import { mysqlContainer, type PodCondition, type PodObject } from '../../topology/index.ts';
import { kubeTime, transitionTime } from '../shared/condition-time.ts';

/** `verified`: the operator just checked the node; stamped into lastProbeTime (see NodePod). */
export type NodeOutcome = { configured: true; verified: boolean } | { configured: false; reason: string; message: string };

/** The anchor's message for success. */
export const SUCCESS_MESSAGE = 'success';

export function nodeInitializedCondition(
  outcome: NodeOutcome,
  current: readonly PodCondition[] | undefined,
  now: Date,
): PodCondition | null {
  const status = outcome.configured ? CONDITION_STATUS.true : CONDITION_STATUS.false;
  const reason = outcome.configured ? POD_INIT_REASONS.succeeded : POD_INIT_REASONS.failed;
  // Redacted as Events are: the message quotes server error text, which can hold a password
  // (MariaDB's Last_SQL_Error quotes a failed CREATE USER ... IDENTIFIED BY '...').
  const message = outcome.configured ? SUCCESS_MESSAGE : redactString(`${outcome.reason}: ${outcome.message}`);
  const stamp = outcome.configured && outcome.verified;
  const time = kubeTime(now);
  const old = current?.find((c) => c.type === POD_CONDITION_NODE_INITIALIZED);
  const same = old && old.status === status && old.reason === reason && old.message === message;
  if (same && (!stamp || old.lastProbeTime === time)) return null;
  const lastTransitionTime = transitionTime(old, status, now);
  const lastProbeTime = stamp ? time : old?.lastProbeTime;
  // No null in the patch: in a strategic merge patch it would mean "delete this field".
  return { type: POD_CONDITION_NODE_INITIALIZED, status, reason, message, lastTransitionTime, ...(lastProbeTime ? { lastProbeTime } : {}) };
}

/** The operator verified the node after its mysql container last started (NodeInitialized's lastProbeTime). */
export function verifiedSinceStart(pod: PodObject): boolean {
  const c = pod.status?.conditions?.find((x) => x.type === POD_CONDITION_NODE_INITIALIZED);
  if (c?.status !== CONDITION_STATUS.true || !c.lastProbeTime) return false;
  const startedAt = mysqlContainer(pod)?.state?.running?.startedAt;
  if (!startedAt) return true;
  // Kubernetes times have whole seconds: a check in the very second of a start may have preceded
  // it, so only a later second counts.
  return Math.floor(Date.parse(c.lastProbeTime) / 1000) > Math.floor(Date.parse(startedAt) / 1000);
}
