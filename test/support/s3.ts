// A real S3-speaking server for tests: s3rver on 127.0.0.1 (sandbox/s3.ts), storing into a temp
// directory, with one bucket. Register `stop` with `t.after`, or pass `t`. And S3 going down
// mid-upload, for the backup tests.
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, type S3Server } from '../../sandbox/s3.ts';
import type { StorageEnv } from '../../src/storage/index.ts';

export type { S3Server } from '../../sandbox/s3.ts';

export async function startS3(opts: { bucket?: string; t?: { after(fn: () => unknown): void } } = {}): Promise<S3Server> {
  const server = await startS3Server({ host: '127.0.0.1', bucket: opts.bucket ?? 'backups', dir: mkdtempSync(join(tmpdir(), 's3rver-')) });
  opts.t?.after(() => server.stop());
  return server;
}

/**
 * S3 going down in the middle of a request: a TCP relay in front of `server` that, once
 * `afterBytes` of requests went through it, kills the server and drops every connection, and
 * from then on refuses connections. `env` is the server's keys with the relay as the endpoint.
 */
export async function s3DownMidUpload(
  server: S3Server,
  afterBytes: number,
  t: { after(fn: () => unknown): void },
): Promise<{ env: StorageEnv; cut: Promise<void> }> {
  const upstream = new URL(server.endpoint);
  const sockets = new Set<Socket>();
  let sent = 0;
  let cutting = false;
  let down!: () => void;
  const cut = new Promise<void>((resolve) => (down = resolve));
  const relay = createServer((client) => {
    const to = connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, to]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    to.pipe(client);
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (sent <= afterBytes) return void to.write(chunk);
      if (cutting) return;
      cutting = true;
      client.pause();
      relay.close();
      void server.kill().then(() => {
        for (const s of sockets) s.destroy();
        down();
      });
    });
    client.on('close', () => to.destroy());
    to.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    relay.close();
  });
  const { port } = relay.address() as AddressInfo;
  return { env: { ...server.env, S3_ENDPOINT: `http://127.0.0.1:${port}` }, cut };
}
