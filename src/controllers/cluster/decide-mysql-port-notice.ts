// Whether the cluster controller announces the narrowing of MySQL's port (issue 23 item 2,
// docs/network-policies.md "Upgraded and adopted clusters"): one Normal Event, the first time the
// default policy (spec.networkPolicy.mysqlFrom unset: the cluster's own namespace, the operator,
// Orchestrator) is written on a cluster whose port was open to every source before. Pure.
import { PORT } from '../../api/constants.ts';
import type { MysqlClusterSpec } from '../../api/index.ts';
import type { ClusterRef } from '../../api/names.ts';
import type { NetworkPolicyIngressRule, NetworkPolicyObject } from './render-network-policy.ts';

/** A rule whose `from` is missing or empty lets every source in (the API's reading). */
function openToAll(rule: NetworkPolicyIngressRule): boolean {
  return rule.from === undefined || rule.from.length === 0;
}

/** The rule of a policy that covers MySQL's port (by number), if any. */
function mysqlRule(p: NetworkPolicyObject | undefined): NetworkPolicyIngressRule | undefined {
  return p?.spec?.ingress?.find((r) => r.ports?.some((port) => port.port === PORT.mysql));
}

/**
 * Whether this pass narrows MySQL's port of a cluster that ran without the narrowing: the rendered
 * policy has the default peers (spec.networkPolicy.mysqlFrom unset), it is being written, and
 * before it the port was open to every source: the policy of an older operator (no `from`), or no
 * policy at all on a cluster whose StatefulSet exists (adopted from the anchor, or
 * --network-policies turned on). A new cluster gets its policy with its StatefulSet: nothing ran
 * open, nothing to announce. Once written, the next pass finds the narrowed rule: said once.
 */
export function announceNarrowedMysqlPort(
  desired: NetworkPolicyObject | undefined,
  spec: MysqlClusterSpec,
  existing: NetworkPolicyObject | undefined,
  statefulSetExists: boolean,
  op: 'create' | 'update' | 'delete' | 'none' | 'refuse',
): boolean {
  if (!desired || spec.networkPolicy?.mysqlFrom !== undefined) return false;
  if (op !== 'create' && op !== 'update') return false;
  if (!existing) return statefulSetExists;
  const before = mysqlRule(existing);
  return before !== undefined && openToAll(before);
}

export function narrowedMysqlPortMessage(ref: ClusterRef): string {
  return (
    `MySQL's port ${PORT.mysql} of the cluster's pods now answers only pods of namespace ${ref.namespace}, the operator and ` +
    'Orchestrator (spec.networkPolicy.mysqlFrom is unset); applications in another namespace are refused until ' +
    'spec.networkPolicy.mysqlFrom names them (a namespaceSelector, with a podSelector to narrow it); docs/network-policies.md'
  );
}
