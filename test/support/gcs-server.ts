// A small server answering as the Google Cloud Storage JSON API documents it, for the gs://
// backend's tests: Google publishes no emulator, and none is installed here. Run as its own
// process (test/support/gcs.ts starts it): `node gcs-server.ts <dir> <bucket>...`; it prints
// `listening on http://127.0.0.1:<port>` and keeps objects and upload sessions as files in <dir>,
// so a test can look at what is left behind.
//
// What it answers (https://cloud.google.com/storage/docs/json_api/v1/objects, /performing-resumable-uploads):
//   POST   /upload/storage/v1/b/<bucket>/o?uploadType=resumable&name=...   a session URI in Location
//   PUT    <session URI> with Content-Range `bytes a-b/*`, `bytes a-b/N`, `bytes */N` or `bytes */*`:
//          308 with Range `bytes=0-<last>` while incomplete; the object (200) once N bytes are in
//   DELETE <session URI>                                   cancels the session (499)
//   POST   /upload/storage/v1/b/<bucket>/o?uploadType=multipart  metadata and media in one request
//   GET    /storage/v1/b/<bucket>/o?prefix=&delimiter=&pageToken=&maxResults=   a page of objects
//   GET    /storage/v1/b/<bucket>/o/<name>[?alt=media][&generation=]   metadata, or the bytes
//   DELETE /storage/v1/b/<bucket>/o/<name>                 204, or 404 when missing
// Errors are `{ error: { code, message, errors: [{ reason }] } }` as the API's.
// Not modelled: authentication (clients in emulator mode send none), ACLs, ranges, preconditions.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';

interface ObjectMeta {
  name: string;
  bucket: string;
  generation: string;
  contentType: string;
  size: string;
  md5Hash: string;
  crc32c: string;
  storageClass: string;
  timeCreated: string;
  updated: string;
  acl?: string;
}

interface Session {
  bucket: string;
  name: string;
  contentType: string;
  storageClass: string;
  acl?: string;
}

const CRC32C_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC32C (Castagnoli) of a file, base64 of its big-endian bytes, and its MD5, as the API reports them. */
async function hashes(path: string): Promise<{ crc32c: string; md5Hash: string }> {
  let crc = 0xffffffff;
  const md5 = createHash('md5');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    md5.update(chunk);
    for (const byte of chunk) crc = CRC32C_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  const out = Buffer.alloc(4);
  out.writeUInt32BE((crc ^ 0xffffffff) >>> 0);
  return { crc32c: out.toString('base64'), md5Hash: md5.digest('base64') };
}

function fail(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code, message, errors: [{ domain: 'global', reason, message }] } }));
}

function json(res: ServerResponse, body: unknown, code = 200): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

// Over 80 lines: one closure over the server's directory, whose handlers (each short) are the
// nested functions below; splitting it would pass the directory helpers to each of them.
export function gcsServer(dir: string, buckets: string[]) {
  const objectsDir = (bucket: string) => join(dir, 'buckets', bucket);
  const uploadsDir = join(dir, 'uploads');
  mkdirSync(uploadsDir, { recursive: true });
  for (const b of buckets) mkdirSync(objectsDir(b), { recursive: true });
  const dataPath = (bucket: string, name: string) => join(objectsDir(bucket), encodeURIComponent(name));
  const metaOf = (bucket: string, name: string): ObjectMeta | undefined => {
    const p = `${dataPath(bucket, name)}.meta.json`;
    return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as ObjectMeta) : undefined;
  };
  let generation = Date.now() * 1000;

  /** Makes the bytes at `from` the object named by `s`: a rename, so readers see all or nothing. */
  async function commit(s: Session, from: string): Promise<ObjectMeta> {
    const now = new Date().toISOString();
    const meta: ObjectMeta = {
      name: s.name,
      bucket: s.bucket,
      generation: String(++generation),
      contentType: s.contentType,
      size: String(statSync(from).size),
      ...(await hashes(from)),
      storageClass: s.storageClass,
      timeCreated: now,
      updated: now,
      ...(s.acl ? { acl: s.acl } : {}),
    };
    renameSync(from, dataPath(s.bucket, s.name));
    writeFileSync(`${dataPath(s.bucket, s.name)}.meta.json`, JSON.stringify(meta));
    return meta;
  }

  const resource = (m: ObjectMeta) => ({ kind: 'storage#object', id: `${m.bucket}/${m.name}/${m.generation}`, metageneration: '1', ...m });

  function sessionFromMetadata(bucket: string, url: URL, metadata: Record<string, unknown>): Session | string {
    const name = (metadata.name as string | undefined) ?? url.searchParams.get('name') ?? '';
    if (!name) return 'the object has no name';
    return {
      bucket,
      name,
      contentType: (metadata.contentType as string | undefined) ?? 'application/octet-stream',
      storageClass: (metadata.storageClass as string | undefined) ?? 'STANDARD',
      ...(url.searchParams.get('predefinedAcl') ? { acl: url.searchParams.get('predefinedAcl')! } : {}),
    };
  }

  async function startResumable(req: IncomingMessage, res: ServerResponse, bucket: string, url: URL): Promise<void> {
    const text = (await bodyOf(req)).toString('utf8');
    const s = sessionFromMetadata(bucket, url, text ? (JSON.parse(text) as Record<string, unknown>) : {});
    if (typeof s === 'string') return fail(res, 400, 'required', s);
    const id = randomBytes(12).toString('hex');
    writeFileSync(join(uploadsDir, `${id}.json`), JSON.stringify(s));
    writeFileSync(join(uploadsDir, id), '');
    res.writeHead(200, { location: `http://${req.headers.host}/upload/storage/v1/b/${bucket}/o?uploadType=resumable&upload_id=${id}` });
    res.end();
  }

  /** One PUT of a resumable session: appends its bytes, and commits once the total is in. */
  async function putChunk(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const sessionPath = join(uploadsDir, `${id}.json`);
    if (!/^[0-9a-f]+$/.test(id) || !existsSync(sessionPath)) return fail(res, 404, 'notFound', 'No such upload session');
    const session = JSON.parse(readFileSync(sessionPath, 'utf8')) as Session;
    const part = join(uploadsDir, id);
    const range = /^bytes (?:(\d+)-(\d+|\*)|\*)\/(\d+|\*)$/.exec(String(req.headers['content-range'] ?? 'bytes */*'));
    if (!range) return fail(res, 400, 'invalid', `bad Content-Range: ${req.headers['content-range']}`);
    const start = range[1] === undefined ? undefined : Number(range[1]);
    const total = range[3] === '*' ? undefined : Number(range[3]);
    let persisted = statSync(part).size;
    if (start !== undefined) {
      if (start > persisted) return fail(res, 400, 'invalid', `chunk starts at ${start}, ${persisted} bytes persisted`);
      // Bytes are persisted only when the request carrying them completes (a request cut off
      // midway persists nothing here; Google may keep part of it, which the client asks about).
      const body = await bodyOf(req).catch(() => undefined);
      if (!body) return;
      const fh = await open(part, 'r+');
      await fh.write(body, 0, body.length, start);
      await fh.close();
      persisted = Math.max(persisted, start + body.length);
      // `bytes 0-*/*`: one request streaming the whole object, its end the object's end.
      if (range[2] === '*' && total === undefined) return void json(res, resource(await finish(session, part, sessionPath)));
    } else {
      await bodyOf(req);
    }
    if (total !== undefined && persisted === total) return void json(res, resource(await finish(session, part, sessionPath)));
    if (total !== undefined && persisted > total) return fail(res, 400, 'invalid', `${persisted} bytes sent for a total of ${total}`);
    res.writeHead(308, persisted > 0 ? { range: `bytes=0-${persisted - 1}` } : {});
    res.end();
  }

  async function finish(session: Session, part: string, sessionPath: string): Promise<ObjectMeta> {
    const meta = await commit(session, part);
    rmSync(sessionPath, { force: true });
    return meta;
  }

  async function multipart(req: IncomingMessage, res: ServerResponse, bucket: string, url: URL): Promise<void> {
    const boundary = /boundary="?([^";]+)"?/.exec(String(req.headers['content-type'] ?? ''))?.[1];
    if (!boundary) return fail(res, 400, 'invalid', 'multipart upload without a boundary');
    const body = await bodyOf(req);
    const parts: Buffer[] = [];
    const sep = Buffer.from(`--${boundary}`);
    for (let at = body.indexOf(sep); at >= 0; ) {
      const next = body.indexOf(sep, at + sep.length);
      if (next < 0) break;
      const raw = body.subarray(at + sep.length, next);
      const headerEnd = raw.indexOf('\r\n\r\n');
      if (headerEnd >= 0) parts.push(raw.subarray(headerEnd + 4, raw.length - 2));
      at = next;
    }
    if (parts.length !== 2) return fail(res, 400, 'invalid', `multipart upload with ${parts.length} parts, not 2`);
    const s = sessionFromMetadata(bucket, url, JSON.parse(parts[0]!.toString('utf8')) as Record<string, unknown>);
    if (typeof s === 'string') return fail(res, 400, 'required', s);
    const tmp = join(uploadsDir, `multipart-${randomBytes(8).toString('hex')}`);
    writeFileSync(tmp, parts[1]!);
    json(res, resource(await commit(s, tmp)));
  }

  function list(res: ServerResponse, bucket: string, url: URL): void {
    const prefix = url.searchParams.get('prefix') ?? '';
    const delimiter = url.searchParams.get('delimiter') ?? '';
    const max = Number(url.searchParams.get('maxResults') ?? 1000);
    const after = url.searchParams.get('pageToken') ?? '';
    const names = readdirSync(objectsDir(bucket))
      .filter((f) => !f.endsWith('.meta.json'))
      .map(decodeURIComponent)
      .filter((n) => n.startsWith(prefix) && n > after)
      .sort();
    const items: ObjectMeta[] = [];
    const prefixes = new Set<string>();
    let last = '';
    for (const n of names) {
      if (items.length + prefixes.size >= max) break;
      last = n;
      const cut = delimiter ? n.indexOf(delimiter, prefix.length) : -1;
      if (cut >= 0) prefixes.add(n.slice(0, cut + delimiter.length));
      else items.push(metaOf(bucket, n)!);
    }
    const more = names.some((n) => n > last) && last !== '';
    json(res, {
      kind: 'storage#objects',
      ...(items.length ? { items: items.map(resource) } : {}),
      ...(prefixes.size ? { prefixes: [...prefixes] } : {}),
      ...(more ? { nextPageToken: last } : {}),
    });
  }

  function getObject(res: ServerResponse, bucket: string, name: string, url: URL): void {
    const meta = metaOf(bucket, name);
    const gen = url.searchParams.get('generation');
    if (!meta || (gen && gen !== meta.generation)) {
      fail(res, 404, 'notFound', `No such object: ${bucket}/${name}`);
      return;
    }
    if (url.searchParams.get('alt') !== 'media') {
      json(res, resource(meta));
      return;
    }
    res.writeHead(200, {
      'content-type': meta.contentType,
      'content-length': meta.size,
      'x-goog-generation': meta.generation,
      'x-goog-hash': `crc32c=${meta.crc32c},md5=${meta.md5Hash}`,
      'x-goog-stored-content-length': meta.size,
    });
    createReadStream(dataPath(bucket, name)).pipe(res);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    const objects = /^\/storage\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(url.pathname);
    const bucket = decodeURIComponent((upload ?? objects)?.[1] ?? '');
    if (!upload && !objects) return fail(res, 404, 'notFound', `Not Found: ${url.pathname}`);
    if (!existsSync(objectsDir(bucket))) return fail(res, 404, 'notFound', 'The specified bucket does not exist.');
    const type = url.searchParams.get('uploadType');
    const id = url.searchParams.get('upload_id');
    if (upload && req.method === 'POST' && type === 'resumable') return startResumable(req, res, bucket, url);
    if (upload && req.method === 'POST' && type === 'multipart') return multipart(req, res, bucket, url);
    if (upload && req.method === 'PUT' && id) return putChunk(req, res, id);
    if (upload && req.method === 'DELETE' && id) {
      rmSync(join(uploadsDir, `${id}.json`), { force: true });
      rmSync(join(uploadsDir, id), { force: true });
      res.writeHead(499);
      return void res.end();
    }
    const name = objects?.[2] === undefined ? undefined : decodeURIComponent(objects[2]);
    if (objects && name === undefined && req.method === 'GET') return list(res, bucket, url);
    if (objects && name !== undefined && req.method === 'GET') return getObject(res, bucket, name, url);
    if (objects && name !== undefined && req.method === 'DELETE') {
      if (!metaOf(bucket, name)) return fail(res, 404, 'notFound', `No such object: ${bucket}/${name}`);
      rmSync(dataPath(bucket, name), { force: true });
      rmSync(`${dataPath(bucket, name)}.meta.json`, { force: true });
      res.writeHead(204);
      return void res.end();
    }
    fail(res, 405, 'methodNotAllowed', `${req.method} ${url.pathname}`);
  }

  return createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (!res.headersSent) fail(res, 500, 'backendError', (err as Error).message);
      else res.destroy();
    });
  });
}

if (import.meta.main) {
  const [dir, ...buckets] = process.argv.slice(2);
  if (!dir || buckets.length === 0) {
    process.stderr.write('usage: gcs-server.ts <dir> <bucket>...\n');
    process.exit(2);
  }
  const server = gcsServer(dir, buckets);
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    process.stdout.write(`listening on http://127.0.0.1:${addr.port}\n`);
  });
}
