// The table of served resources: the built-ins plus whatever established CRDs add.
import { createHash } from 'node:crypto';
import { builtinDefs } from './builtins.ts';
import { BUILTIN_SCHEMA, crSchemaInfo, type SchemaInfo } from './list-types.ts';
import type { KObj, PrinterColumn, ResourceDef } from './types.ts';

const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** The resources one CRD object serves (one per served version). */
export function defsFromCrd(crd: KObj): ResourceDef[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const storage = ((spec.versions ?? []) as KObj[]).find((v) => v.storage)?.name;
  return ((spec.versions ?? []) as KObj[])
    .filter((v) => v.served !== false)
    .map((v) => {
      const def: ResourceDef = {
        group: spec.group,
        version: v.name,
        resource: names.plural,
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        singular: names.singular ?? String(names.kind).toLowerCase(),
        namespaced: spec.scope !== 'Cluster',
        verbs: CR_VERBS,
        storageVersionHash: storageVersionHash(spec.group, storage ?? v.name, names.kind),
        builtin: false,
        hasStatus: v.subresources?.status !== undefined,
        hasGeneration: true,
        schema: v.schema?.openAPIV3Schema,
      };
      if (names.shortNames?.length) def.shortNames = names.shortNames;
      if (names.categories?.length) def.categories = names.categories;
      if (v.subresources?.scale) def.scale = v.subresources.scale;
      if (v.additionalPrinterColumns) def.printerColumns = v.additionalPrinterColumns as PrinterColumn[];
      return def;
    });
}

export class Resources {
  private builtins: ResourceDef[];
  private readonly crds = new Map<string, ResourceDef[]>();
  private readonly schemaInfos = new WeakMap<ResourceDef, SchemaInfo>();

  constructor() {
    this.builtins = builtinDefs().map((d) => {
      if (!d.storageVersionHash && d.verbs.includes('list')) d.storageVersionHash = storageVersionHash(d.group, d.version, d.kind);
      return d;
    });
  }

  all(): ResourceDef[] {
    return [...this.builtins, ...[...this.crds.values()].flat()];
  }

  find(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.all().find((d) => d.group === group && d.version === version && d.resource === resource);
  }

  groupVersionServed(group: string, version: string): boolean {
    return this.all().some((d) => d.group === group && d.version === version);
  }

  isBuiltinGroup(group: string): boolean {
    return this.builtins.some((d) => d.group === group);
  }

  setCrd(name: string, defs: ResourceDef[]): void {
    this.crds.set(name, defs);
  }

  removeCrd(name: string): ResourceDef[] {
    const defs = this.crds.get(name) ?? [];
    this.crds.delete(name);
    return defs;
  }

  schemaInfo(def: ResourceDef): SchemaInfo {
    if (def.builtin) return BUILTIN_SCHEMA;
    let info = this.schemaInfos.get(def);
    if (!info) {
      info = crSchemaInfo(def.schema);
      this.schemaInfos.set(def, info);
    }
    return info;
  }
}
