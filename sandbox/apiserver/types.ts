// Shared shapes of the test API server. Objects on the wire are untyped JSON; the server treats
// them as plain records and never mutates a stored object in place (copy, change, store).

// biome-ignore lint/suspicious/noExplicitAny: the API server handles any kind's JSON, whose shape only the schema checks at run time
export type KObj = Record<string, any>;

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** One served resource (group, version, plural): everything the server needs to handle it. */
export interface ResourceDef {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  storageVersionHash?: string;
  builtin: boolean;
  hasStatus: boolean;
  scale?: ScaleSpec;
  /** Built-ins: does `metadata.generation` exist and bump on spec changes. CRs always have it. */
  hasGeneration: boolean;
  /** Built-ins: top-level key order of the Go struct after kind/apiVersion/metadata. */
  topLevelOrder?: string[];
  printerColumns?: PrinterColumn[];
  /** CRs: the structural schema of this version (openAPIV3Schema). */
  schema?: KObj;
  /** CRs: the resourceVersion at which this schema started to be served (older objects get its defaults on read). */
  servedSinceRv?: number;
  /** Fills server-side defaults of a built-in kind on create (and on update where the real one does). */
  defaulter?: (obj: KObj, ctx: DefaultContext) => void;
  /** Another resource's storage this one is a view of (events.k8s.io Events are core Events). */
  view?: { storage: string; toView: (stored: KObj) => KObj; fromView: (view: KObj) => KObj; selector: (s: string) => string };
  /** Values the registry sets after field ownership is computed (allocated IPs, zero values). */
  allocate?: (obj: KObj, ctx: DefaultContext) => void;
  /** Strips the status written by a user on create (real strategies reset it). */
  initialStatus?: () => KObj | undefined;
}

export interface DefaultContext {
  allocateClusterIP: () => string;
  /** A free port of the NodePort range (30000-32767), as the service registry allocates it. */
  allocateNodePort: () => number;
  /** The stored object of an update (undefined on create). */
  old?: KObj;
  /** The admission plugins a stock cluster enables by default run (Priority,
   * DefaultTolerationSeconds, StorageObjectInUseProtection); false: only those of the recorded run. */
  stockAdmission: boolean;
}

export function resourceKey(def: Pick<ResourceDef, 'group' | 'resource'>): string {
  return def.group === '' ? def.resource : `${def.resource}.${def.group}`;
}

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}
