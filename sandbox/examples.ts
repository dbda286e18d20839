// The files of examples/ as the sandbox applies them. Two things differ from a real cluster, and
// each change is said in `changes` (the progress display prints them):
// - Storage: the examples' backup Secrets hold placeholder keys for AWS; the sandbox's S3 server
//   is what they reach here, so the Secrets a cluster names for backups or restore get its keys.
// - Server: no MySQL server installs here, and the local mariadbd plays every MySQL image
//   (sandbox/kubelet/images.ts). The server is not the only thing mysqlVersion chooses: the
//   sidecar takes backups and clones with xtrabackup for MySQL (absent here, and it does not read
//   a MariaDB datadir) and mariabackup for MariaDB. So a MySQL example runs as the MariaDB line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { KIND_MYSQL_CLUSTER } from '../src/api/constants.ts';
import { flavourFromVersionSpec } from '../src/mysql/flavour.ts';
import type { StorageEnv } from '../src/storage/index.ts';

/** The MariaDB line a MySQL example runs as on the sandbox. */
export const SANDBOX_MARIADB = 'mariadb-10.11';

// Plain objects as parsed from YAML; the examples are the project's own files.
// biome-ignore lint/suspicious/noExplicitAny: any kind's fields, read by path where the example is known
export type Manifest = Record<string, any>;

export interface SandboxExample {
  docs: Manifest[];
  /** What was changed for the sandbox, one line each. */
  changes: string[];
}

export function readExample(repo: string, file: string): Manifest[] {
  return parseAllDocuments(readFileSync(join(repo, 'examples', file), 'utf8'))
    .map((d) => d.toJS() as Manifest)
    .filter((d) => d !== null);
}

/** The example's objects made to run on the sandbox (see the file's comment); `docs` are not modified. */
/**
 * `nodeSelector`: attached to a cluster whose own scheduler runs (docs/sandbox.md), the clusters'
 * pods and backup Jobs are steered to the sandbox's node (podSpec.nodeSelector, backupNodeSelector).
 */
export function forSandbox(
  docs: readonly Manifest[],
  s3: StorageEnv,
  opts: { nodeSelector?: Record<string, string> } = {},
): SandboxExample {
  const out = structuredClone(docs) as Manifest[];
  const changes: string[] = [];
  const clusters = out.filter((d) => d.kind === KIND_MYSQL_CLUSTER);
  const storageSecrets = new Set(clusters.flatMap((c) => [c.spec?.backupSecretName, c.spec?.initBucketSecretName]).filter(Boolean));
  for (const d of out) {
    if (d.kind === 'Secret' && storageSecrets.has(d.metadata.name)) {
      d.stringData = { ...s3 };
      delete d.data;
      changes.push(`Secret ${d.metadata.name}: the sandbox's S3 server (${s3.S3_ENDPOINT})`);
    }
  }
  for (const c of clusters) {
    const version = String(c.spec?.mysqlVersion ?? '5.7');
    if (flavourFromVersionSpec(version)?.family === 'mysql') {
      c.spec.mysqlVersion = SANDBOX_MARIADB;
      changes.push(
        `MysqlCluster ${c.metadata.name}: mysqlVersion ${version} runs as ${SANDBOX_MARIADB} (no MySQL server or xtrabackup here)`,
      );
    }
    if (opts.nodeSelector) {
      c.spec.podSpec ??= {};
      const podSpec = c.spec.podSpec;
      podSpec.nodeSelector = { ...(podSpec.nodeSelector ?? {}), ...opts.nodeSelector };
      c.spec.backupNodeSelector = { ...(c.spec.backupNodeSelector ?? {}), ...opts.nodeSelector };
      const sel = Object.entries(opts.nodeSelector)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      changes.push(
        `MysqlCluster ${c.metadata.name}: podSpec.nodeSelector and backupNodeSelector ${sel} (the cluster's scheduler places pods on the sandbox's node only)`,
      );
    }
  }
  return { docs: out, changes };
}

export function toYaml(docs: readonly Manifest[]): string {
  return docs.map((d) => stringify(d)).join('---\n');
}
