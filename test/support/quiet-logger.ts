// A logger for tests that start the operator's controllers in-process: their lines would bury the
// test runner's output, and a test that needs them captures them itself.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/runtime/logger.ts';

export function quietLogger(): Logger {
  return createLogger({ level: 'error', stream: new Writable({ write: (_c, _e, cb) => cb() }) });
}
