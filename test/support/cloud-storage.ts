// Local stand-ins for the gs:// and azure:// backends' tests, each its own process on 127.0.0.1
// and a free port, storing into a temporary directory that `stop` removes:
// - Azurite, Microsoft's Azure Storage emulator (npm `azurite`), its blob service only;
// - for Google Cloud Storage, which has no emulator here, test/support/gcs-server.ts, a small
//   server answering as the JSON API documents it.
// Register `stop` with `t.after`, or pass `t`. A process 'exit' hook and `setpriv --pdeathsig
// KILL` make sure the servers die with the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StorageEnv } from '../../src/storage/index.ts';

export interface CloudServer {
  readonly endpoint: string;
  /** The bucket (gs) or container (azure) the server has. */
  readonly bucket: string;
  /** The storage Secret's keys pointing at this server, as a Secret would hold them. */
  readonly env: StorageEnv;
  readonly dir: string;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

type After = { after(fn: () => unknown): void };

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  listening: RegExp,
  what: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  live.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = listening.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before listening: ${err.trim() || out.trim()}`)));
  });
  return { child, port };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }
  live.delete(child);
}

/** Azurite's well-known development account and key (public, the same in every Azurite). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export async function startAzurite(opts: { container?: string; t?: After } = {}): Promise<CloudServer> {
  const dir = mkdtempSync(join(tmpdir(), 'azurite-'));
  const bin = createRequire(import.meta.url).resolve('azurite/dist/src/blob/main.js');
  const { child, port } = await startProcess(
    [bin, '--blobHost', '127.0.0.1', '--blobPort', '0', '--location', dir, '--silent', '--disableTelemetry', '--skipApiVersionCheck'],
    process.env,
    /listens on http:\/\/127\.0\.0\.1:(\d+)/,
    'azurite',
  );
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const container = opts.container ?? 'backups';
  const server: CloudServer = {
    endpoint,
    bucket: container,
    dir,
    env: { AZUREBLOB_ACCOUNT: AZURITE_ACCOUNT, AZUREBLOB_KEY: AZURITE_KEY, AZUREBLOB_ENDPOINT: endpoint },
    async stop() {
      await kill(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  opts.t?.after(() => server.stop());
  // The container, as an operator's user creates it before the first backup.
  const { BlobServiceClient, StorageSharedKeyCredential } = await import('@azure/storage-blob');
  await new BlobServiceClient(endpoint, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY))
    .getContainerClient(container)
    .create();
  return server;
}

export async function startGcsServer(opts: { bucket?: string; t?: After } = {}): Promise<CloudServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gcs-server-'));
  const bucket = opts.bucket ?? 'backups';
  const { child, port } = await startProcess(
    [join(import.meta.dirname, 'gcs-server.ts'), dir, bucket],
    process.env,
    /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    'gcs-server',
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const server: CloudServer = {
    endpoint,
    bucket,
    dir,
    env: { GCS_ENDPOINT: endpoint, GCS_PROJECT_ID: 'test-project' },
    async stop() {
      await kill(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  opts.t?.after(() => server.stop());
  return server;
}
