// A real S3-speaking server: s3rver (npm) as a child process on a chosen address and a free port,
// storing into a directory, with one bucket. The sandbox runs one on its bridge's gateway so pods
// reach it (docs/sandbox.md); tests run one on 127.0.0.1 (test/support/s3.ts). A process 'exit'
// hook and `setpriv --pdeathsig KILL` make sure it dies with the process that started it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { StorageEnv } from '../src/storage/index.ts';

/** s3rver accepts any request signed with this key pair. */
export const S3RVER_KEY = 'S3RVER';

export interface S3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** The storage Secret's keys pointing at this server (docs/compatibility.md), as a Secret would hold them. */
  readonly env: StorageEnv;
  readonly dir: string;
  /** The server process (benchmarks read its CPU time). */
  readonly pid: number;
  /** Kills the server (S3 down); `stop` still cleans up. */
  kill(): Promise<void>;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', () => r()));
}

export async function startS3Server(opts: { host: string; bucket: string; dir: string }): Promise<S3Server> {
  mkdirSync(opts.dir, { recursive: true });
  const bin = createRequire(import.meta.url).resolve('s3rver/bin/s3rver.js');
  const child = spawn(
    'setpriv',
    [
      '--pdeathsig',
      'KILL',
      process.execPath,
      bin,
      '-d',
      opts.dir,
      '-a',
      opts.host,
      '-p',
      '0',
      '--silent',
      '--configure-bucket',
      opts.bucket,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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
  const endpoint = `http://${opts.host}:${port}`;
  const kill = async () => {
    child.kill('SIGKILL');
    await exited(child);
    live.delete(child);
  };
  return {
    endpoint,
    bucket: opts.bucket,
    dir: opts.dir,
    // setpriv execs node: its pid is the server's.
    pid: child.pid!,
    env: {
      AWS_ACCESS_KEY_ID: S3RVER_KEY,
      AWS_SECRET_ACCESS_KEY: S3RVER_KEY,
      AWS_REGION: 'us-east-1',
      S3_ENDPOINT: endpoint,
      S3_PROVIDER: 'Other',
    },
    kill,
    async stop() {
      await kill();
      rmSync(opts.dir, { recursive: true, force: true });
    },
  };
}
