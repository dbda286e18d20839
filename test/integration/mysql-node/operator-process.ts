// The operator as a separate process for the node controller's integration tests, so a test can
// SIGKILL it like a crashed pod. Only the node controller runs; pods resolve to the test's MariaDB
// servers. Environment:
//   KUBECONFIG            kubeconfig file of the test API server (or a real cluster)
//   WATCH_NAMESPACE       the test's namespace
//   NODE_TEST_ENDPOINTS   JSON { "<pod>": "host:port" }
//   NODE_TEST_KILL_AFTER  optional: SIGKILL this process right after its N-th performed step
//   NODE_TEST_KILL_POD    optional: count only the steps performed on this pod
import { KubeConfig } from '@kubernetes/client-node';
import { nodeController } from '../../../src/controllers/mysql-node/controller.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { ReconcileLog } from '../../support/reconciles.ts';

const endpoints = JSON.parse(process.env.NODE_TEST_ENDPOINTS ?? '{}') as Record<string, string>;
const killAfter = Number(process.env.NODE_TEST_KILL_AFTER ?? '0');
const killPod = process.env.NODE_TEST_KILL_POD;
let steps = 0;

const config = loadConfig(['--metrics-addr', '127.0.0.1:0', '--resync-period', '2s', '--workers', '3'], {
  ...process.env,
  LEADER_ELECT: 'false',
}).runtime;
const log = createLogger({ level: 'info' });
const kc = new KubeConfig();
kc.loadFromFile(process.env.KUBECONFIG ?? '');
const manager = new Manager({ config, client: new KubeClient(kc), log });
const spec = nodeController({
  resolve: (pod) => {
    const e = endpoints[pod.name];
    if (!e) return { host: pod.fqdn, port: 3306 };
    const i = e.lastIndexOf(':');
    return { host: e.slice(0, i), port: Number(e.slice(i + 1)) };
  },
  connectRetrySeconds: 1,
  afterStep: (pod, step) => {
    if (killPod !== undefined && pod !== killPod) return;
    steps++;
    if (killAfter > 0 && steps >= killAfter) {
      process.stdout.write(`${JSON.stringify({ message: 'test: killing the operator', pod, step: step.kind, steps })}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
  },
});
// Each finished reconcile as a line the test reads back (test/support/reconciles.ts).
new ReconcileLog((r) => process.stdout.write(ReconcileLog.line(r))).record(spec);
manager.add(spec);
await manager.start();
process.once('SIGTERM', () => {
  manager.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
