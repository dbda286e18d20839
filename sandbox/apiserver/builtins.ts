// The built-in kinds this server serves, with the discovery facts recorded from kube-apiserver
// v1.26.1 (names, short names, categories, storage version hashes) and the defaults the real
// registry strategies fill in for the fields the operator and the sandbox read.
import { eventFromView, eventSelectorToCore, eventToView } from './event-view.ts';
import { forbidden } from './status.ts';
import type { DefaultContext, KObj, ResourceDef, ScaleSpec } from './types.ts';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STS_SCALE: ScaleSpec = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.selector',
};

interface Row {
  gv: string;
  resource: string;
  kind: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  hash?: string;
  status?: boolean;
  scale?: ScaleSpec;
  generation?: boolean;
  order?: string[];
  verbs?: string[];
  defaulter?: (obj: KObj, ctx: DefaultContext) => void;
  allocate?: (obj: KObj, ctx: DefaultContext) => void;
  view?: ResourceDef['view'];
  initialStatus?: () => KObj | undefined;
}

const ROWS: Row[] = [
  { gv: 'v1', resource: 'bindings', kind: 'Binding', verbs: ['create'] },
  {
    gv: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    shortNames: ['cm'],
    hash: 'qFsyl6wFWjQ=',
    order: ['immutable', 'data', 'binaryData'],
  },
  { gv: 'v1', resource: 'endpoints', kind: 'Endpoints', shortNames: ['ep'], hash: 'fWeeMqaN/OA=', order: ['subsets'] },
  {
    gv: 'v1',
    resource: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    hash: 'r2yiGXH7wu8=',
    allocate: defaultCoreEvent,
    order: [
      'involvedObject',
      'reason',
      'message',
      'source',
      'firstTimestamp',
      'lastTimestamp',
      'count',
      'type',
      'eventTime',
      'series',
      'action',
      'related',
      'reportingComponent',
      'reportingInstance',
    ],
  },
  {
    gv: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    hash: 'Q3oi5N2YM8M=',
    status: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    defaulter: defaultNamespace,
    initialStatus: () => ({ phase: 'Active' }),
  },
  { gv: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], hash: 'XwShjMxG9Fs=', status: true },
  {
    gv: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    shortNames: ['pvc'],
    hash: 'QWTyNDq0dC4=',
    status: true,
    defaulter: defaultPvc,
    allocate: protectPvc,
    initialStatus: () => ({ phase: 'Pending' }),
  },
  {
    gv: 'v1',
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    hash: 'HN/zwEC+JgM=',
    status: true,
    initialStatus: () => ({ phase: 'Pending' }),
  },
  {
    gv: 'v1',
    resource: 'pods',
    kind: 'Pod',
    shortNames: ['po'],
    categories: ['all'],
    hash: 'xPOwRZ+Yhw8=',
    status: true,
    defaulter: (o) => defaultPodSpec(o.spec, true),
    allocate: admitPod,
    initialStatus: () => ({ phase: 'Pending' }),
  },
  {
    gv: 'v1',
    resource: 'secrets',
    kind: 'Secret',
    hash: 'S6u1pOWzb84=',
    order: ['immutable', 'data', 'stringData', 'type'],
    defaulter: defaultSecret,
  },
  {
    gv: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    shortNames: ['sa'],
    hash: 'pbx9ZvyFpBE=',
    order: ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
  },
  {
    gv: 'v1',
    resource: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    categories: ['all'],
    hash: '0/CO1lhkEBI=',
    status: true,
    defaulter: defaultService,
    allocate: allocateService,
    initialStatus: () => ({ loadBalancer: {} }),
  },
  { gv: 'apps/v1', resource: 'controllerrevisions', kind: 'ControllerRevision', hash: '85nkx63pcBU=', order: ['data', 'revision'] },
  {
    gv: 'apps/v1',
    resource: 'deployments',
    kind: 'Deployment',
    shortNames: ['deploy'],
    categories: ['all'],
    hash: '8aSe+NMegvE=',
    status: true,
    scale: STS_SCALE,
    generation: true,
    defaulter: defaultDeployment,
    initialStatus: () => ({}),
  },
  {
    gv: 'apps/v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    shortNames: ['rs'],
    categories: ['all'],
    hash: 'P1RzHs8/mWQ=',
    status: true,
    scale: STS_SCALE,
    generation: true,
    defaulter: defaultReplicaSet,
    initialStatus: () => ({ replicas: 0 }),
  },
  {
    gv: 'apps/v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    shortNames: ['sts'],
    categories: ['all'],
    hash: 'H+vl74LkKdo=',
    status: true,
    scale: STS_SCALE,
    generation: true,
    defaulter: defaultStatefulSet,
    initialStatus: () => ({ replicas: 0, availableReplicas: 0 }),
  },
  {
    gv: 'batch/v1',
    resource: 'cronjobs',
    kind: 'CronJob',
    shortNames: ['cj'],
    categories: ['all'],
    hash: 'sd5LIXh4Fjs=',
    status: true,
    generation: true,
    defaulter: defaultCronJob,
    initialStatus: () => ({}),
  },
  {
    gv: 'batch/v1',
    resource: 'jobs',
    kind: 'Job',
    categories: ['all'],
    hash: 'mudhfqk/qZY=',
    status: true,
    generation: true,
    defaulter: (o) => defaultJobSpec(o.spec),
    allocate: generateJobSelector,
    initialStatus: () => ({}),
  },
  {
    gv: 'networking.k8s.io/v1',
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    shortNames: ['netpol'],
    hash: 'YpfwF18m1G8=',
  },
  {
    gv: 'policy/v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    shortNames: ['pdb'],
    hash: '6BGBu0kpHtk=',
    status: true,
    generation: true,
    initialStatus: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
  },
  { gv: 'coordination.k8s.io/v1', resource: 'leases', kind: 'Lease', hash: 'gqkMMb/YqFM=' },
  {
    gv: 'events.k8s.io/v1',
    resource: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    hash: 'r2yiGXH7wu8=',
    view: { storage: 'events', toView: eventToView, fromView: eventFromView, selector: eventSelectorToCore },
    order: [
      'eventTime',
      'series',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
      'regarding',
      'related',
      'note',
      'type',
      'deprecatedSource',
      'deprecatedFirstTimestamp',
      'deprecatedLastTimestamp',
      'deprecatedCount',
    ],
  },
  {
    gv: 'discovery.k8s.io/v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    hash: 'Nx3SIv6I0mE=',
    order: ['addressType', 'endpoints', 'ports'],
  },
  { gv: 'rbac.authorization.k8s.io/v1', resource: 'roles', kind: 'Role', order: ['rules'] },
  { gv: 'rbac.authorization.k8s.io/v1', resource: 'rolebindings', kind: 'RoleBinding', order: ['subjects', 'roleRef'] },
  {
    gv: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
    order: ['rules', 'aggregationRule'],
  },
  {
    gv: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    order: ['subjects', 'roleRef'],
  },
  {
    gv: 'apiextensions.k8s.io/v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    hash: 'jfWCUB31mvA=',
    status: true,
    generation: true,
    defaulter: defaultCrd,
    initialStatus: () => undefined,
  },
];

export function builtinDefs(): ResourceDef[] {
  return ROWS.map((r) => {
    const [group, version] = r.gv.includes('/') ? (r.gv.split('/') as [string, string]) : ['', r.gv];
    const def: ResourceDef = {
      group,
      version,
      resource: r.resource,
      kind: r.kind,
      listKind: `${r.kind}List`,
      singular: '',
      namespaced: r.namespaced ?? true,
      verbs: r.verbs ?? ALL_VERBS,
      builtin: true,
      hasStatus: r.status ?? false,
      hasGeneration: r.generation ?? false,
      topLevelOrder: r.order ?? ['spec', 'status'],
    };
    if (r.shortNames) def.shortNames = r.shortNames;
    if (r.categories) def.categories = r.categories;
    if (r.hash) def.storageVersionHash = r.hash;
    if (r.scale) def.scale = r.scale;
    if (r.defaulter) def.defaulter = r.defaulter;
    if (r.allocate) def.allocate = r.allocate;
    if (r.view) def.view = r.view;
    if (r.initialStatus) def.initialStatus = r.initialStatus;
    return def;
  });
}

/** Groups in the order kube-apiserver v1.26 lists them in /apis (only those served here). */
export const BUILTIN_GROUP_ORDER = [
  'apps',
  'events.k8s.io',
  'batch',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'apiextensions.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
];

function setDefault(o: KObj, key: string, value: unknown): void {
  if (o[key] === undefined) o[key] = value;
}

/** The fields Go always encodes (structs and metav1.Time are never omitted; a zero Time is null). */
function defaultCoreEvent(o: KObj): void {
  setDefault(o, 'involvedObject', {});
  setDefault(o, 'source', {});
  setDefault(o, 'firstTimestamp', null);
  setDefault(o, 'lastTimestamp', null);
  setDefault(o, 'eventTime', null);
  setDefault(o, 'reportingComponent', '');
  setDefault(o, 'reportingInstance', '');
}

function defaultNamespace(o: KObj): void {
  o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': o.metadata.name };
  o.spec = { finalizers: ['kubernetes'], ...(o.spec ?? {}) };
}

function defaultSecret(o: KObj): void {
  if (o.stringData && typeof o.stringData === 'object') {
    const data: KObj = { ...(o.data ?? {}) };
    for (const [k, v] of Object.entries(o.stringData as KObj)) data[k] = Buffer.from(String(v)).toString('base64');
    o.data = sortedKeys(data);
  }
  delete o.stringData;
  setDefault(o, 'type', 'Opaque');
}

function defaultPvc(o: KObj): void {
  o.spec ??= {};
  setDefault(o.spec, 'volumeMode', 'Filesystem');
}

function defaultService(o: KObj): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  setDefault(s, 'type', 'ClusterIP');
  for (const p of (s.ports ?? []) as KObj[]) {
    setDefault(p, 'protocol', 'TCP');
    setDefault(p, 'targetPort', p.port);
  }
  if (s.type !== 'ExternalName') {
    setDefault(s, 'sessionAffinity', 'None');
    setDefault(s, 'internalTrafficPolicy', 'Cluster');
  }
  if (s.type === 'NodePort' || s.type === 'LoadBalancer') setDefault(s, 'externalTrafficPolicy', 'Cluster');
  if (s.type === 'LoadBalancer') setDefault(s, 'allocateLoadBalancerNodePorts', true);
}

function allocateService(o: KObj, ctx: DefaultContext): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  if (s.type === 'ExternalName') return;
  if (s.clusterIP === undefined || s.clusterIP === '') s.clusterIP = ctx.allocateClusterIP();
  setDefault(s, 'clusterIPs', [s.clusterIP]);
  setDefault(s, 'ipFamilies', ['IPv4']);
  setDefault(s, 'ipFamilyPolicy', 'SingleStack');
  allocateNodePorts(s, ctx);
}

/** The service registry's node ports: kept from the stored object for the same port, else allocated. */
function allocateNodePorts(s: KObj, ctx: DefaultContext): void {
  const wants = s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
  const oldSpec: KObj = ctx.old?.spec ?? {};
  if (wants) {
    const oldPorts = (oldSpec.ports ?? []) as KObj[];
    for (const p of (s.ports ?? []) as KObj[]) {
      if (p.nodePort) continue;
      const kept = oldPorts.find((o) => o.port === p.port && o.protocol === p.protocol)?.nodePort;
      p.nodePort = kept ?? ctx.allocateNodePort();
    }
  }
  if (s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local' && !s.healthCheckNodePort) {
    s.healthCheckNodePort = oldSpec.healthCheckNodePort ?? ctx.allocateNodePort();
  }
}

function defaultContainer(c: KObj): void {
  for (const p of (c.ports ?? []) as KObj[]) setDefault(p, 'protocol', 'TCP');
  setDefault(c, 'resources', {});
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  const image = String(c.image ?? '');
  const tagged = /:[^/]+$/.test(image) && !image.endsWith(':latest');
  setDefault(c, 'imagePullPolicy', tagged || image.includes('@') ? 'IfNotPresent' : 'Always');
}

/** SetDefaults_Pod (a Pod only, not a template): a limit without its request is requested too,
 * whatever the resource (`ephemeral-storage` as well as cpu and memory). */
function requestsFromLimits(c: KObj): void {
  const r: KObj = c.resources ?? {};
  const limits = (r.limits ?? {}) as KObj;
  if (Object.keys(limits).length === 0) return;
  r.requests = sortedKeys({ ...limits, ...((r.requests ?? {}) as KObj) });
}

function defaultPodSpec(spec: KObj | undefined, isPod: boolean): void {
  if (!spec) return;
  for (const c of (spec.initContainers ?? []) as KObj[]) defaultContainer(c);
  for (const c of (spec.containers ?? []) as KObj[]) defaultContainer(c);
  if (isPod) for (const c of [...((spec.initContainers ?? []) as KObj[]), ...((spec.containers ?? []) as KObj[])]) requestsFromLimits(c);
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  if (isPod) setDefault(spec, 'enableServiceLinks', true);
}

const TOKEN_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** What the admission plugins and the pod strategy add to a pod (after ownership: no manager owns it). */
function admitPod(o: KObj, ctx: DefaultContext): void {
  o.spec ??= {};
  const spec: KObj = o.spec;
  if (ctx.stockAdmission) {
    admitPriority(o, ctx.old);
    addDefaultTolerations(spec);
  }
  setDefault(spec, 'serviceAccountName', spec.serviceAccount ?? 'default');
  setDefault(spec, 'serviceAccount', spec.serviceAccountName);
  const containers = [...((spec.initContainers ?? []) as KObj[]), ...((spec.containers ?? []) as KObj[])];
  const mounted = containers.some((c) => ((c.volumeMounts ?? []) as KObj[]).some((m) => m.mountPath === TOKEN_MOUNT));
  if (spec.automountServiceAccountToken !== false && !mounted) {
    const name = `kube-api-access-${Array.from({ length: 5 }, () => 'bcdfghjklmnpqrstvwxz2456789'[Math.floor(Math.random() * 27)]).join('')}`;
    spec.volumes = [
      ...((spec.volumes ?? []) as KObj[]),
      {
        name,
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
          defaultMode: 420,
        },
      },
    ];
    for (const c of containers) c.volumeMounts = [...((c.volumeMounts ?? []) as KObj[]), { name, readOnly: true, mountPath: TOKEN_MOUNT }];
  }
  if (o.status && o.status.qosClass === undefined) o.status.qosClass = qosClass(containers);
}

/** The priority classes kube-apiserver creates at start (no PriorityClass can be created here). */
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

/** The Priority admission plugin (plugin/pkg/admission/priority) with no default PriorityClass. */
function admitPriority(o: KObj, old: KObj | undefined): void {
  const spec: KObj = o.spec;
  if (old) {
    // Set on create; an update keeps it (validation refuses a change).
    setDefault(spec, 'priority', old.spec?.priority);
    setDefault(spec, 'preemptionPolicy', old.spec?.preemptionPolicy);
    return;
  }
  const refuse = (why: string) =>
    forbidden(`pods "${o.metadata?.name ?? ''}" is forbidden: ${why}`, { name: o.metadata?.name ?? '', kind: 'pods' });
  const className = String(spec.priorityClassName ?? '');
  const priority = className === '' ? 0 : SYSTEM_PRIORITY_CLASSES[className];
  if (priority === undefined) throw refuse(`no PriorityClass with name ${className} was found`);
  if (spec.priority !== undefined && spec.priority !== priority) {
    throw refuse(
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  spec.priority = priority;
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== 'PreemptLowerPriority') {
    throw refuse(
      `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`,
    );
  }
  spec.preemptionPolicy = 'PreemptLowerPriority';
}

/** The DefaultTolerationSeconds admission plugin: 300 s on not-ready and unreachable nodes unless tolerated already. */
function addDefaultTolerations(spec: KObj): void {
  const tolerations = (spec.tolerations ?? []) as KObj[];
  const tolerates = (key: string) => tolerations.some((t) => (!t.key || t.key === key) && (!t.effect || t.effect === 'NoExecute'));
  const added = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']
    .filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

/** The StorageObjectInUseProtection admission plugin: a new claim is kept while a pod uses it. */
function protectPvc(o: KObj, ctx: DefaultContext): void {
  if (ctx.old || !ctx.stockAdmission) return;
  const fins = (o.metadata.finalizers ?? []) as string[];
  if (!fins.includes(PVC_PROTECTION)) o.metadata.finalizers = [...fins, PVC_PROTECTION];
}

/** The Job strategy of v1.26 on create: the tracking annotation, then the generated selector and
 * template labels unless `manualSelector` (generateSelector; the batch.kubernetes.io/ labels came in 1.27). */
function generateJobSelector(o: KObj, ctx: DefaultContext): void {
  if (ctx.old) return;
  o.metadata.annotations = sortedKeys({ ...(o.metadata.annotations ?? {}), 'batch.kubernetes.io/job-tracking': '' });
  o.spec ??= {};
  const s: KObj = o.spec;
  if (s.manualSelector === true) return;
  const uid = String(o.metadata.uid);
  s.template ??= {};
  const t: KObj = s.template;
  t.metadata ??= {};
  const labels: KObj = { ...(t.metadata.labels ?? {}) };
  setDefault(labels, 'controller-uid', uid);
  setDefault(labels, 'job-name', o.metadata.name);
  t.metadata.labels = sortedKeys(labels);
  s.selector ??= {};
  s.selector.matchLabels = sortedKeys({ 'controller-uid': uid, ...(s.selector.matchLabels ?? {}) });
}

function sortedKeys(m: KObj): KObj {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function qosClass(containers: KObj[]): string {
  const resources = containers.map((c) => (c.resources ?? {}) as KObj);
  const any = resources.some((r) => Object.keys(r.requests ?? {}).length > 0 || Object.keys(r.limits ?? {}).length > 0);
  if (!any) return 'BestEffort';
  const guaranteed = resources.every((r) => {
    const limits = (r.limits ?? {}) as KObj;
    const requests = { ...limits, ...((r.requests ?? {}) as KObj) };
    return ['cpu', 'memory'].every((k) => limits[k] !== undefined && String(requests[k]) === String(limits[k]));
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function defaultTemplate(t: KObj | undefined): void {
  if (!t) return;
  t.metadata = { creationTimestamp: null, ...(t.metadata ?? {}) };
  defaultPodSpec(t.spec, false);
}

function defaultStatefulSet(o: KObj): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  setDefault(s, 'replicas', 1);
  defaultTemplate(s.template);
  s.volumeClaimTemplates = ((s.volumeClaimTemplates ?? []) as KObj[]).map((t) => {
    const spec = { ...(t.spec ?? {}) };
    setDefault(spec, 'volumeMode', 'Filesystem');
    return {
      kind: 'PersistentVolumeClaim',
      apiVersion: 'v1',
      metadata: { ...(t.metadata ?? {}), creationTimestamp: null },
      spec,
      status: { phase: 'Pending', ...(t.status ?? {}) },
    };
  });
  if (s.volumeClaimTemplates.length === 0) delete s.volumeClaimTemplates;
  setDefault(s, 'podManagementPolicy', 'OrderedReady');
  setDefault(s, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  if (s.updateStrategy.type === 'RollingUpdate') s.updateStrategy.rollingUpdate ??= { partition: 0 };
  setDefault(s, 'revisionHistoryLimit', 10);
}

function defaultReplicaSet(o: KObj): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  setDefault(s, 'replicas', 1);
  defaultTemplate(s.template);
}

function defaultDeployment(o: KObj): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  setDefault(s, 'replicas', 1);
  defaultTemplate(s.template);
  setDefault(s, 'strategy', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  setDefault(s, 'revisionHistoryLimit', 10);
  setDefault(s, 'progressDeadlineSeconds', 600);
}

function defaultJobSpec(s: KObj | undefined): void {
  if (!s) return;
  setDefault(s, 'parallelism', 1);
  setDefault(s, 'completions', 1);
  setDefault(s, 'backoffLimit', 6);
  setDefault(s, 'completionMode', 'NonIndexed');
  setDefault(s, 'suspend', false);
  defaultTemplate(s.template);
}

function defaultCronJob(o: KObj): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  setDefault(s, 'concurrencyPolicy', 'Allow');
  setDefault(s, 'suspend', false);
  setDefault(s, 'successfulJobsHistoryLimit', 3);
  setDefault(s, 'failedJobsHistoryLimit', 1);
  if (s.jobTemplate) {
    s.jobTemplate.metadata = { creationTimestamp: null, ...(s.jobTemplate.metadata ?? {}) };
    defaultJobSpec(s.jobTemplate.spec);
  }
}

function defaultCrd(o: KObj): void {
  o.spec ??= {};
  const s: KObj = o.spec;
  if (o.status === undefined) {
    const storage = ((s.versions ?? []) as KObj[]).filter((v) => v.storage).map((v) => v.name);
    o.status = { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: storage };
  }
  s.names ??= {};
  setDefault(s.names, 'singular', String(s.names.kind ?? '').toLowerCase());
  setDefault(s.names, 'listKind', `${s.names.kind}List`);
  setDefault(s, 'conversion', { strategy: 'None' });
}
