// A cluster for the user and database controllers' integration tests: the node harness's
// MysqlCluster, operated Secret and Pod over one real MariaDB server (test/integration/mysql-node/
// node-cluster.ts), made writable as the orchestrator controller would, with root's password in
// the cluster's Secret; and the operator's user and database controllers running in this process
// (built from their settings as main builds them), resolving the pod to that server.
import { connect } from 'node:net';
import type { TestContext } from 'node:test';
import mysql from 'mysql2/promise';
import { databaseController, databaseControllerDefinition } from '../../../src/controllers/database/controller.ts';
import { userController, userControllerDefinition } from '../../../src/controllers/user/controller.ts';
import type { ProvisionCondition } from '../../../src/controllers/shared/provision.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject, ObjectRef } from '../../../src/runtime/kube/types.ts';
import { startInProcessOperator } from '../../support/in-process-operator.ts';
import type { ApiServer } from '../../../sandbox/apiserver/index.ts';
import type { MariaDBServer } from '../../support/mariadb.ts';
import { secretData } from '../../support/secrets.ts';
import { eventually } from '../../support/wait.ts';
import { CLUSTER, nodeCluster, podName } from '../mysql-node/node-cluster.ts';

/** A quote and a backslash: the password must arrive whole. */
export const ROOT = { user: 'root', password: "root'pw\\1" };

export interface ProvisionEnv {
  ns: string;
  client: KubeClient;
  /** The test API server (its request log); undefined on a real cluster. */
  apiServer: ApiServer | undefined;
  server: MariaDBServer;
  /** SQL as root (the harness's password-less root has a password here). */
  root(text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  ref(kind: 'MysqlUser' | 'MysqlDatabase' | 'Secret', name: string): ObjectRef;
  /** The Ready condition of a MysqlUser or MysqlDatabase once it has `status` (and `reason`, if given). */
  waitReady(kind: 'MysqlUser' | 'MysqlDatabase', name: string, status: 'True' | 'False', reason?: string): Promise<ProvisionCondition>;
  /** Deletes and waits until the object is gone (its finalizer released). */
  deleteAndWait(kind: 'MysqlUser' | 'MysqlDatabase', name: string): Promise<void>;
}

/** The operator's user agent in the API server's request log. */
export const PROVISION_OPERATOR_AGENT = 'mysql-operator/user-test';

/** `env` overrides the operator's environment (WATCH_NAMESPACE '' watches every namespace). */
export async function provisionEnv(t: TestContext, argv: string[] = [], env: Record<string, string> = {}): Promise<ProvisionEnv> {
  const nc = await nodeCluster(t, 1);
  const server = nc.servers[0]!;
  const { client, ns } = nc;
  // What the orchestrator controller does for a master; and root as the image's entrypoint makes it.
  await server.sql('SET GLOBAL read_only = 0');
  await server.sql("ALTER USER root@'127.0.0.1' IDENTIFIED BY ?", [ROOT.password]);
  const root = (text: string, values?: unknown[]) => server.sql(text, values, ROOT);

  await nc.createCluster(1);
  await nc.createOperatedSecret();
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${CLUSTER}-secret`, namespace: ns },
    data: secretData({ ROOT_PASSWORD: ROOT.password }),
  } as never);
  await nc.createPod(0);

  // A long resync: what happens within a test happens through watches, not the periodic pass.
  const loaded = loadConfig(
    argv,
    { LEADER_ELECT: 'false', METRICS_ADDR: '127.0.0.1:0', WATCH_NAMESPACE: ns, RESYNC_PERIOD: '10m', WORKERS: '2', ...env },
    [userControllerDefinition, databaseControllerDefinition],
  );
  const opts = (name: string) => loaded.controllers.find((c) => c.name === name)!.options as { allowCrossNamespace: boolean };
  const resolve = () => ({ host: server.host, port: server.port });
  const operator = await startInProcessOperator(nc.kube.kubeConfig, PROVISION_OPERATOR_AGENT, loaded.runtime, [
    userController({ ...opts('user'), resolve }),
    databaseController({ ...opts('database'), resolve }),
  ]);
  t.after(operator.stop);

  const provision: ProvisionEnv = {
    ns,
    client,
    apiServer: nc.kube.server,
    server,
    root,
    ref: (kind, name) => ({ apiVersion: kind === 'Secret' ? 'v1' : 'mysql.presslabs.org/v1alpha1', kind, namespace: ns, name }),
    waitReady: (kind, name, status, reason) =>
      eventually(
        `${kind} ${name} Ready=${status}${reason ? ` ${reason}` : ''}`,
        async () => {
          const obj = await client.get<KubeObject & { status?: { conditions?: ProvisionCondition[] } }>(provision.ref(kind, name));
          const c = obj.status?.conditions?.find((x) => x.type === 'Ready');
          if (c?.status === status && (reason === undefined || c.reason === reason)) return c;
          // Thrown, not returned: the timeout message shows the last condition.
          throw new Error(`last: ${JSON.stringify(c)}`);
        },
        60_000,
      ),
    async deleteAndWait(kind, name) {
      await client.delete(provision.ref(kind, name));
      await eventually(
        `${kind} ${name} to be gone`,
        async () => (await client.getIfExists(provision.ref(kind, name))) === undefined,
        60_000,
      );
    },
  };
  return provision;
}

export { podName };

/** Logs in as `user` from the loopback address `from` (MariaDB sees it as the client host). */
export async function login(server: MariaDBServer, user: string, password: string, from: string): Promise<mysql.Connection> {
  // mysql2 ignores its own localAddress option: bind the socket ourselves.
  const stream = () => connect({ host: server.host, port: server.port, localAddress: from });
  const c = await mysql.createConnection({ user, password, stream, connectTimeout: 3000 });
  c.on('error', () => undefined);
  return c;
}

/** The server's error number for what `fn` does as that login, or 0 when it succeeds. */
export async function errnoOf(fn: () => Promise<unknown>): Promise<number> {
  try {
    await fn();
    return 0;
  } catch (e) {
    return Number((e as { errno?: number }).errno ?? -1);
  }
}

/** Runs `sql` as `user` from `from` on a new connection; the errno (0: allowed). */
export async function tryAs(server: MariaDBServer, who: { user: string; password: string; from: string }, sql: string): Promise<number> {
  return errnoOf(async () => {
    const c = await login(server, who.user, who.password, who.from);
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  });
}
