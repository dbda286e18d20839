// The sidecar's logger: the operator's line format (one JSON object per line, fields and message
// passed through src/runtime/redact.ts) without winston. The sidecar container's memory budget
// is 100 MB (anchor request: 64 Mi) and winston's module graph alone costs ~10 MB of resident
// memory; the operator, which is not so constrained, keeps src/runtime/logger.ts.
import type { Logger, LogLevel } from '../runtime/logger.ts';
import { redact, redactString } from '../runtime/redact.ts';

const RANK: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface SidecarLogOptions {
  stream?: NodeJS.WritableStream;
  level?: LogLevel;
  fields?: Record<string, unknown>;
}

export function sidecarLogger(opts: SidecarLogOptions = {}): Logger {
  const stream = opts.stream ?? process.stderr;
  const max = RANK[opts.level ?? 'info'];
  const base = opts.fields ?? {};
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (RANK[level] > max) return;
    const line = { ...base, level, message: redactString(message), ...fields, timestamp: new Date().toISOString() };
    stream.write(`${JSON.stringify(redact(line))}\n`);
  };
  return {
    error: (m, f) => write('error', m, f),
    warn: (m, f) => write('warn', m, f),
    info: (m, f) => write('info', m, f),
    debug: (m, f) => write('debug', m, f),
    child: (fields) => sidecarLogger({ ...opts, stream, fields: { ...base, ...fields } }),
  };
}
