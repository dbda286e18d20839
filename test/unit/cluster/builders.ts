// Small builders for the cluster controller's unit tests, and access to the anchor fixtures.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { V1Secret } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH } from '../../../src/api/constants.ts';
import type { MysqlCluster, MysqlClusterSpec } from '../../../src/api/index.ts';
import { clusterOptions, type ClusterControllerOptions } from '../../../src/controllers/cluster/options.ts';
import { renderCluster, renderConfig, type DesiredState, type RenderInput } from '../../../src/controllers/cluster/render-cluster.ts';
import type { ProbeStyle } from '../../../src/controllers/cluster/render-statefulset.ts';
import { validateCluster } from '../../../src/controllers/cluster/validate-cluster.ts';

export const ANCHOR_DIR = fileURLToPath(new URL('../../fixtures/anchor-v0.6.3/', import.meta.url));
export const GOLDEN_DIR = fileURLToPath(new URL('../../golden/cluster/', import.meta.url));

export function anchorText(file: string): string {
  return readFileSync(ANCHOR_DIR + file, 'utf8');
}

export function anchorObject<T = Record<string, unknown>>(file: string): T {
  return parse(anchorText(file)) as T;
}

/** The operator options of the anchor's v0.6.3 chart install the fixtures assume. */
export const ANCHOR_OPTIONS: ClusterControllerOptions = clusterOptions({
  orcTopologyUser: 'orchestrator',
  orcTopologyPassword: 'PlaceOrc10',
});

export function cluster(
  spec: Partial<MysqlClusterSpec> = {},
  meta: { name?: string; namespace?: string; uid?: string; generation?: number } = {},
): MysqlCluster {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: {
      name: meta.name ?? 'my-db',
      namespace: meta.namespace ?? 'default',
      uid: meta.uid ?? '11111111-2222-3333-4444-555555555555',
      ...(meta.generation !== undefined ? { generation: meta.generation } : {}),
    },
    spec: { secretName: 'my-db-secret', ...spec },
  };
}

export function anchorCluster(): MysqlCluster {
  return anchorObject<MysqlCluster>('mysqlcluster.yaml');
}

export const ROOT_SECRET = {
  metadata: { name: 'my-db-secret', namespace: 'default' },
  data: { ROOT_PASSWORD: Buffer.from('r00t').toString('base64') },
};

/** Renders a valid cluster with a fixed password generator and the given rollout annotations and probes. */
export function render(
  c: MysqlCluster,
  opts: ClusterControllerOptions = ANCHOR_OPTIONS,
  rollout: Record<string, string> = { config_rev: '<CONFIGMAP_RESOURCE_VERSION>', secret_rev: '<OPERATED_SECRET_RESOURCE_VERSION>' },
  existingSecretData: Record<string, string> = {},
  userSecret: V1Secret = ROOT_SECRET,
  // The anchor's revisions mark an adopted template, which keeps the anchor's probes.
  probes?: ProbeStyle,
  extra: Partial<RenderInput> = {},
): DesiredState {
  const v = validateCluster(c, userSecret, opts);
  if (!v.ok) throw new Error(v.problems.map((p) => p.message).join('; '));
  let n = 0;
  const input: RenderInput = {
    cluster: c,
    version: v.version,
    images: v.images,
    rootPasswordKey: v.rootPasswordKey,
    opts,
    existingSecretData,
    generatePassword: () => `Generated${String(++n).padStart(9, '0')}`,
    ...extra,
  };
  const style = probes ?? (ANNOTATION_CONFIG_HASH in rollout ? 'fast' : 'anchor');
  return renderCluster(input, renderConfig(input), { rolloutAnnotations: rollout, probes: style });
}

/** JSON round trip: drops undefined fields, as the wire does. */
export function wire<T>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}
