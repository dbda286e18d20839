// A real S3-speaking server for tests: s3rver on 127.0.0.1 (sandbox/s3.ts), storing into a temp
// directory, with one bucket. Register `stop` with `t.after`, or pass `t`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, type S3Server } from '../../sandbox/s3.ts';

export type { S3Server } from '../../sandbox/s3.ts';

export async function startS3(opts: { bucket?: string; t?: { after(fn: () => unknown): void } } = {}): Promise<S3Server> {
  const server = await startS3Server({ host: '127.0.0.1', bucket: opts.bucket ?? 'backups', dir: mkdtempSync(join(tmpdir(), 's3rver-')) });
  opts.t?.after(() => server.stop());
  return server;
}
