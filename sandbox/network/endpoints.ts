// Which pods stand behind a Service, as the endpoints controller and kube-proxy decide it: the
// Service's selector matches the pod's labels in the Service's namespace, and the pod is ready
// (Running, Ready=True, not terminating, with an IP), or merely has an IP when the Service
// publishes not-ready addresses. Pure, shared by the hosts files and the Service proxy.
import type { V1Pod, V1Service, V1ServicePort } from '@kubernetes/client-node';

export function podIp(pod: V1Pod): string | undefined {
  return pod.status?.podIP || undefined;
}

export function podReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    podIp(pod) !== undefined &&
    (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

export function isHeadless(svc: V1Service): boolean {
  return svc.spec?.clusterIP === 'None';
}

/** The pods a Service's DNS name and proxy lead to; none for a Service without a selector. */
export function servicePods(svc: V1Service, pods: readonly V1Pod[], opts: { publishNotReady?: boolean } = {}): V1Pod[] {
  const selector = svc.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return [];
  const notReadyToo = opts.publishNotReady ?? svc.spec?.publishNotReadyAddresses === true;
  return pods.filter((p) => {
    if (p.metadata?.namespace !== svc.metadata?.namespace) return false;
    const labels = p.metadata?.labels ?? {};
    if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
    return notReadyToo ? podIp(p) !== undefined && !p.metadata?.deletionTimestamp : podReady(p);
  });
}

/** The pod port a Service port leads to: `targetPort` as a number, or the container port of that name; the Service port when unset. */
export function targetPort(port: V1ServicePort, pod: V1Pod): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP')) return p.containerPort;
  }
  return undefined;
}
