// events.k8s.io/v1 Events are a second view of core/v1 Events, as in kube-apiserver: one storage,
// both APIs list and watch the same objects (an Event recorded through either shows in
// `kubectl describe`, which reads core/v1).
import type { KObj } from './types.ts';

const PAIRS: [view: string, core: string][] = [
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['regarding', 'involvedObject'],
  ['related', 'related'],
  ['note', 'message'],
  ['type', 'type'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function empty(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === '' ||
    v === 0 ||
    (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as KObj).length === 0)
  );
}

/** What Go encodes even when zero: structs (`{}`) and metav1.Time/MicroTime (`null`). */
const ALWAYS: Record<string, unknown> = {
  eventTime: null,
  regarding: {},
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
};

/** A stored core/v1 Event as events.k8s.io/v1 shows it (Go omits the other empty fields). */
export function eventToView(core: KObj): KObj {
  const out: KObj = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: core.metadata };
  for (const [view, field] of PAIRS) {
    const v = core[field];
    if (!empty(v)) out[view] = v;
    else if (Object.hasOwn(ALWAYS, view)) out[view] = v ?? ALWAYS[view];
  }
  return out;
}

/** An events.k8s.io/v1 Event as core/v1 stores it. */
export function eventFromView(view: KObj): KObj {
  const out: KObj = { kind: 'Event', apiVersion: 'v1', metadata: view.metadata };
  for (const [v, field] of PAIRS) if (view[v] !== undefined) out[field] = view[v];
  out.involvedObject ??= {};
  out.source ??= {};
  return out;
}

/** Field selector paths of the events.k8s.io view, in core/v1 terms. */
export function eventSelectorToCore(selector: string): string {
  return selector.replace(/(^|,)\s*([A-Za-z]+)/g, (m, sep: string, head: string) => {
    const pair = PAIRS.find(([v]) => v === head);
    return pair ? `${sep}${pair[1]}` : m;
  });
}
