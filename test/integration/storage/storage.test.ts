// Backup storage against real backends: a real S3-speaking server (s3rver, started here),
// Azurite (Microsoft's Azure Storage emulator), a server answering as Google Cloud Storage's JSON
// API documents (test/support/gcs-server.ts; Google publishes no emulator), each its own
// process, and the file system. What the backup Job, the restore and retention rely on: big objects stream
// through multipart uploads and come back byte for byte; a body that breaks midway leaves
// nothing behind; list and delete; clear errors without secrets.
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { storageFor, StorageError, type BackupStorage } from '../../../src/storage/index.ts';
import { FIRST_PART_SIZE } from '../../../src/storage/s3-upload.ts';
import { GCS_CHUNK_SIZE } from '../../../src/storage/gcs.ts';
import { startS3, type S3Server } from '../../support/s3.ts';
import { startAzurite, startGcsServer } from '../../support/cloud-storage.ts';
import { eventually } from '../../support/wait.ts';

/** `n` MiB of random bytes, each MiB fresh, and their sha256 once fully read. */
function randomBody(mib: number, failAfterMib?: number): { body: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  const body = new Readable({
    read() {
      if (failAfterMib !== undefined && sent === failAfterMib) {
        this.destroy(new Error('source broke off'));
        return;
      }
      if (sent === mib) return void this.push(null);
      const chunk = randomBytes(1 << 20);
      hash.update(chunk);
      sent++;
      this.push(chunk);
    },
  });
  return { body, digest: () => hash.digest('hex') };
}

async function sha256Of(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

interface Backend {
  name: string;
  base: string;
  storage: BackupStorage;
}

async function backends(t: { after(fn: () => unknown): void }): Promise<{ s3: S3Server; all: Backend[] }> {
  const s3 = await startS3({ t });
  const dir = mkdtempSync(join(tmpdir(), 'storage-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fileBase = `${pathToFileURL(dir).href}/`;
  const s3Base = `s3://${s3.bucket}/cluster-a/`;
  const [gcs, azure] = await Promise.all([startGcsServer({ t }), startAzurite({ t })]);
  const gsBase = `gs://${gcs.bucket}/cluster-a/`;
  const azureBase = `azure://${azure.bucket}/cluster-a/`;
  return {
    s3,
    all: [
      { name: 's3', base: s3Base, storage: storageFor(s3Base, s3.env) },
      { name: 'gs', base: gsBase, storage: storageFor(gsBase, gcs.env) },
      { name: 'azure', base: azureBase, storage: storageFor(azureBase, azure.env) },
      { name: 'file', base: fileBase, storage: storageFor(fileBase, {}) },
    ],
  };
}

test('storage round trips on s3, gs, azure and file', async (t) => {
  const { s3, all } = await backends(t);
  const mib = Math.ceil((2.5 * FIRST_PART_SIZE) / (1 << 20)); // three parts on S3

  for (const b of all) {
    await t.test(`${b.name}: a ${mib} MiB object streams up in parts and comes back byte for byte`, async () => {
      const url = `${b.base}one.xbackup.gz`;
      const { body, digest } = randomBody(mib);
      const { bytes } = await b.storage.upload(url, body);
      assert.equal(bytes, mib << 20);
      assert.equal(await sha256Of(await b.storage.openRead(url)), digest());
      const listed = await b.storage.list(b.base);
      assert.deepEqual(
        listed.map((o) => [o.url, o.bytes]),
        [[url, mib << 20]],
      );
      assert.ok(listed[0]!.lastModified.getTime() > Date.now() - 3600_000);
    });

    await t.test(`${b.name}: a body that breaks midway leaves nothing at the name and nothing listed`, async () => {
      const url = `${b.base}broken.xbackup.gz`;
      const { body } = randomBody(mib, mib - 4);
      await assert.rejects(b.storage.upload(url, body), /source broke off/);
      await assert.rejects(b.storage.openRead(url), (err: unknown) => err instanceof StorageError && err.code === 'not-found');
      assert.deepEqual(
        (await b.storage.list(b.base)).map((o) => o.url),
        [`${b.base}one.xbackup.gz`],
      );
    });

    await t.test(`${b.name}: list is of one folder (or name prefix); delete removes, and a missing object deletes fine`, async () => {
      await b.storage.upload(`${b.base}two.xbackup.gz`, Readable.from([Buffer.from('two')]));
      await b.storage.upload(`${b.base}sub/three.xbackup.gz`, Readable.from([Buffer.from('three')]));
      assert.deepEqual((await b.storage.list(b.base)).map((o) => o.url).sort(), [`${b.base}one.xbackup.gz`, `${b.base}two.xbackup.gz`]);
      assert.deepEqual(
        (await b.storage.list(`${b.base}tw`)).map((o) => o.url),
        [`${b.base}two.xbackup.gz`],
      );
      await b.storage.delete(`${b.base}one.xbackup.gz`);
      await b.storage.delete(`${b.base}one.xbackup.gz`);
      await b.storage.delete(`${b.base}never-was.xbackup.gz`);
      assert.deepEqual(
        (await b.storage.list(b.base)).map((o) => o.url),
        [`${b.base}two.xbackup.gz`],
      );
    });
  }

  await t.test("s3 with AWS's integrity checksums (S3_PROVIDER=AWS): multipart round trip", async () => {
    const url = `s3://${s3.bucket}/aws-mode/one.xbackup.gz`;
    const aws = storageFor(url, { ...s3.env, S3_PROVIDER: 'AWS', S3_FORCE_PATH_STYLE: 'true' });
    const { body, digest } = randomBody(mib);
    await aws.upload(url, body);
    assert.equal(await sha256Of(await aws.openRead(url)), digest());
  });

  await t.test('s3: nothing of the broken upload is left on the server (no parts, no object)', () => {
    const files = readdirSync(s3.dir, { recursive: true }).map(String);
    assert.ok(!files.some((f) => f.includes('broken')), files.join(', '));
  });
});

test('s3 errors say what is wrong and never include the secret', async (t) => {
  const s3 = await startS3({ t });
  const url = `s3://${s3.bucket}/x.xbackup.gz`;

  // s3rver checks the access key id but not SigV4 signatures, so a wrong key id stands for wrong credentials.
  await t.test('wrong credentials → access denied', async () => {
    const storage = storageFor(url, { ...s3.env, AWS_ACCESS_KEY_ID: 'NOT-A-KEY', AWS_SECRET_ACCESS_KEY: 'wrong-secret-value' });
    await assert.rejects(storage.upload(url, Readable.from([Buffer.from('x')])), (err: unknown) => {
      assert.ok(err instanceof StorageError);
      assert.equal(err.code, 'access-denied');
      assert.ok(!err.message.includes('wrong-secret-value'), err.message);
      return true;
    });
  });

  await t.test('a bucket that does not exist → no-bucket', async () => {
    const other = 's3://no-such-bucket/x.xbackup.gz';
    await assert.rejects(
      storageFor(other, s3.env).openRead(other),
      (err: unknown) => err instanceof StorageError && err.code === 'no-bucket' && err.message.includes('no-such-bucket'),
    );
  });

  await t.test('a missing object → not-found naming it', async () => {
    await assert.rejects(
      storageFor(url, s3.env).openRead(url),
      (err: unknown) => err instanceof StorageError && err.code === 'not-found' && err.message.includes(url),
    );
  });

  await t.test('only one of the key pair → an error naming the missing key', () => {
    assert.throws(() => storageFor(url, { AWS_ACCESS_KEY_ID: 'k' }), /AWS_SECRET_ACCESS_KEY is missing/);
  });

  await t.test('S3 down mid-upload → the upload fails as unreachable and no object was written', async () => {
    const { body } = randomBody(64);
    let killed = false;
    body.on('data', () => {
      if (!killed) {
        killed = true;
        void s3.kill();
      }
    });
    await assert.rejects(
      storageFor(url, s3.env).upload(url, body),
      (err: unknown) => err instanceof StorageError && err.code === 'unreachable',
    );
    assert.ok(
      !readdirSync(s3.dir, { recursive: true })
        .map(String)
        .some((f) => f.includes('x.xbackup.gz')),
    );
  });
});

test('gs and azure errors say what is wrong and never include the secret', async (t) => {
  const [gcs, azure] = await Promise.all([startGcsServer({ t }), startAzurite({ t })]);
  const az = `azure://${azure.bucket}/x.xbackup.gz`;
  const gs = `gs://${gcs.bucket}/x.xbackup.gz`;

  await t.test('azure: a wrong account key → access denied, the key not in the message', async () => {
    const wrongKey = Buffer.from('not the account key, but base64 of the right length....').toString('base64');
    const storage = storageFor(az, { ...azure.env, AZUREBLOB_KEY: wrongKey });
    await assert.rejects(storage.upload(az, Readable.from([Buffer.from('x')])), (err: unknown) => {
      assert.ok(err instanceof StorageError, String(err));
      assert.equal(err.code, 'access-denied');
      assert.match(err.message, /AZUREBLOB_KEY/);
      assert.ok(!err.message.includes(wrongKey) && !err.message.includes(azure.env.AZUREBLOB_KEY!), err.message);
      return true;
    });
  });

  await t.test('azure: a container that does not exist → no-bucket naming it', async () => {
    const other = 'azure://no-such-container/x.xbackup.gz';
    await assert.rejects(
      storageFor(other, azure.env).upload(other, Readable.from([Buffer.from('x')])),
      (err: unknown) => err instanceof StorageError && err.code === 'no-bucket' && err.message.includes('no-such-container'),
    );
  });

  await t.test('gs and azure: a missing object → not-found naming it', async () => {
    for (const [url, env] of [
      [az, azure.env],
      [gs, gcs.env],
      ['gs://no-such-bucket/x.xbackup.gz', gcs.env],
    ] as const) {
      await assert.rejects(
        storageFor(url, env).openRead(url),
        (err: unknown) => err instanceof StorageError && err.code === 'not-found' && err.message.includes(url),
        url,
      );
    }
  });

  await t.test('gs: a broken upload leaves its session unfinished on the server and no object', async () => {
    const url = `gs://${gcs.bucket}/broken/one.xbackup.gz`;
    const { body } = randomBody(20, 17);
    await assert.rejects(storageFor(url, gcs.env).upload(url, body), /source broke off/);
    const stored = readdirSync(join(gcs.dir, 'buckets', gcs.bucket));
    assert.ok(!stored.some((f) => f.includes('one.xbackup.gz')), stored.join(', '));
    // The session holds the chunks sent before the break: the upload did stream, and stopped.
    const sessions = readdirSync(join(gcs.dir, 'uploads')).filter((f) => !f.endsWith('.json'));
    assert.equal(sessions.length, 1);
  });

  await t.test('azure: a broken upload leaves only uncommitted blocks, which no listing shows', async () => {
    const url = `azure://${azure.bucket}/broken/one.xbackup.gz`;
    const { body } = randomBody(20, 17);
    await assert.rejects(storageFor(url, azure.env).upload(url, body), /source broke off/);
    // Azurite keeps block data in extent files: the blocks staged before the break are there
    // (the upload did stream, 8 MiB a block), and no listing shows them.
    const extents = join(azure.dir, '__blobstorage__');
    const staged = () => readdirSync(extents).reduce((n, f) => n + statSync(join(extents, f)).size, 0);
    await eventually('the blocks staged before the break in Azurite', () => staged() >= 16 << 20);
    assert.deepEqual(await storageFor(url, azure.env).list(`azure://${azure.bucket}/broken/`), []);
  });

  await t.test('gs: the storage unreachable → unreachable', async () => {
    const url = 'gs://backups/x.xbackup.gz';
    const env = { GCS_ENDPOINT: 'http://127.0.0.1:1' };
    await assert.rejects(storageFor(url, env).delete(url), (err: unknown) => err instanceof StorageError && err.code === 'unreachable');
  });
});

/** The bytes in the files under `dir`. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true })
    .map((f) => statSync(join(dir, String(f))))
    .reduce((n, s) => n + (s.isFile() ? s.size : 0), 0);
}

test('gs and azure: an uploading process killed midway leaves nothing at the name', async (t) => {
  const [gcs, azure] = await Promise.all([startGcsServer({ t }), startAzurite({ t })]);
  const storageModule = pathToFileURL(join(import.meta.dirname, '../../../src/storage/index.ts')).href;
  for (const [cloud, server, staged] of [
    ['gs', gcs, () => bytesUnder(join(gcs.dir, 'uploads'))],
    ['azure', azure, () => bytesUnder(join(azure.dir, '__blobstorage__'))],
  ] as const) {
    await t.test(cloud, async () => {
      const url = `${cloud}://${server.bucket}/killed/one.xbackup.gz`;
      // A body that never ends, uploaded by a process of its own, as the backup Job's container.
      const script = `
        import { Readable } from 'node:stream';
        import { randomBytes } from 'node:crypto';
        const { storageFor } = await import(${JSON.stringify(storageModule)});
        const body = new Readable({ read() { this.push(randomBytes(1 << 20)); } });
        await storageFor(${JSON.stringify(url)}, JSON.parse(process.env.KEYS)).upload(${JSON.stringify(url)}, body);
        console.log('the upload ended');`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, KEYS: JSON.stringify(server.env) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d));
      child.stderr.on('data', (d: Buffer) => (output += d));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      t.after(() => child.kill('SIGKILL'));
      await eventually(`two chunks of the ${cloud} upload on the server (${output})`, () => staged() >= 16 << 20);
      child.kill('SIGKILL');
      await exited;
      assert.ok(!output.includes('the upload ended'), output);
      const storage = storageFor(url, server.env);
      await assert.rejects(storage.openRead(url), (err: unknown) => err instanceof StorageError && err.code === 'not-found');
      assert.deepEqual(await storage.list(`${cloud}://${server.bucket}/killed/`), []);
    });
  }
});

test('gs: a source faster than the upload holds a bounded amount of memory, however long the upload', async (t) => {
  const gcs = await startGcsServer({ t });
  const storageModule = pathToFileURL(join(import.meta.dirname, '../../../src/storage/index.ts')).href;
  const url = `gs://${gcs.bucket}/memory/one.xbackup.gz`;
  // 384 MiB from memory, in a process of its own: the buffers reachable after a full GC, every 64 MiB.
  const script = `
    import { Readable } from 'node:stream';
    const { storageFor } = await import(${JSON.stringify(storageModule)});
    const block = Buffer.alloc(1 << 20, 7);
    let n = 0;
    const marks = [];
    const body = new Readable({ read() {
      if (n % 64 === 0 && n > 0) { globalThis.gc(); marks.push(process.memoryUsage().arrayBuffers); }
      if (n++ === 384) this.push(null); else this.push(Buffer.from(block));
    } });
    await storageFor(${JSON.stringify(url)}, JSON.parse(process.env.KEYS)).upload(${JSON.stringify(url)}, body);
    console.log(JSON.stringify(marks));`;
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    env: { ...process.env, KEYS: JSON.stringify(gcs.env) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, output);
  const marks = (JSON.parse(output.trim().split('\n').at(-1)!) as number[]).map((b) => Math.round(b / (1 << 20)));
  // Not growing: what stays held (the least of each half's marks; a mark may catch chunks in
  // flight) is the same late in the upload as early, within a chunk; and never many chunks.
  const chunkMiB = GCS_CHUNK_SIZE >> 20;
  const least = (xs: number[]) => Math.min(...xs);
  const says = `MiB held every 64 MiB: ${marks.join(' ')}`;
  assert.ok(least(marks.slice(3)) - least(marks.slice(0, 3)) <= chunkMiB, says);
  assert.ok(Math.max(...marks) <= 8 * chunkMiB, says);
});
