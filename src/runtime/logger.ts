// The operator's structured logger: winston, one JSON object per line, every field and message
// passed through `redact` before it is written.
import winston from 'winston';
import { redact, redactString } from './redact.ts';

export { redact, redactString, errorMessage, MASK } from './redact.ts';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line (e.g. `{ controller: 'cluster' }`). */
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stdout by default. Tests pass a stream to capture output. */
  stream?: NodeJS.WritableStream;
  /** Fields on every line. */
  defaultFields?: Record<string, unknown>;
}

const redactFormat = winston.format((info) => {
  const level = info.level;
  const cleaned = redact({ ...info }) as Record<string, unknown>;
  for (const k of Object.keys(info)) delete (info as Record<string, unknown>)[k];
  Object.assign(info, cleaned);
  info.level = level;
  if (typeof info.message !== 'string') info.message = redactString(String(info.message));
  return info;
});

class WinstonLogger implements Logger {
  readonly #w: winston.Logger;
  constructor(w: winston.Logger) {
    this.#w = w;
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.#w.error(message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.#w.warn(message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.#w.info(message, fields);
  }
  debug(message: string, fields?: Record<string, unknown>): void {
    this.#w.debug(message, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return new WinstonLogger(this.#w.child(fields));
  }
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const w = winston.createLogger({
    level: opts.level ?? 'info',
    defaultMeta: opts.defaultFields,
    format: winston.format.combine(winston.format.timestamp(), redactFormat(), winston.format.json()),
    transports: [new winston.transports.Stream({ stream: opts.stream ?? process.stdout })],
  });
  return new WinstonLogger(w);
}
