// A real S3-speaking server for tests: s3rver (npm) as a child process on 127.0.0.1 and a free
// port, storing into a temp directory, with one bucket. Register `stop` with `t.after`; a process
// 'exit' hook and `setpriv --pdeathsig KILL` make sure it dies with the test process anyway.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StorageEnv } from '../../src/storage/index.ts';

/** s3rver accepts any request signed with this key pair. */
export const S3RVER_KEY = 'S3RVER';

export interface S3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** The storage Secret's keys pointing at this server (COMPAT.md), as a Secret would hold them. */
  readonly env: StorageEnv;
  readonly dir: string;
  /** The server process (benchmarks read its CPU time). */
  readonly pid: number;
  /** Kills the server (S3 down); `stop` still cleans up. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', () => r()));
}

export async function startS3(opts: { bucket?: string; t?: { after(fn: () => unknown): void } } = {}): Promise<S3Server> {
  const bucket = opts.bucket ?? 'backups';
  const dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  const bin = createRequire(import.meta.url).resolve('s3rver/bin/s3rver.js');
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', process.execPath, bin, '-d', dir, '-a', '127.0.0.1', '-p', '0', '--silent', '--configure-bucket', bucket], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = /listening on [\d.]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${err.trim()}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const kill = async () => {
    child.kill('SIGKILL');
    await exited(child);
    live.delete(child);
  };
  const server: S3Server = {
    endpoint,
    bucket,
    dir,
    // setpriv execs node: its pid is the server's.
    pid: child.pid!,
    env: { AWS_ACCESS_KEY_ID: S3RVER_KEY, AWS_SECRET_ACCESS_KEY: S3RVER_KEY, AWS_REGION: 'us-east-1', S3_ENDPOINT: endpoint, S3_PROVIDER: 'Other' },
    kill,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  opts.t?.after(() => server.stop());
  return server;
}
