// The kinds the sandbox's workload controllers read and write, and the label, annotation and
// condition names Kubernetes' own controllers put on them (kube-controller-manager and
// kube-scheduler v1.26 unless said otherwise). They are Kubernetes' names, not the operator's, so
// they live here rather than in src/api/.
import type { KindRef } from '../../src/runtime/kube/types.ts';

export const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
export const PVC: KindRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
export const PV: KindRef = { apiVersion: 'v1', kind: 'PersistentVolume' };
export const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
export const ENDPOINTS: KindRef = { apiVersion: 'v1', kind: 'Endpoints' };
export const ENDPOINT_SLICE: KindRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
export const STATEFUL_SET: KindRef = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
export const CONTROLLER_REVISION: KindRef = { apiVersion: 'apps/v1', kind: 'ControllerRevision' };
export const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const REPLICA_SET: KindRef = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
export const JOB: KindRef = { apiVersion: 'batch/v1', kind: 'Job' };

export const LABEL = {
  stsPodName: 'statefulset.kubernetes.io/pod-name',
  podIndex: 'apps.kubernetes.io/pod-index',
  revisionHash: 'controller-revision-hash',
  podTemplateHash: 'pod-template-hash',
  jobName: 'job-name',
  controllerUid: 'controller-uid',
  serviceName: 'kubernetes.io/service-name',
  managedBy: 'endpointslice.kubernetes.io/managed-by',
  headless: 'service.kubernetes.io/headless',
} as const;

export const ANNOTATION = {
  deploymentRevision: 'deployment.kubernetes.io/revision',
  desiredReplicas: 'deployment.kubernetes.io/desired-replicas',
  maxReplicas: 'deployment.kubernetes.io/max-replicas',
  bindCompleted: 'pv.kubernetes.io/bind-completed',
  boundByController: 'pv.kubernetes.io/bound-by-controller',
} as const;

export const FINALIZER_PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const ENDPOINT_SLICE_MANAGER = 'endpointslice-controller.k8s.io';
export const DEFAULT_SCHEDULER = 'default-scheduler';

/** `source.component` of the Events each controller records, as kube-controller-manager names them. */
export const COMPONENT = {
  statefulSet: 'statefulset-controller',
  deployment: 'deployment-controller',
  replicaSet: 'replicaset-controller',
  job: 'job-controller',
  volume: 'persistentvolume-controller',
  scheduler: 'default-scheduler',
  endpointSlice: 'endpointslice-controller',
} as const;
