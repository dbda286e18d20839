// Endpoints and EndpointSlices of a Service with a selector (pkg/controller/endpointslice and
// pkg/controller/endpoint, v1.26): every pod the selector matches that has an IP and has not
// finished is an endpoint, with ready = publishNotReadyAddresses or (Ready and not terminating),
// serving = publishNotReadyAddresses or Ready, terminating = being deleted. Endpoints leave out
// terminating pods unless publishNotReadyAddresses. Pods whose ports resolve alike share a slice;
// a Service with no endpoints keeps one empty slice, as the real controller's placeholder.
import type {
  V1EndpointAddress,
  V1Endpoints,
  V1EndpointSubset,
  V1Pod,
  V1Service,
  V1ServicePort,
  CoreV1EndpointPort,
} from '@kubernetes/client-node';
import { ENDPOINT_SLICE_MANAGER, LABEL } from './kinds.ts';
import { controllerRef, isReady, isTerminating, matchesSelector, sameJson } from './pods.ts';

/** discovery.k8s.io/v1 EndpointSlice, as plain JSON. */
export interface EndpointSlice {
  apiVersion: 'discovery.k8s.io/v1';
  kind: 'EndpointSlice';
  metadata: {
    name?: string;
    generateName?: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences?: ReturnType<typeof controllerRef>[];
  };
  addressType: 'IPv4';
  endpoints: SliceEndpoint[];
  ports: SlicePort[];
}

export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string };
  nodeName?: string;
}

export interface SlicePort {
  name: string;
  protocol: string;
  port: number;
  appProtocol?: string;
}

export interface EndpointsState {
  service: V1Service;
  pods: V1Pod[];
  /** The slices this controller manages for the Service. */
  slices: EndpointSlice[];
  endpoints: V1Endpoints | undefined;
}

export interface EndpointsPlan {
  create: EndpointSlice[];
  update: { name: string; slice: EndpointSlice }[];
  remove: string[];
  /** The Endpoints object to write (create or replace its labels and subsets), if it differs. */
  endpoints?: V1Endpoints;
}

/** Whether the controllers manage endpoints for this Service at all. */
export function hasSelector(s: V1Service): boolean {
  return Object.keys(s.spec?.selector ?? {}).length > 0 && s.spec?.type !== 'ExternalName';
}

/** ShouldPodBeInEndpoints: an IP, not finished (per restart policy), terminating only if asked. */
function inEndpoints(p: V1Pod, includeTerminating: boolean): boolean {
  if (!p.status?.podIP && !(p.status?.podIPs ?? []).length) return false;
  if (!includeTerminating && isTerminating(p)) return false;
  const phase = p.status?.phase;
  const policy = p.spec?.restartPolicy ?? 'Always';
  if (policy === 'Never') return phase !== 'Failed' && phase !== 'Succeeded';
  if (policy === 'OnFailure') return phase !== 'Succeeded';
  return true;
}

/** The pod's ports for the Service's (a named targetPort the pod lacks leaves that port out). */
function portsFor(service: V1Service, pod: V1Pod): SlicePort[] {
  const out: SlicePort[] = [];
  for (const sp of service.spec?.ports ?? []) {
    const port = resolvePort(sp, pod);
    if (port === undefined) continue;
    out.push({ name: sp.name ?? '', protocol: sp.protocol ?? 'TCP', port, ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
  }
  return out;
}

function resolvePort(sp: V1ServicePort, pod: V1Pod): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec?.containers ?? []) {
    const found = (c.ports ?? []).find((p) => p.name === target && (p.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'));
    if (found) return found.containerPort;
  }
  return undefined;
}

function serviceLabels(service: V1Service): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
  if (service.spec?.clusterIP === 'None') labels[LABEL.headless] = '';
  return labels;
}

function byName<T extends { targetRef?: { name?: string } }>(a: T, b: T): number {
  return (a.targetRef?.name ?? '').localeCompare(b.targetRef?.name ?? '');
}

export function decideEndpoints(state: EndpointsState): EndpointsPlan {
  const { service, slices } = state;
  const ns = service.metadata!.namespace!;
  const name = service.metadata!.name!;
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const selected = state.pods.filter((p) => matchesSelector({ matchLabels: service.spec?.selector ?? {} }, p.metadata?.labels));

  const groups = new Map<string, { ports: SlicePort[]; endpoints: SliceEndpoint[] }>();
  for (const p of selected) {
    if (!inEndpoints(p, true)) continue;
    const ports = portsFor(service, p);
    const key = JSON.stringify(ports);
    const serving = publishNotReady || isReady(p);
    const terminating = isTerminating(p);
    const ep: SliceEndpoint = {
      addresses: [p.status?.podIP ?? p.status!.podIPs![0]!.ip],
      conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating },
      ...(p.spec?.hostname && p.spec.subdomain === name ? { hostname: p.spec.hostname } : {}),
      targetRef: { kind: 'Pod', namespace: ns, name: p.metadata!.name!, uid: p.metadata!.uid! },
      ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
    };
    const g = groups.get(key) ?? { ports, endpoints: [] };
    g.endpoints.push(ep);
    groups.set(key, g);
  }
  if (groups.size === 0) groups.set('placeholder', { ports: [], endpoints: [] });

  const labels = { ...serviceLabels(service), [LABEL.serviceName]: name, [LABEL.managedBy]: ENDPOINT_SLICE_MANAGER };
  const plan: EndpointsPlan = { create: [], update: [], remove: [] };
  const unused = new Set(slices.map((s) => s.metadata.name!));
  for (const g of groups.values()) {
    const desired: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { generateName: `${name}-`, namespace: ns, labels, ownerReferences: [controllerRef(service)] },
      addressType: 'IPv4',
      endpoints: g.endpoints.sort(byName),
      ports: g.ports,
    };
    const existing = slices.find((s) => unused.has(s.metadata.name!) && sameJson(s.ports ?? [], g.ports));
    if (!existing) {
      plan.create.push(desired);
      continue;
    }
    unused.delete(existing.metadata.name!);
    const same = sameJson(existing.endpoints ?? [], desired.endpoints) && sameJson(existing.metadata.labels ?? {}, labels);
    if (!same) plan.update.push({ name: existing.metadata.name!, slice: desired });
  }
  plan.remove = [...unused];

  const endpoints = desiredEndpoints(service, selected, publishNotReady);
  const current = state.endpoints;
  if (
    !current ||
    !sameJson(current.subsets ?? [], endpoints.subsets ?? []) ||
    !sameJson(current.metadata?.labels ?? {}, endpoints.metadata?.labels ?? {})
  ) {
    plan.endpoints = endpoints;
  }
  return plan;
}

function desiredEndpoints(service: V1Service, pods: V1Pod[], publishNotReady: boolean): V1Endpoints {
  const ns = service.metadata!.namespace!;
  const name = service.metadata!.name!;
  const subsets = new Map<string, V1EndpointSubset>();
  for (const p of pods) {
    if (!inEndpoints(p, publishNotReady)) continue;
    const ports: CoreV1EndpointPort[] = portsFor(service, p);
    if (ports.length === 0) continue;
    const key = JSON.stringify(ports);
    const subset: V1EndpointSubset = subsets.get(key) ?? { ports };
    const address: V1EndpointAddress = {
      ip: p.status?.podIP ?? p.status!.podIPs![0]!.ip,
      ...(p.spec?.hostname && p.spec.subdomain === name ? { hostname: p.spec.hostname } : {}),
      ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: ns, name: p.metadata!.name!, uid: p.metadata!.uid! },
    };
    if (publishNotReady || isReady(p)) subset.addresses = [...(subset.addresses ?? []), address].sort((a, b) => a.ip.localeCompare(b.ip));
    else subset.notReadyAddresses = [...(subset.notReadyAddresses ?? []), address].sort((a, b) => a.ip.localeCompare(b.ip));
    subsets.set(key, subset);
  }
  const list = [...subsets.values()].map((s) => ({
    ...(s.addresses ? { addresses: s.addresses } : {}),
    ...(s.notReadyAddresses ? { notReadyAddresses: s.notReadyAddresses } : {}),
    ports: s.ports,
  }));
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace: ns, labels: serviceLabels(service) },
    ...(list.length > 0 ? { subsets: list } : {}),
  };
}
