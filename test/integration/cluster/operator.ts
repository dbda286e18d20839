// Runs the real manager with the cluster controller against a test API (kube-env), for the
// cluster controller's integration tests and benchmark. The controller is built as main builds
// it: from loadConfig() of the flags and variables a test gives, the rest being the real defaults.
import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../../src/runtime/config.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { startInProcessOperator } from '../../support/in-process-operator.ts';
import type { Manager } from '../../../src/runtime/manager.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { clusterControllerDefinition } from '../../../src/controllers/cluster/controller.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { ReconcileLog } from '../../support/reconciles.ts';

export const OPERATOR_AGENT = 'mysql-operator/cluster-test';

export interface RunningOperator {
  manager: Manager;
  /** Every finished reconcile of the cluster controller. */
  reconciles: ReconcileLog;
  stop(): Promise<void>;
}

/** `definitions`: the controllers to run, the cluster controller by default (its reconciles are recorded). */
export async function startOperator(
  kubeConfig: KubeConfig,
  namespace: string,
  argv: string[] = [],
  env: Record<string, string> = {},
  definitions: Parameters<typeof loadConfig>[2] = [clusterControllerDefinition],
): Promise<RunningOperator> {
  const loaded = loadConfig(
    argv,
    { LEADER_ELECT: 'false', METRICS_ADDR: '127.0.0.1:0', WATCH_NAMESPACE: namespace, RESYNC_PERIOD: '1s', WORKERS: '4', ...env },
    definitions,
  );
  const reconciles = new ReconcileLog();
  const specs = loaded.controllers.map((controller) => controller.build());
  for (const spec of specs) reconciles.record(spec);
  return { ...(await startInProcessOperator(kubeConfig, OPERATOR_AGENT, loaded.runtime, specs)), reconciles };
}

export interface TestApi {
  env: KubeEnv;
  namespace: string;
  /** The test's own client, with a user agent other than the operator's. */
  client: KubeClient;
}

/** Why a check of the operator's write requests cannot run on a real cluster. */
export const NEEDS_REQUEST_LOG = "needs the test API server's request log: a real cluster does not list the requests it received";

/** A fresh namespace on the test API and a client for the test; closed after the test. */
export async function testApi(t: TestContext): Promise<TestApi> {
  const env = await kubeEnv(t);
  const client = new KubeClient(env.kubeConfig, { userAgent: 'cluster-test/1.0' });
  t.after(() => client.close());
  return { env, namespace: env.namespace, client };
}

/** `testApi` with the operator already running in its namespace; stopped after the test. */
export async function operatorTest(
  t: TestContext,
  argv: string[] = [],
  definitions?: Parameters<typeof startOperator>[4],
): Promise<TestApi & { op: RunningOperator }> {
  const api = await testApi(t);
  const op = await startOperator(api.env.kubeConfig, api.namespace, argv, {}, definitions);
  t.after(() => op.stop());
  return { ...api, op };
}

/** The documents of a YAML file, placed in `namespace`. */
export function manifests(path: string | URL, namespace: string): KubeObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null)
    .map((d) => ({ ...d, metadata: { ...d.metadata, namespace } }));
}
