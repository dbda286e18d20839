// Which recoveries of Orchestrator's audit are failovers the operator has not counted yet
// (mysql_operator_failovers_total). Pure; the controller keeps `seen` per cluster in memory.
//
// At the first look at a cluster (operator start, a new cluster, a new leader) everything already
// in the audit is history, not news: it is remembered without being counted. After that a recovery
// is counted once, when it has ended (its outcome is known), by its UID: an id is only unique
// within one Orchestrator backend. `seen` keeps only what the audit's newest page still shows, so
// it does not grow with the cluster's age.
import type { Recovery } from '../../orchestrator/index.ts';

export interface FailoverCount {
  seen: Set<string>;
  counted: Recovery[];
}

export function countFailovers(seen: ReadonlySet<string> | undefined, recoveries: readonly Recovery[]): FailoverCount {
  if (seen === undefined) return { seen: new Set(recoveries.map((r) => r.uid)), counted: [] };
  const next = new Set<string>();
  const counted: Recovery[] = [];
  for (const r of recoveries) {
    if (seen.has(r.uid)) next.add(r.uid);
    else if (r.ended) {
      counted.push(r);
      next.add(r.uid);
    }
  }
  return { seen: next, counted };
}
