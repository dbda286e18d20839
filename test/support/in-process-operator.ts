// Controllers of the operator run in the test's process, in one Manager with a client of its own:
// its user agent tells the operator's requests from the test's in the API server's request log,
// and its lines are silenced (a test that needs them captures them itself), unless
// TEST_OPERATOR_LOG names a level: then they go to stderr, to see what a flaky test's controllers did.
import { Writable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Config } from '../../src/runtime/config.ts';
import type { ControllerSpec } from '../../src/runtime/controller.ts';
import { KubeClient } from '../../src/runtime/kube/client.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { createLogger, LOG_LEVELS, type Logger } from '../../src/runtime/logger.ts';

export function quietLogger(): Logger {
  const level = process.env.TEST_OPERATOR_LOG;
  const wanted = LOG_LEVELS.find((l) => l === level);
  if (wanted !== undefined) return createLogger({ level: wanted, stream: process.stderr });
  return createLogger({ level: 'error', stream: new Writable({ write: (_c, _e, cb) => cb() }) });
}

export interface InProcessOperator {
  manager: Manager;
  /** Stops the manager, then closes its client. */
  stop(): Promise<void>;
}

export async function startInProcessOperator(
  kubeConfig: KubeConfig,
  userAgent: string,
  config: Config,
  specs: readonly ControllerSpec[],
): Promise<InProcessOperator> {
  const client = new KubeClient(kubeConfig, { userAgent });
  const manager = new Manager({ config, client, log: quietLogger() });
  for (const spec of specs) manager.add(spec);
  await manager.start();
  return {
    manager,
    stop: async () => {
      await manager.stop();
      client.close();
    },
  };
}
