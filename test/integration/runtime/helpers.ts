// Shared helpers of the runtime's integration tests.
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadConfig, type Config } from '../../../src/runtime/config.ts';
import type { ControllerSpec } from '../../../src/runtime/controller.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { createLogger, type Logger } from '../../../src/runtime/logger.ts';
import { Manager, type ManagerOptions } from '../../../src/runtime/manager.ts';

/** A logger whose JSON lines are kept in memory (printed when DEBUG_TEST_LOGS is set). */
export function memoryLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      const text = String(chunk);
      lines.push(...text.split('\n').filter(Boolean));
      if (process.env.DEBUG_TEST_LOGS) process.stderr.write(text);
      cb();
    },
  });
  return { log: createLogger({ stream, level: 'debug' }), lines };
}

/** A config for tests: loopback metrics on a free port, short leader-election timings. */
export function testConfig(extra: string[] = [], env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig(
    [
      '--metrics-addr',
      '127.0.0.1:0',
      '--lease-duration',
      '3s',
      '--renew-deadline',
      '2s',
      '--retry-period',
      '250ms',
      '--shutdown-timeout',
      '10s',
      ...extra,
    ],
    env,
  ).runtime;
}

/** A started Manager running `spec`, with its own client and an in-memory log; stopped after the test. */
export async function runManager(
  t: TestContext,
  kubeConfig: KubeConfig,
  spec: ControllerSpec,
  config: Config,
  opts: Pick<ManagerOptions, 'informer'> = {},
): Promise<{ manager: Manager; client: KubeClient; lines: string[] }> {
  const client = new KubeClient(kubeConfig);
  const { log, lines } = memoryLogger();
  const manager = new Manager({ config, client, log, ...opts });
  manager.add(spec);
  await manager.start();
  t.after(async () => {
    await manager.stop();
    client.close();
  });
  return { manager, client, lines };
}
