// `npm run sandbox`: the whole cluster on this machine (docs/architecture.md §6, docs/sandbox.md). Brings up
// the sandbox (startSandbox: API server, workload controllers, pod network and Service proxy,
// kubelet, an S3 server, and chart/ installed with the real `helm install`, so the operator and
// Orchestrator run as the chart's pods), applies an example cluster, shows its pods and conditions
// until it is Ready, then prints how to reach it.
//   npm run sandbox                       keep running; Ctrl-C stops everything and removes .sandbox/
//   npm run sandbox -- --check            stop once the example cluster is Ready (exit 0), or fail (exit 1)
//   npm run sandbox -- --example F.yaml   apply examples/F.yaml instead of the MariaDB example, e.g.
//                                         mysqlcluster.yaml (backups to the sandbox's S3 server)
//   npm run sandbox -- --kubeconfig FILE  attach to that cluster's API server instead of starting one:
//                                         kubelet, pod network, Service proxy and S3 run here, pods reach
//                                         the server through a relay on the bridge (docs/sandbox.md)
//   npm run sandbox -- --kubeconfig FILE --controllers auto|sandbox|cluster
//                                         whose workload controllers and scheduler run (default auto:
//                                         the cluster's when it runs kube-controller-manager)
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KIND_MYSQL_CLUSTER } from '../src/api/constants.ts';
import { names } from '../src/api/names.ts';
import { describeView, waitForClusterReady } from '../sandbox/cluster-view.ts';
import { forSandbox, readExample, toYaml } from '../sandbox/examples.ts';
import type { ControllersChoice } from '../sandbox/decide-attach.ts';
import { KUBECTL, NODE_NAME, REPO, startSandbox, type Sandbox } from '../sandbox/index.ts';

/**
 * The default example: the quickest to Ready, and it needs nothing else. The cluster examples that
 * back up or restore run against the sandbox's S3 server (sandbox/examples.ts); the user and
 * database examples need mysqlcluster.yaml's cluster, as the end-to-end tests apply them.
 */
const DEFAULT_EXAMPLE = 'mysqlcluster-mariadb.yaml';
const READY_TIMEOUT_MS = 300_000;

const check = process.argv.includes('--check');
const exampleArg = process.argv.indexOf('--example');
const example = exampleArg >= 0 ? process.argv[exampleArg + 1]!.replace(/^examples\//, '') : DEFAULT_EXAMPLE;
/** The value after `flag`, or undefined; a flag without one is an error. */
function flagValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  if (i < 0) return undefined;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) {
    console.error(`sandbox: ${flag} needs a value`);
    process.exit(2);
  }
  return v;
}
const kubeconfigArg = flagValue('--kubeconfig');
const kubeconfig = kubeconfigArg === undefined ? undefined : resolve(kubeconfigArg);
if (kubeconfig !== undefined && !existsSync(kubeconfig)) {
  console.error(`sandbox: --kubeconfig ${kubeconfigArg}: no such file`);
  process.exit(2);
}
const controllers = (flagValue('--controllers') ?? 'auto') as ControllersChoice;
if (!['auto', 'sandbox', 'cluster'].includes(controllers)) {
  console.error(`sandbox: --controllers ${controllers}: want auto, sandbox or cluster`);
  process.exit(2);
}
const workDir = join(REPO, '.sandbox');
const started = Date.now();
const say = (line: string): void => {
  console.log(`sandbox ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s  ${line}`);
};

let sandbox: Sandbox | undefined;
/** Attached: what was applied, deleted from the cluster before the sandbox stops (while the operator still runs). */
let appliedYaml: string | undefined;
let stopping: Promise<void> | undefined;
async function stop(code: number): Promise<never> {
  stopping ??= (async () => {
    if (sandbox?.attached && appliedYaml !== undefined) {
      say('attached: kubectl delete of the example from the cluster');
      const r = await sandbox.kubectl(['delete', '--ignore-not-found', '--wait', '--timeout', '120s', '-f', '-'], appliedYaml);
      if (!r.ok) say(`  kubectl delete failed: ${r.out.trim()}`);
    }
    if (sandbox) {
      say('stopping: pods, kubelet, network, controllers, API server; removing .sandbox/');
      await sandbox.stop();
    }
  })();
  await stopping;
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

try {
  sandbox = await startSandbox({ workDir, progress: say, built: true, ...(kubeconfig ? { kubeconfig, controllers } : {}) });
  await sandbox.ready;
  say(`Orchestrator runs as ${(await sandbox.orchestratorRunsAs()) ?? '(not started yet)'}`);

  const onNode = sandbox.attached?.controllers.run === 'cluster' ? { nodeSelector: { 'kubernetes.io/hostname': NODE_NAME } } : {};
  const { docs, changes } = forSandbox(readExample(REPO, example), sandbox.s3.env, onNode);
  const cluster = docs.find((o) => o.kind === KIND_MYSQL_CLUSTER);
  if (!cluster) throw new Error(`examples/${example} has no MysqlCluster`);
  const name: string = cluster.metadata.name;
  const namespace = 'default';
  say(`kubectl apply -f examples/${example}`);
  for (const line of changes) say(`  on the sandbox: ${line}`);
  appliedYaml = toYaml(docs);
  const applied = await sandbox.kubectl(['apply', '-f', '-'], appliedYaml);
  for (const line of applied.out.trim().split('\n')) say(`  ${line}`);
  if (!applied.ok) throw new Error('kubectl apply of the example failed');

  // Only what changed: a pod's readiness or role, a condition's status or reason.
  let shown = new Set<string>();
  const view = await waitForClusterReady(sandbox.client, namespace, name, {
    timeoutMs: READY_TIMEOUT_MS,
    onChange: (v) => {
      const lines = describeView(v);
      for (const line of lines) if (!shown.has(line)) say(`${name}${line}`);
      shown = new Set(lines);
    },
  });
  say(`MysqlCluster ${name} is Ready; master ${view.master}`);

  const master = await sandbox.client.get<{ spec: { clusterIP: string } } & { metadata: object }>({
    apiVersion: 'v1',
    kind: 'Service',
    namespace,
    name: names.masterService(name),
  });
  const kubectl = `${KUBECTL} --kubeconfig ${sandbox.kubeconfig}`;
  console.log(
    [
      '',
      `kubeconfig:  ${sandbox.kubeconfig}`,
      `look:        ${kubectl} get mysql,pods,svc`,
      `logs:        ${kubectl} logs ${view.master} -c mysql     (operator: -n mysql-operator logs deploy/mysql-operator)`,
      `connect:     mysql -h ${master.spec.clusterIP} -u root -p"$(${kubectl} get secret ${cluster.spec.secretName} -o jsonpath='{.data.ROOT_PASSWORD}' | base64 -d)"`,
      `             (${names.masterService(name)}: the master; ${names.replicasService(name)}: the replicas)`,
      '',
    ].join('\n'),
  );

  if (check) await stop(0);
  say('running; Ctrl-C stops everything and removes .sandbox/');
} catch (e) {
  console.error(`sandbox: ${(e as Error).message}`);
  if (sandbox) console.error(`sandbox: logs in ${workDir}/logs and with kubectl logs; stopping`);
  await stop(1);
}
