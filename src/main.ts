// The operator process: validated config (the runtime's settings and every controller's of
// src/controllers/index.ts) → logger → kube client → manager with every controller, each built
// from its own options → run until SIGTERM/SIGINT, then shut down gracefully (exit 0).
// Leadership lost while reconciles kept running ends the process the same way, with exit 1.
import { delimiter } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { controllers } from './controllers/index.ts';
import { ConfigError, helpRequested, helpText, loadConfig, type Config, type OperatorConfig } from './runtime/config.ts';
import { KubeClient } from './runtime/kube/client.ts';
import { TokenBucket } from './runtime/kube/token-bucket.ts';
import { createLogger, errorMessage, type Logger } from './runtime/logger.ts';
import { Manager } from './runtime/manager.ts';
import { RuntimeMetrics } from './runtime/metrics.ts';

function kubeConfigFor(config: Config): KubeConfig {
  const kc = new KubeConfig();
  // A single file named by flag or variable; otherwise client-node's rules (KUBECONFIG list,
  // in-cluster service account, ~/.kube/config).
  if (config.kubeconfig && !config.kubeconfig.includes(delimiter)) kc.loadFromFile(config.kubeconfig);
  else kc.loadFromDefault();
  return kc;
}

/** The manager with every loaded controller, each built from its own options. */
export function buildManager(loaded: OperatorConfig, log: Logger): Manager {
  const config = loaded.runtime;
  const metrics = new RuntimeMetrics({ defaultMetrics: true });
  const rateLimiter = new TokenBucket({ qps: config.kubeApiQps, burst: config.kubeApiBurst, onWait: metrics.rateLimiterObserver() });
  const client = new KubeClient(kubeConfigFor(config), { rateLimiter });
  const manager = new Manager({ config, client, log, metrics });
  for (const c of loaded.controllers) manager.add(c.build());
  return manager;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (helpRequested(argv, controllers)) {
    process.stdout.write(helpText(controllers));
    return 0;
  }
  let loaded: OperatorConfig;
  try {
    loaded = loadConfig(argv, env, controllers);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(
        `mysql-operator: invalid configuration:\n${err.problems.map((p) => `  ${p}\n`).join('')}(--help lists the flags)\n`,
      );
      return 2;
    }
    throw err;
  }
  const config = loaded.runtime;
  const log = createLogger({ level: config.logLevel });
  let manager: Manager;
  try {
    manager = buildManager(loaded, log);
  } catch (err) {
    log.error('cannot start', { error: errorMessage(err) });
    return 1;
  }
  let exitCode = 0;
  const stopped = new Promise<void>((resolve) => {
    const stop = (why: string, code: number, opts: { release?: boolean } = {}) => {
      exitCode = Math.max(exitCode, code);
      log.info('shutting down', { reason: why });
      manager.stop(opts).then(resolve, (err: unknown) => {
        log.error('shutdown failed', { error: errorMessage(err) });
        exitCode = 1;
        resolve();
      });
    };
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals): void => {
      // A second signal means the operator does not want to wait for the graceful path.
      if (++signals > 1) {
        log.warn('second signal; exiting without waiting', { signal: sig });
        process.exit(1);
      }
      stop(sig, 0);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // One process-level handler for programmer errors: log, then shut down like a signal would.
    process.on('uncaughtException', (err) => {
      log.error('uncaught exception', { error: err });
      stop('uncaught exception', 1);
    });
    // Lost leadership with reconciles still running: exit before a new leader starts, so none of
    // them overlaps its work (the Lease is not ours to release).
    void manager.fatal.then((err) => stop(err.message, 1, { release: false }));
    process.on('unhandledRejection', (err) => {
      log.error('unhandled rejection', { error: err });
      stop('unhandled rejection', 1);
    });
  });
  try {
    await manager.start();
  } catch (err) {
    log.error('cannot start', { error: errorMessage(err) });
    // Undo what did start (informers mid-list, the Lease untouched), but never wait past the
    // shutdown timeout for it: the process must end, non-zero, whatever a half start left.
    const gaveUp = Symbol('timeout');
    const ended = await Promise.race([manager.stop(), delay(config.shutdownTimeoutMs, gaveUp, { ref: false })]);
    if (ended === gaveUp) log.warn('shutdown after a failed start did not finish; exiting anyway', { timeoutMs: config.shutdownTimeoutMs });
    manager.client.close();
    return 1;
  }
  log.info('operator started', {
    controllers: manager.controllerNames,
    namespace: config.namespace || '*',
    metrics: manager.httpAddress,
    identity: config.identity,
  });
  await stopped;
  manager.client.close();
  log.info('stopped', { exitCode });
  return exitCode;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2), process.env);
  // Give stdout time to flush, but never hang on a forgotten handle.
  setTimeout(() => process.exit(), 2000).unref();
}
