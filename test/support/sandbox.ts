// Helpers for tests on the composed sandbox (sandbox/index.ts): why a test cannot run here, the
// example cluster at a chosen size, SQL through a Service's ClusterIP, and what a stopped sandbox
// left behind.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { parseAllDocuments, stringify } from 'yaml';
import { REPO, type Sandbox } from '../../sandbox/index.ts';

/** Why the sandbox cannot run here, or false. */
export function sandboxSkip(): string | false {
  if (process.env.TEST_KUBECONFIG) {
    return 'the composed sandbox runs its own API server: a real cluster\'s would not be reachable from the sandbox bridge (no forwarding off the machine)';
  }
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, the sandbox bridge, mounts)';
  return false;
}

export interface ExampleCluster {
  name: string;
  namespace: string;
  secretName: string;
  rootPassword: string;
}

/**
 * Applies examples/mysqlcluster-mariadb.yaml with `replicas` nodes; `rootPassword` replaces the
 * example's placeholder (a log scan for it needs a value no other text holds).
 */
export async function applyMariaDBExample(sb: Sandbox, replicas: number, namespace = 'default', rootPassword?: string): Promise<ExampleCluster> {
  const docs = parseAllDocuments(readFileSync(join(REPO, 'examples/mysqlcluster-mariadb.yaml'), 'utf8')).map((d) => d.toJS());
  const cluster = docs.find((d) => d.kind === 'MysqlCluster');
  const secret = docs.find((d) => d.kind === 'Secret' && d.metadata.name === cluster.spec.secretName);
  cluster.spec.replicas = replicas;
  if (rootPassword !== undefined) secret.stringData.ROOT_PASSWORD = rootPassword;
  const applied = await sb.kubectl(['apply', '-n', namespace, '-f', '-'], docs.map((d) => stringify(d)).join('---\n'));
  if (!applied.ok) throw new Error(`kubectl apply of the example: ${applied.out}`);
  return { name: cluster.metadata.name, namespace, secretName: secret.metadata.name, rootPassword: secret.stringData.ROOT_PASSWORD };
}

/**
 * Runs SQL through a Service's ClusterIP (the sandbox's proxy), on a new connection each time, as
 * root unless `as` names another user.
 */
export async function sqlThroughService(
  sb: Sandbox, c: ExampleCluster, service: string, text: string, as: { user: string; password: string } = { user: 'root', password: c.rootPassword },
): Promise<Record<string, unknown>[]> {
  const svc = await sb.client.get<{ spec: { clusterIP: string } } & { metadata: object }>({ apiVersion: 'v1', kind: 'Service', namespace: c.namespace, name: service });
  const conn = await mysql.createConnection({ host: svc.spec.clusterIP, port: 3306, ...as, connectTimeout: 3000, multipleStatements: true });
  try {
    const [rows] = await conn.query(text);
    return rows as Record<string, unknown>[];
  } finally {
    await conn.end();
  }
}

/**
 * What a stopped sandbox left: network namespaces and links of its bridge, mounts and processes
 * naming its work dir, the work dir itself. Empty when it removed everything.
 */
export function sandboxLeftovers(workDir: string, bridge: string): string[] {
  const out: string[] = [];
  const netns = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').map((l) => l.split(' ')[0] ?? '');
  out.push(...netns.filter((n) => n.startsWith(`${bridge}-`)).map((n) => `network namespace ${n}`));
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\n').map((l) => l.split(': ')[1]?.split('@')[0] ?? '');
  out.push(...links.filter((l) => l === bridge || l.startsWith(`${bridge}v`)).map((l) => `link ${l}`));
  out.push(...readFileSync('/proc/mounts', 'utf8').split('\n').filter((l) => l.includes(workDir)).map((l) => `mount ${l}`));
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(workDir)) out.push(`process ${pid}: ${cmdline.slice(0, 200)}`);
  }
  if (existsSync(workDir)) out.push(`work dir ${workDir}`);
  return out;
}
