// Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), which `kubectl get`
// asks for: CRD printer columns, and a few built-in column sets close to the real ones.
import { evalJsonPath } from './jsonpath.ts';
import { orderMetadata } from './json.ts';
import type { KObj, PrinterColumn, ResourceDef } from './types.ts';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names';
const AGE_PATH = '.metadata.creationTimestamp';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (o: KObj) => unknown;
}

export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function age(o: KObj): string {
  const t = o.metadata?.creationTimestamp;
  return t ? humanDuration(Date.now() - Date.parse(t)) : '<unknown>';
}

const nameCol: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_DESCRIPTION,
  priority: 0,
  cell: (o) => o.metadata.name,
};
const ageCol: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: age,
};

function col(name: string, cell: (o: KObj) => unknown, type = 'string', priority = 0): Column {
  return { name, type, format: '', description: name, priority, cell };
}

function podReady(o: KObj): string {
  const total = (o.spec?.containers ?? []).length;
  const ready = ((o.status?.containerStatuses ?? []) as KObj[]).filter((c) => c.ready).length;
  return `${ready}/${total}`;
}

function restarts(o: KObj): number {
  return ((o.status?.containerStatuses ?? []) as KObj[]).reduce((n, c) => n + Number(c.restartCount ?? 0), 0);
}

function servicePorts(o: KObj): string {
  const ports = (o.spec?.ports ?? []) as KObj[];
  return ports.length === 0 ? '<none>' : ports.map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',');
}

const BUILTIN_COLUMNS: Record<string, Column[]> = {
  pods: [
    nameCol,
    col('Ready', podReady),
    col('Status', (o) => (o.metadata.deletionTimestamp ? 'Terminating' : (o.status?.phase ?? ''))),
    col('Restarts', restarts, 'string'),
    ageCol,
    col('IP', (o) => o.status?.podIP ?? '<none>', 'string', 1),
    col('Node', (o) => o.spec?.nodeName ?? '<none>', 'string', 1),
  ],
  statefulsets: [nameCol, col('Ready', (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`), ageCol],
  deployments: [
    nameCol,
    col('Ready', (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 0}`),
    col('Up-to-date', (o) => o.status?.updatedReplicas ?? 0, 'integer'),
    col('Available', (o) => o.status?.availableReplicas ?? 0, 'integer'),
    ageCol,
  ],
  replicasets: [
    nameCol,
    col('Desired', (o) => o.spec?.replicas ?? 0, 'integer'),
    col('Current', (o) => o.status?.replicas ?? 0, 'integer'),
    col('Ready', (o) => o.status?.readyReplicas ?? 0, 'integer'),
    ageCol,
  ],
  services: [
    nameCol,
    col('Type', (o) => o.spec?.type ?? ''),
    col('Cluster-IP', (o) => o.spec?.clusterIP ?? ''),
    col('External-IP', () => '<none>'),
    col('Port(s)', servicePorts),
    ageCol,
  ],
  configmaps: [nameCol, col('Data', (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length, 'integer'), ageCol],
  secrets: [nameCol, col('Type', (o) => o.type ?? ''), col('Data', (o) => Object.keys(o.data ?? {}).length, 'integer'), ageCol],
  persistentvolumeclaims: [
    nameCol,
    col('Status', (o) => o.status?.phase ?? ''),
    col('Volume', (o) => o.spec?.volumeName ?? ''),
    col('Capacity', (o) => o.status?.capacity?.storage ?? ''),
    col('Access Modes', (o) => (o.status?.accessModes ?? []).join(',')),
    col('StorageClass', (o) => o.spec?.storageClassName ?? ''),
    ageCol,
  ],
  namespaces: [nameCol, col('Status', (o) => o.status?.phase ?? ''), ageCol],
  jobs: [nameCol, col('Completions', (o) => `${o.status?.succeeded ?? 0}/${o.spec?.completions ?? 1}`), ageCol],
  cronjobs: [
    nameCol,
    col('Schedule', (o) => o.spec?.schedule ?? ''),
    col('Suspend', (o) => String(o.spec?.suspend ?? false)),
    col('Active', (o) => (o.status?.active ?? []).length, 'integer'),
    ageCol,
  ],
  leases: [nameCol, col('Holder', (o) => o.spec?.holderIdentity ?? ''), ageCol],
  customresourcedefinitions: [nameCol, col('Created At', (o) => o.metadata.creationTimestamp, 'date')],
  events: [
    col('Last Seen', (o) => (o.lastTimestamp ? humanDuration(Date.now() - Date.parse(o.lastTimestamp)) : age(o))),
    col('Type', (o) => o.type ?? ''),
    col('Reason', (o) => o.reason ?? ''),
    col('Object', (o) => `${String(o.involvedObject?.kind ?? '').toLowerCase()}/${o.involvedObject?.name ?? ''}`),
    col('Message', (o) => o.message ?? ''),
    nameCol,
  ],
};

function crColumns(cols: PrinterColumn[] | undefined): Column[] {
  const defs = cols && cols.length > 0 ? cols : [{ name: 'Age', type: 'date', jsonPath: AGE_PATH }];
  return [
    nameCol,
    ...defs.map(
      (c): Column => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
        cell: (o) => {
          const v = evalJsonPath(o, c.jsonPath)[0];
          if (v === undefined) return null;
          if (c.type === 'date' && typeof v === 'string') return humanDuration(Date.now() - Date.parse(v));
          if (typeof v === 'object' && v !== null) return JSON.stringify(v);
          return v;
        },
      }),
    ),
  ];
}

function columnsFor(def: ResourceDef): Column[] {
  if (!def.builtin) return crColumns(def.printerColumns);
  return BUILTIN_COLUMNS[def.resource] ?? [nameCol, ageCol];
}

function rowObject(o: KObj, include: string): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: orderMetadata(o.metadata) };
}

export function toTable(def: ResourceDef, objects: KObj[], listMeta: KObj, include = 'Metadata', withHeaders = true): KObj {
  const cols = columnsFor(def);
  const table: KObj = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta };
  if (withHeaders) {
    table.columnDefinitions = cols.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format,
      description: c.description,
      priority: c.priority,
    }));
  } else table.columnDefinitions = null;
  table.rows = objects.map((o) => {
    const row: KObj = { cells: cols.map((c) => c.cell(o) ?? null) };
    const obj = rowObject(o, include);
    if (obj !== undefined) row.object = obj;
    return row;
  });
  return table;
}
