// Key order of built-in objects as Go's encoding/json writes them: struct field order. Only the
// types the operator and the sandbox use are listed; other fields keep the order they came in.
import { isPlainObject } from './structural/index.ts';
import type { KObj } from './types.ts';

interface TypeInfo {
  order: string[];
  /** Field -> type name; `[]T` a list of T, `map[T]` a map of T (keys sorted, as Go sorts maps). */
  fields?: Record<string, string>;
}

const PROPS = 'JSONSchemaProps';

const TYPES: Record<string, TypeInfo> = {
  ObjectMeta: {
    order: ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'],
  },
  Service: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'ServiceSpec' } },
  ServiceSpec: {
    order: ['ports', 'selector', 'clusterIP', 'clusterIPs', 'type', 'externalIPs', 'sessionAffinity', 'loadBalancerIP', 'loadBalancerSourceRanges', 'externalName', 'externalTrafficPolicy', 'healthCheckNodePort', 'publishNotReadyAddresses', 'sessionAffinityConfig', 'ipFamilies', 'ipFamilyPolicy', 'allocateLoadBalancerNodePorts', 'loadBalancerClass', 'internalTrafficPolicy'],
    fields: { ports: '[]ServicePort' },
  },
  ServicePort: { order: ['name', 'protocol', 'appProtocol', 'port', 'targetPort', 'nodePort'] },
  StatefulSet: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'StatefulSetSpec', status: 'StatefulSetStatus' } },
  StatefulSetSpec: {
    order: ['replicas', 'selector', 'template', 'volumeClaimTemplates', 'serviceName', 'podManagementPolicy', 'updateStrategy', 'revisionHistoryLimit', 'minReadySeconds', 'persistentVolumeClaimRetentionPolicy', 'ordinals'],
    fields: { template: 'PodTemplateSpec', volumeClaimTemplates: '[]PersistentVolumeClaim', updateStrategy: 'StatefulSetUpdateStrategy' },
  },
  StatefulSetUpdateStrategy: { order: ['type', 'rollingUpdate'], fields: { rollingUpdate: 'RollingUpdate' } },
  RollingUpdate: { order: ['partition', 'maxUnavailable'] },
  StatefulSetStatus: { order: ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'currentRevision', 'updateRevision', 'collisionCount', 'conditions', 'availableReplicas'] },
  Deployment: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'DeploymentSpec' } },
  DeploymentSpec: { order: ['replicas', 'selector', 'template', 'strategy', 'minReadySeconds', 'revisionHistoryLimit', 'paused', 'progressDeadlineSeconds'], fields: { template: 'PodTemplateSpec' } },
  Job: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'JobSpec' } },
  JobSpec: { order: ['parallelism', 'completions', 'activeDeadlineSeconds', 'podFailurePolicy', 'backoffLimit', 'selector', 'manualSelector', 'template', 'ttlSecondsAfterFinished', 'completionMode', 'suspend'], fields: { template: 'PodTemplateSpec' } },
  CronJob: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'CronJobSpec' } },
  CronJobSpec: { order: ['schedule', 'timeZone', 'startingDeadlineSeconds', 'concurrencyPolicy', 'suspend', 'jobTemplate', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'], fields: { jobTemplate: 'JobTemplateSpec' } },
  JobTemplateSpec: { order: ['metadata', 'spec'], fields: { metadata: 'ObjectMeta', spec: 'JobSpec' } },
  PodTemplateSpec: { order: ['metadata', 'spec'], fields: { metadata: 'ObjectMeta', spec: 'PodSpec' } },
  Pod: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'PodSpec', status: 'PodStatus' } },
  PodSpec: {
    order: ['volumes', 'initContainers', 'containers', 'ephemeralContainers', 'restartPolicy', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector', 'serviceAccountName', 'serviceAccount', 'automountServiceAccountToken', 'nodeName', 'hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'securityContext', 'imagePullSecrets', 'hostname', 'subdomain', 'affinity', 'schedulerName', 'tolerations', 'hostAliases', 'priorityClassName', 'priority', 'dnsConfig', 'readinessGates', 'runtimeClassName', 'enableServiceLinks', 'preemptionPolicy', 'overhead', 'topologySpreadConstraints', 'setHostnameAsFQDN', 'os', 'hostUsers', 'schedulingGates', 'resourceClaims'],
    fields: { initContainers: '[]Container', containers: '[]Container', volumes: '[]Volume' },
  },
  Volume: { order: ['name'] },
  Container: {
    order: ['name', 'image', 'command', 'args', 'workingDir', 'ports', 'envFrom', 'env', 'resources', 'volumeMounts', 'volumeDevices', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty'],
    fields: { ports: '[]ContainerPort', env: '[]EnvVar', volumeMounts: '[]VolumeMount' },
  },
  ContainerPort: { order: ['name', 'hostPort', 'containerPort', 'protocol', 'hostIP'] },
  EnvVar: { order: ['name', 'value', 'valueFrom'], fields: { valueFrom: 'EnvVarSource' } },
  EnvVarSource: { order: ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'], fields: { secretKeyRef: 'KeySelector', configMapKeyRef: 'KeySelector' } },
  KeySelector: { order: ['name', 'key', 'optional'] },
  VolumeMount: { order: ['name', 'readOnly', 'mountPath', 'subPath', 'mountPropagation', 'subPathExpr'] },
  PodStatus: { order: ['phase', 'conditions', 'message', 'reason', 'nominatedNodeName', 'hostIP', 'podIP', 'podIPs', 'startTime', 'initContainerStatuses', 'containerStatuses', 'qosClass', 'ephemeralContainerStatuses'] },
  PersistentVolumeClaim: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { metadata: 'ObjectMeta', spec: 'PersistentVolumeClaimSpec', status: 'PersistentVolumeClaimStatus' } },
  PersistentVolumeClaimSpec: { order: ['accessModes', 'selector', 'resources', 'volumeName', 'storageClassName', 'volumeMode', 'dataSource', 'dataSourceRef'] },
  PersistentVolumeClaimStatus: { order: ['phase', 'accessModes', 'capacity', 'conditions', 'allocatedResources', 'resizeStatus'] },
  Event: {
    order: ['kind', 'apiVersion', 'metadata', 'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'series', 'action', 'related', 'reportingComponent', 'reportingInstance'],
    fields: { involvedObject: 'ObjectReference', related: 'ObjectReference', source: 'EventSource' },
  },
  ObjectReference: { order: ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] },
  EventSource: { order: ['component', 'host'] },
  Lease: { order: ['kind', 'apiVersion', 'metadata', 'spec'], fields: { spec: 'LeaseSpec' } },
  LeaseSpec: { order: ['holderIdentity', 'leaseDurationSeconds', 'acquireTime', 'renewTime', 'leaseTransitions'] },
  Namespace: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'] },
  CustomResourceDefinition: { order: ['kind', 'apiVersion', 'metadata', 'spec', 'status'], fields: { spec: 'CRDSpec', status: 'CRDStatus' } },
  CRDSpec: { order: ['group', 'names', 'scope', 'versions', 'conversion', 'preserveUnknownFields'], fields: { names: 'CRDNames', versions: '[]CRDVersion', conversion: 'CRDConversion' } },
  CRDNames: { order: ['plural', 'singular', 'shortNames', 'kind', 'listKind', 'categories'] },
  CRDConversion: { order: ['strategy', 'webhook'] },
  CRDVersion: {
    order: ['name', 'served', 'storage', 'deprecated', 'deprecationWarning', 'schema', 'subresources', 'additionalPrinterColumns'],
    fields: { schema: 'CRDValidation', subresources: 'CRDSubresources', additionalPrinterColumns: '[]PrinterColumn' },
  },
  CRDValidation: { order: ['openAPIV3Schema'], fields: { openAPIV3Schema: PROPS } },
  CRDSubresources: { order: ['status', 'scale'], fields: { scale: 'CRDScale' } },
  CRDScale: { order: ['specReplicasPath', 'statusReplicasPath', 'labelSelectorPath'] },
  PrinterColumn: { order: ['name', 'type', 'format', 'description', 'priority', 'jsonPath'] },
  CRDStatus: { order: ['conditions', 'acceptedNames', 'storedVersions'], fields: { conditions: '[]CRDCondition', acceptedNames: 'CRDNames' } },
  CRDCondition: { order: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
  [PROPS]: {
    order: ['id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties', 'additionalProperties', 'patternProperties', 'dependencies', 'additionalItems', 'definitions', 'externalDocs', 'example', 'nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations'],
    fields: { items: PROPS, allOf: `[]${PROPS}`, oneOf: `[]${PROPS}`, anyOf: `[]${PROPS}`, not: PROPS, properties: `map[${PROPS}]`, additionalProperties: PROPS, 'x-kubernetes-validations': '[]ValidationRule' },
  },
  ValidationRule: { order: ['rule', 'message', 'messageExpression', 'reason', 'fieldPath'] },
};

function orderAs(v: unknown, type: string): unknown {
  if (type.startsWith('[]')) return Array.isArray(v) ? v.map((x) => orderAs(x, type.slice(2))) : v;
  if (type.startsWith('map[')) {
    if (!isPlainObject(v)) return v;
    const inner = type.slice(4, -1);
    const out: KObj = {};
    for (const k of Object.keys(v).sort()) out[k] = orderAs(v[k], inner);
    return out;
  }
  const info = TYPES[type];
  if (!info || !isPlainObject(v)) return v;
  const out: KObj = {};
  for (const k of info.order) if (v[k] !== undefined) out[k] = v[k];
  for (const k of Object.keys(v)) if (!(k in out) && v[k] !== undefined) out[k] = v[k];
  for (const [field, t] of Object.entries(info.fields ?? {})) if (out[field] !== undefined) out[field] = orderAs(out[field], t);
  return out;
}

/** The object with Go struct order where its kind is known (metadata is ordered separately). */
export function goOrder(kind: string, obj: KObj): KObj {
  return TYPES[kind] ? (orderAs(obj, kind) as KObj) : obj;
}
