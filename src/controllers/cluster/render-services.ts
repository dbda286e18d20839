// The four Services of docs/compatibility.md. The headless `mysql` Service is shared by every cluster of the
// namespace and has no owner: it must outlive any one cluster (see decide-shared-service.ts).
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { HEALTHY, LABEL_HEALTHY, LABEL_ROLE, LABEL_SERVICE_TYPE, PORT, PORT_NAME, ROLE, SERVICE_TYPE } from '../../api/constants.ts';
import { controllerRef, names, namespaceSelectorLabels, selectorLabels, type ClusterRef } from '../../api/names.ts';

const mysqlPort: V1ServicePort = { name: PORT_NAME.mysql, port: PORT.mysql, targetPort: PORT.mysql, protocol: 'TCP' };
// No targetPort, as the anchor: the API server fills in the port.
const sidecarPort: V1ServicePort = { name: PORT_NAME.sidecarHttp, port: PORT.sidecarHttp, protocol: 'TCP' };

export function renderHeadlessService(namespace: string): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: names.headlessService(),
      namespace,
      labels: { ...namespaceSelectorLabels(), [LABEL_SERVICE_TYPE]: SERVICE_TYPE.namespaceNodes },
    },
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: namespaceSelectorLabels(),
      ports: [
        { ...mysqlPort },
        { name: PORT_NAME.metricsExporter, port: PORT.metricsExporter, targetPort: PORT.metricsExporter, protocol: 'TCP' },
      ],
    },
  };
}

function clusterService(
  ref: ClusterRef,
  labels: Readonly<Record<string, string>>,
  name: string,
  type: string,
  selector: Record<string, string>,
  ports: V1ServicePort[],
): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: ref.namespace,
      labels: { ...labels, [LABEL_SERVICE_TYPE]: type },
      ownerReferences: [controllerRef(ref)],
    },
    spec: { selector: { ...selectorLabels(ref.name), ...selector }, ports: ports.map((p) => ({ ...p })) },
  };
}

export function renderClusterServices(ref: ClusterRef, labels: Readonly<Record<string, string>>): V1Service[] {
  const master = clusterService(ref, labels, names.masterService(ref.name), SERVICE_TYPE.master, { [LABEL_ROLE]: ROLE.master }, [
    mysqlPort,
    sidecarPort,
  ]);
  const healthy = clusterService(ref, labels, names.healthyService(ref.name), SERVICE_TYPE.readyNodes, { [LABEL_HEALTHY]: HEALTHY.yes }, [
    mysqlPort,
  ]);
  healthy.spec!.type = 'ClusterIP';
  const replicas = clusterService(
    ref,
    labels,
    names.replicasService(ref.name),
    SERVICE_TYPE.readyReplicas,
    { [LABEL_ROLE]: ROLE.replica, [LABEL_HEALTHY]: HEALTHY.yes },
    [mysqlPort, sidecarPort],
  );
  return [master, healthy, replicas];
}
