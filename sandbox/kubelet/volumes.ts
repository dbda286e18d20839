// A pod's volumes made real on this machine. Pure part: which objects a pod refers to, and what
// each volume is (a host directory, or a set of files computed from Secrets, ConfigMaps and the
// pod itself). I/O part: the kubelet's atomic writer, so a container that reads a configMap or
// secret volume sees either the old or the new set of files, never a mix: the files live in a
// timestamped directory, `..data` points at it, and each top-level name is a symlink through
// `..data` (the layout the real kubelet leaves, which programs watching such volumes expect).
import { mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type {
  V1ConfigMap,
  V1KeyToPath,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Volume,
} from '@kubernetes/client-node';
import { ContainerConfigError, podField, resourceField, type DataByName } from './env.ts';

export interface VolumeObjects {
  /** By name; a name the pod refers to that does not exist maps to undefined. */
  secrets: ReadonlyMap<string, V1Secret | undefined>;
  configMaps: ReadonlyMap<string, V1ConfigMap | undefined>;
  claims: ReadonlyMap<string, V1PersistentVolumeClaim | undefined>;
  /** PersistentVolumes of the bound claims, by name. */
  volumes: ReadonlyMap<string, V1PersistentVolume | undefined>;
}

export interface VolumeContext extends VolumeObjects {
  pod: V1Pod;
  /** `<workDir>/pods/<uid>`: where emptyDirs and projected files live. */
  podDir: string;
  /** The sandbox work dir: unbound claims use `<workDir>/volumes/<namespace>/<claim>`. */
  workDir: string;
  /** The node's allocatable, for downward API resource fields. */
  allocatable: Readonly<Record<string, string>>;
  /** Written where a projected serviceAccountToken goes. */
  serviceAccountToken: string;
}

export interface FileContent {
  data: Buffer;
  mode: number;
}

export type VolumeSource =
  | { kind: 'dir'; path: string; readOnly: boolean }
  | { kind: 'files'; path: string; files: ReadonlyMap<string, FileContent> }
  | { kind: 'wait'; message: string };

export interface Referenced {
  secrets: Set<string>;
  configMaps: Set<string>;
  claims: Set<string>;
}

/** Every Secret, ConfigMap and claim a pod's volumes and env refer to. */
export function referencedObjects(pod: V1Pod): Referenced {
  const out: Referenced = { secrets: new Set(), configMaps: new Set(), claims: new Set() };
  const add = (set: Set<string>, name: string | undefined) => {
    if (name) set.add(name);
  };
  for (const v of pod.spec?.volumes ?? []) {
    add(out.secrets, v.secret?.secretName);
    add(out.configMaps, v.configMap?.name);
    add(out.claims, v.persistentVolumeClaim?.claimName);
    for (const s of v.projected?.sources ?? []) {
      add(out.secrets, s.secret?.name);
      add(out.configMaps, s.configMap?.name);
    }
  }
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const f of c.envFrom ?? []) {
      add(out.secrets, f.secretRef?.name);
      add(out.configMaps, f.configMapRef?.name);
    }
    for (const e of c.env ?? []) {
      add(out.secrets, e.valueFrom?.secretKeyRef?.name);
      add(out.configMaps, e.valueFrom?.configMapKeyRef?.name);
    }
  }
  return out;
}

function decoded(
  objects: ReadonlyMap<string, V1Secret | V1ConfigMap | undefined>,
  text: (o: V1Secret | V1ConfigMap) => Record<string, string>,
): DataByName {
  const out: Record<string, Record<string, string>> = {};
  for (const [name, obj] of objects) if (obj) out[name] = text(obj);
  return out;
}

/** Secrets and ConfigMaps as env reads them (decoded text). */
export function envData(objects: VolumeObjects): { secrets: DataByName; configMaps: DataByName } {
  return {
    secrets: decoded(objects.secrets, (s) =>
      Object.fromEntries(Object.entries((s as V1Secret).data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
    ),
    configMaps: decoded(objects.configMaps, (c) => ({ ...((c as V1ConfigMap).data ?? {}) })),
  };
}

function keyData(obj: V1Secret | V1ConfigMap, isSecret: boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (isSecret) {
    for (const [k, v] of Object.entries((obj as V1Secret).data ?? {})) out.set(k, Buffer.from(v, 'base64'));
  } else {
    const cm = obj as V1ConfigMap;
    for (const [k, v] of Object.entries(cm.data ?? {})) out.set(k, Buffer.from(v, 'utf8'));
    for (const [k, v] of Object.entries(cm.binaryData ?? {})) out.set(k, Buffer.from(v, 'base64'));
  }
  return out;
}

const DEFAULT_MODE = 0o644;

/** The files of a Secret or ConfigMap source (volume or projection): all keys, or the listed items. */
function keyFiles(
  kind: 'Secret' | 'ConfigMap',
  name: string,
  obj: V1Secret | V1ConfigMap | undefined,
  items: V1KeyToPath[] | undefined,
  optional: boolean | undefined,
  mode: number,
  into: Map<string, FileContent>,
): string | undefined {
  if (!obj) return optional ? undefined : `${kind.toLowerCase()} "${name}" not found`;
  const data = keyData(obj, kind === 'Secret');
  if (!items || items.length === 0) {
    for (const [k, v] of data) into.set(k, { data: v, mode });
    return undefined;
  }
  for (const item of items) {
    const v = data.get(item.key);
    if (v === undefined) {
      if (optional) continue;
      return `${kind.toLowerCase()} references non-existent ${kind === 'Secret' ? 'secret' : 'config'} key: ${item.key}`;
    }
    into.set(item.path, { data: v, mode: item.mode ?? mode });
  }
  return undefined;
}

function downwardFiles(
  ctx: VolumeContext,
  items: Array<{
    path: string;
    mode?: number;
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { containerName?: string; resource: string; divisor?: string };
  }>,
  mode: number,
  into: Map<string, FileContent>,
): void {
  const containers = [...(ctx.pod.spec?.initContainers ?? []), ...(ctx.pod.spec?.containers ?? [])];
  for (const item of items) {
    let value: string;
    if (item.fieldRef) {
      value = podField(ctx.pod, item.fieldRef.fieldPath);
    } else if (item.resourceFieldRef) {
      const c = containers.find((x) => x.name === item.resourceFieldRef!.containerName);
      if (!c) throw new ContainerConfigError(`downwardAPI ${item.path}: no container ${item.resourceFieldRef.containerName}`);
      value = resourceField(c, item.resourceFieldRef, ctx.allocatable);
    } else continue;
    into.set(item.path, { data: Buffer.from(value), mode: item.mode ?? mode });
  }
}

/** What one volume of the pod is on this machine, or why the pod must wait for it. */
export function volumeSource(volume: V1Volume, ctx: VolumeContext): VolumeSource {
  const own = (kind: string) => join(ctx.podDir, 'volumes', kind, volume.name);
  if (volume.emptyDir) return { kind: 'dir', path: own('empty-dir'), readOnly: false };
  if (volume.hostPath) return { kind: 'dir', path: volume.hostPath.path, readOnly: false };
  if (volume.persistentVolumeClaim) {
    const claimName = volume.persistentVolumeClaim.claimName;
    const claim = ctx.claims.get(claimName);
    if (!claim) return { kind: 'wait', message: `persistentvolumeclaim "${claimName}" not found` };
    const pvName = claim.spec?.volumeName;
    const pv = pvName ? ctx.volumes.get(pvName) : undefined;
    const path =
      pv?.spec?.hostPath?.path ??
      pv?.spec?.local?.path ??
      join(ctx.workDir, 'volumes', ctx.pod.metadata?.namespace ?? 'default', claimName);
    return { kind: 'dir', path, readOnly: volume.persistentVolumeClaim.readOnly ?? false };
  }
  const files = new Map<string, FileContent>();
  let missing: string | undefined;
  if (volume.secret) {
    const name = volume.secret.secretName ?? '';
    missing = keyFiles(
      'Secret',
      name,
      ctx.secrets.get(name),
      volume.secret.items,
      volume.secret.optional,
      volume.secret.defaultMode ?? DEFAULT_MODE,
      files,
    );
    if (missing) return { kind: 'wait', message: `MountVolume.SetUp failed for volume "${volume.name}": ${missing}` };
    return { kind: 'files', path: own('secret'), files };
  }
  if (volume.configMap) {
    const name = volume.configMap.name ?? '';
    missing = keyFiles(
      'ConfigMap',
      name,
      ctx.configMaps.get(name),
      volume.configMap.items,
      volume.configMap.optional,
      volume.configMap.defaultMode ?? DEFAULT_MODE,
      files,
    );
    if (missing) return { kind: 'wait', message: `MountVolume.SetUp failed for volume "${volume.name}": ${missing}` };
    return { kind: 'files', path: own('configmap'), files };
  }
  if (volume.downwardAPI) {
    downwardFiles(ctx, volume.downwardAPI.items ?? [], volume.downwardAPI.defaultMode ?? DEFAULT_MODE, files);
    return { kind: 'files', path: own('downward-api'), files };
  }
  if (volume.projected) {
    const mode = volume.projected.defaultMode ?? DEFAULT_MODE;
    for (const s of volume.projected.sources ?? []) {
      if (s.secret)
        missing ??= keyFiles(
          'Secret',
          s.secret.name ?? '',
          ctx.secrets.get(s.secret.name ?? ''),
          s.secret.items,
          s.secret.optional,
          mode,
          files,
        );
      else if (s.configMap)
        missing ??= keyFiles(
          'ConfigMap',
          s.configMap.name ?? '',
          ctx.configMaps.get(s.configMap.name ?? ''),
          s.configMap.items,
          s.configMap.optional,
          mode,
          files,
        );
      else if (s.downwardAPI) downwardFiles(ctx, s.downwardAPI.items ?? [], mode, files);
      else if (s.serviceAccountToken) files.set(s.serviceAccountToken.path, { data: Buffer.from(ctx.serviceAccountToken), mode });
    }
    if (missing) return { kind: 'wait', message: `MountVolume.SetUp failed for volume "${volume.name}": ${missing}` };
    return { kind: 'files', path: own('projected'), files };
  }
  return { kind: 'wait', message: `volume "${volume.name}": this kind of volume is not supported by the sandbox kubelet` };
}

function sameFiles(dir: string, files: ReadonlyMap<string, FileContent>, last: ReadonlyMap<string, FileContent> | undefined): boolean {
  if (!last || !existsSync(join(dir, '..data'))) return false;
  if (last.size !== files.size) return false;
  for (const [k, v] of files) {
    const prev = last.get(k);
    if (!prev || prev.mode !== v.mode || !prev.data.equals(v.data)) return false;
  }
  return true;
}

/**
 * The kubelet's atomic writer: a new `..<timestamp>` directory, `..data` swapped to it by a rename,
 * top-level symlinks through `..data`, the old directory removed. Returns whether anything changed.
 */
export function writeAtomically(
  dir: string,
  files: ReadonlyMap<string, FileContent>,
  last: ReadonlyMap<string, FileContent> | undefined,
): boolean {
  if (sameFiles(dir, files, last)) return false;
  mkdirSync(dir, { recursive: true });
  const stamp = `..${new Date().toISOString().replace(/[-:]/g, '_')}.${process.hrtime.bigint()}`;
  const staged = join(dir, stamp);
  mkdirSync(staged);
  for (const [rel, f] of files) {
    const target = join(staged, rel);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.data);
    chmodSync(target, f.mode);
  }
  const old = existsSync(join(dir, '..data')) ? readlinkSync(join(dir, '..data')) : undefined;
  symlinkSync(stamp, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  const top = new Set([...files.keys()].map((rel) => rel.split('/')[0]!));
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('..') && !top.has(name)) rmSync(join(dir, name), { force: true });
  }
  for (const name of top) {
    if (!existsSync(join(dir, name))) symlinkSync(join('..data', name), join(dir, name));
  }
  if (old) rmSync(join(dir, old), { recursive: true, force: true });
  return true;
}
