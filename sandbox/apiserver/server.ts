// The HTTP front of the test API server: request parsing (RequestInfo), authentication by bearer
// token, fault injection, discovery, content negotiation (JSON, Table, PartialObjectMetadata),
// dispatch to the object service and the watch hub, headers and the request log.
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { apiGroup, apiGroupList, apiVersions, groupsOf, resourceList, VERSION_INFO } from './discovery.ts';
import { encodeJson } from './encode.ts';
import { openapiDocument, openapiRoot, openapiTarget } from './openapi.ts';
import { Faults } from './faults.ts';
import { isObject, orderMetadata } from './json.ts';
import { listBody, listMeta, type ObjectService, type WriteOptions } from './objects.ts';
import { RequestLog } from './request-log.ts';
import { bodyMediaType, checkListOptions, checkResourceVersion, checkWriteOptions, deleteOptions } from './request-options.ts';
import { duplicateFields } from './duplicate-fields.ts';
import { parse as parseYaml } from 'yaml';
import { parseLabelSelector } from './selectors.ts';
import { decodeProtobufBody } from './protobuf.ts';
import { kubeletEndpoint, logContainer, proxyLogs } from './pod-logs.ts';
import {
  ApiError,
  badRequest,
  faultStatus,
  forbidden,
  methodNotAllowed,
  notAcceptable,
  resourceNotFound,
  statusBody,
  unauthorized,
} from './status.ts';
import { toTable } from './table.ts';
import type { KObj } from './types.ts';
import { WatchHub } from './watch.ts';

export interface RequestInfo {
  method: string;
  path: string;
  query: URLSearchParams;
  isResource: boolean;
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  verb: string;
  watchPath: boolean;
}

class TextNotFound extends Error {}

const ANONYMOUS_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);
const MAX_BODY = 3 * 1024 * 1024;

export function parseRequestInfo(method: string, rawUrl: string): RequestInfo {
  const url = new URL(rawUrl, 'http://localhost');
  const segs = url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  const info: RequestInfo = {
    method,
    path: url.pathname,
    query: url.searchParams,
    isResource: false,
    group: '',
    version: '',
    namespace: undefined,
    resource: undefined,
    name: undefined,
    subresource: undefined,
    verb: method.toLowerCase(),
    watchPath: false,
  };
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    info.version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    info.group = segs[1]!;
    info.version = segs[2]!;
    rest = segs.slice(3);
  } else return info;
  if (rest.length === 0) return info;
  if (rest[0] === 'watch') {
    info.watchPath = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    info.namespace = rest[1];
    rest = rest.slice(2);
  }
  info.isResource = true;
  info.resource = rest[0];
  info.name = rest[1];
  info.subresource = rest[2];
  const watch = info.watchPath || ['1', 'true'].includes(url.searchParams.get('watch') ?? '');
  switch (method) {
    case 'GET':
    case 'HEAD':
      info.verb = info.name ? (watch ? 'watch' : 'get') : watch ? 'watch' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
  }
  return info;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new ApiError(413, statusBody(413, 'RequestEntityTooLarge', 'the request is too large')));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJsonBody(raw: string, kind: string): KObj {
  try {
    return JSON.parse(raw) as KObj;
  } catch (e) {
    const text = (e as Error).message;
    const at = /position (\d+)/.exec(text);
    const truncated = /end of (JSON )?input/i.test(text) || (at !== null && Number(at[1]) >= raw.trimEnd().length);
    const bad = at ? (raw[Number(at[1])] ?? '') : '';
    const msg = truncated ? 'unexpected end of JSON input' : `invalid character '${bad}' looking for beginning of value`;
    const quoted = raw.length > 30 ? `${raw.slice(0, 30)} ...` : raw;
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${msg} (${quoted})`,
    );
  }
}

interface Negotiated {
  table: boolean;
  partial: boolean;
}

function negotiate(accept: string | undefined): Negotiated {
  const first = (accept ?? '').split(',')[0] ?? '';
  return { table: /as=Table/.test(first), partial: /as=PartialObjectMetadata/.test(first) };
}

export interface ServerCoreOptions {
  token: string | null;
  /** Serve requests without credentials (kubectl sends no token over plain HTTP) instead of 403. */
  allowAnonymous: boolean;
  bookmarkIntervalMs: number;
  serverAddress: () => string;
  /** A client certificate the TLS server verified (its CA) authenticates a request. */
  clientCertAuth?: boolean;
}

export class ApiHttpHandler {
  readonly svc: ObjectService;
  readonly faults: Faults;
  readonly requestLog = new RequestLog();
  readonly watches: WatchHub;
  private readonly opts: ServerCoreOptions;
  private readonly held: (() => void)[] = [];
  /** Tokens this server issued (serviceaccounts/<name>/token): they authenticate as the server's own token does. */
  private readonly issuedTokens = new Set<string>();
  private readonly flowSchemaUid = randomUUID();
  private readonly priorityLevelUid = randomUUID();

  constructor(svc: ObjectService, opts: ServerCoreOptions) {
    this.svc = svc;
    this.opts = opts;
    this.watches = new WatchHub(svc.store, () => this.faults.paused, opts.bookmarkIntervalMs);
    this.faults = new Faults({
      dropWatches: (graceful) => this.watches.dropAll(graceful),
      expireWindow: () => svc.store.expireWindow(),
      setWatchesSilenced: (s) => {
        this.watches.silenced = s;
      },
      onResume: () => {
        for (const run of this.held.splice(0, this.held.length)) run();
        this.watches.flushHeld();
      },
      watchEventDelays: () => this.watches.eventDelays,
      heldRequests: () => this.held.length,
      lostEvents: () => this.watches.lostEvents,
    });
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.faults.paused) {
      this.held.push(() => this.handle(req, res));
      return;
    }
    this.serve(req, res).catch(() => {
      // Only a malformed request line (bad percent-encoding) gets here: answer it, never crash.
      if (res.headersSent) res.destroy();
      else res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('400 Bad Request');
    });
  }

  private baseHeaders(): Record<string, string> {
    return {
      'Audit-Id': randomUUID(),
      'Cache-Control': 'no-cache, private',
      'Content-Type': 'application/json',
      'X-Kubernetes-Pf-Flowschema-Uid': this.flowSchemaUid,
      'X-Kubernetes-Pf-Prioritylevel-Uid': this.priorityLevelUid,
    };
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const info = parseRequestInfo(method, req.url ?? '/');
    const pretty = info.query.get('pretty') === 'true' || /^(curl|Wget|Mozilla\/5\.0)/.test(req.headers['user-agent'] ?? '');
    let status = 200;
    const logged = () => {
      this.requestLog.add({
        time: Date.now(),
        method,
        path: info.path,
        query: Object.fromEntries(info.query),
        verb: info.verb,
        group: info.isResource ? info.group : undefined,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        status,
        userAgent: req.headers['user-agent'],
        contentType: req.headers['content-type'],
      });
    };
    const send = (code: number, body: unknown, extra: Record<string, string | string[]> = {}, indent = false) => {
      status = code;
      const text = encodeJson(body, pretty || indent);
      const headers: Record<string, string | string[]> = { ...this.baseHeaders(), ...extra };
      if (Buffer.byteLength(text) <= 2048) headers['Content-Length'] = String(Buffer.byteLength(text));
      res.writeHead(code, headers);
      res.end(method === 'HEAD' ? undefined : text);
      logged();
    };
    const sendText = (code: number, text: string) => {
      status = code;
      res.writeHead(code, { ...this.baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(text);
      logged();
    };
    try {
      const facts = { verb: info.verb, resource: info.resource, namespace: info.namespace, name: info.name, subresource: info.subresource };
      const delay = this.faults.takeDelay(facts);
      // Unref'd: a request held past the server's stop must not keep the process alive.
      if (delay > 0) await new Promise((r) => setTimeout(r, delay).unref());
      const failure = this.faults.takeFailure(facts);
      if (failure) throw faultStatus(failure.status, failure.message);
      this.authenticate(req, info);
      if (!info.isResource) {
        const body = this.nonResource(info, req.headers.accept);
        if (typeof body === 'string') {
          sendText(200, body);
          return;
        }
        // kube-apiserver indents these two documents itself.
        send(200, body, {}, info.path === '/version');
        return;
      }
      await this.resource(req, res, info, send, (code) => {
        status = code;
        logged();
      });
    } catch (e) {
      if (e instanceof TextNotFound) {
        sendText(404, '404 page not found\n');
        return;
      }
      const err =
        e instanceof ApiError ? e : new ApiError(500, statusBody(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`));
      if (res.headersSent) {
        res.destroy();
        return;
      }
      send(err.code, err.body, err.code === 403 ? { 'X-Content-Type-Options': 'nosniff' } : {}, err.code === 406);
    }
  }

  private authenticate(req: IncomingMessage, info: RequestInfo): void {
    if (this.opts.token === null) return;
    const auth = req.headers.authorization;
    if (auth === undefined && this.opts.clientCertAuth && (req.socket as TLSSocket).authorized) return;
    if (auth === undefined) {
      if (ANONYMOUS_PATHS.has(info.path) || this.opts.allowAnonymous) return;
      if (!info.isResource) throw forbidden(`forbidden: User "system:anonymous" cannot get path "${info.path}"`, {});
      const res = info.resource ?? '';
      const where = info.namespace ? ` in the namespace "${info.namespace}"` : '';
      throw forbidden(
        `${res} is forbidden: User "system:anonymous" cannot ${info.verb} resource "${res}" in API group "${info.group}"${where}`,
        { kind: res },
      );
    }
    if (auth !== `Bearer ${this.opts.token}` && !this.issuedTokens.has(auth.replace(/^Bearer /, ''))) throw unauthorized();
  }

  /**
   * serviceaccounts/<name>/token (TokenRequest), what a kubelet fills a pod's projected token
   * with: a new token that authenticates from now on (this server has no RBAC: every
   * authenticated caller may do anything). The service account must exist, as on a real server.
   */
  private issueToken(namespace: string, account: KObj, body: KObj): KObj {
    const token = randomBytes(24).toString('base64url');
    this.issuedTokens.add(token);
    const spec: KObj = isObject(body.spec) ? body.spec : {};
    const expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
    const expires = new Date(Math.floor(Date.now() / 1000) * 1000 + expirationSeconds * 1000);
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: account.metadata.name, namespace, creationTimestamp: null },
      spec: { audiences: spec.audiences ?? [], expirationSeconds, boundObjectRef: spec.boundObjectRef ?? null },
      status: { token, expirationTimestamp: expires.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
  }

  private nonResource(info: RequestInfo, accept: string | undefined): unknown {
    const p = info.path.replace(/\/+$/, '') || '/';
    const defs = this.svc.resources.all();
    const onlyAggregated = accept?.split(',').every((a) => /as=APIGroupDiscoveryList/.test(a));
    if (p === '/version') return VERSION_INFO;
    if (p === '/healthz' || p === '/livez' || p === '/readyz') return 'ok';
    if (p === '/api') {
      if (onlyAggregated) throw notAcceptable();
      return apiVersions(this.opts.serverAddress());
    }
    if (p === '/apis') {
      if (onlyAggregated) throw notAcceptable();
      return apiGroupList(groupsOf(defs));
    }
    if (p === '/openapi/v3') return openapiRoot(defs);
    const target = openapiTarget(p);
    if (target) {
      if (!defs.some((d) => d.group === target[0] && d.version === target[1])) throw new TextNotFound();
      return openapiDocument(target[0], target[1], defs);
    }
    const segs = p.split('/').filter(Boolean);
    if (segs[0] === 'api' && segs.length === 2) {
      if (segs[1] !== 'v1') throw new TextNotFound();
      return resourceList(
        '',
        'v1',
        defs.filter((d) => d.group === ''),
      );
    }
    if (segs[0] === 'apis' && segs.length === 2) {
      const g = groupsOf(defs).find((x) => x.name === segs[1]);
      if (!g) throw new TextNotFound();
      return apiGroup(g);
    }
    if (segs[0] === 'apis' && segs.length === 3) {
      const served = defs.filter((d) => d.group === segs[1] && d.version === segs[2]);
      if (served.length === 0) throw new TextNotFound();
      return resourceList(segs[1]!, segs[2]!, served);
    }
    throw new TextNotFound();
  }

  private writeOptions(req: IncomingMessage, info: RequestInfo): WriteOptions {
    const ua = req.headers['user-agent'] ?? '';
    const fromUa = ua.split('/')[0] ?? '';
    return {
      manager: info.query.get('fieldManager') || fromUa || 'unknown',
      dryRun: info.query.getAll('dryRun').includes('All'),
      fieldValidation: info.query.get('fieldValidation') ?? 'Warn',
      warnings: [],
    };
  }

  /** A create or update body in JSON, YAML or protobuf; the fields JSON gives twice go to the strict decoding check. */
  private async objectBody(req: IncomingMessage, kind: string, opts: WriteOptions): Promise<KObj> {
    const type = bodyMediaType(req.headers['content-type']);
    const bytes = await readBody(req);
    if (type === 'protobuf') return decodeProtobufBody(bytes, kind);
    const raw = bytes.toString('utf8');
    if (type === 'yaml') {
      try {
        return parseYaml(raw) as KObj;
      } catch (e) {
        throw badRequest(
          `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; yaml parse error: ${(e as Error).message}`,
        );
      }
    }
    const body = parseJsonBody(raw, kind);
    opts.duplicateFields = duplicateFields(raw);
    return body;
  }

  private async deleteBody(req: IncomingMessage, q: URLSearchParams) {
    const bytes = await readBody(req);
    if (bytes.length === 0 || !bytes.toString('utf8').trim()) return deleteOptions(q, undefined);
    const body =
      bodyMediaType(req.headers['content-type']) === 'protobuf'
        ? decodeProtobufBody(bytes, 'DeleteOptions')
        : parseJsonBody(bytes.toString('utf8'), 'DeleteOptions');
    return deleteOptions(q, isObject(body) ? body : {});
  }

  private async resource(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    send: (code: number, body: unknown, extra?: Record<string, string | string[]>) => void,
    logWatch: (code: number) => void,
  ): Promise<void> {
    const resources = this.svc.resources;
    if (!resources.groupVersionServed(info.group, info.version)) throw new TextNotFound();
    const def = resources.find(info.group, info.version, info.resource ?? '');
    if (!def) {
      if (resources.isBuiltinGroup(info.group)) throw resourceNotFound();
      throw new TextNotFound();
    }
    const sub = info.subresource;
    const binding = sub === 'binding' && def.resource === 'pods' && def.group === '';
    const podLog = sub === 'log' && def.resource === 'pods' && def.group === '';
    const tokenRequest = sub === 'token' && def.resource === 'serviceaccounts' && def.group === '';
    if (
      sub !== undefined &&
      !binding &&
      !podLog &&
      !tokenRequest &&
      !((sub === 'status' && def.hasStatus) || (sub === 'scale' && def.scale) || (sub === 'finalize' && def.resource === 'namespaces'))
    ) {
      if (def.builtin) throw resourceNotFound();
      throw new TextNotFound();
    }
    const ns = def.namespaced ? info.namespace : undefined;
    if (def.namespaced && info.namespace === undefined && info.name !== undefined) throw resourceNotFound();
    if (sub === undefined && !def.verbs.includes(info.verb)) throw methodNotAllowed();
    // A collection serves GET, POST and DELETE only.
    if ((info.verb === 'update' || info.verb === 'patch') && info.name === undefined) throw methodNotAllowed();
    const nego = negotiate(req.headers.accept);
    const q = info.query;
    // Renders an object as the service returns it (views already converted) in the negotiated form.
    // A watch sends the column definitions with its first Table only.
    const render = (obj: KObj, withHeaders = true): KObj => {
      if (nego.table)
        return toTable(def, [obj], { resourceVersion: obj.metadata.resourceVersion }, q.get('includeObject') ?? 'Metadata', withHeaders);
      if (nego.partial) return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: orderMetadata(obj.metadata) };
      return obj;
    };
    const opts = this.writeOptions(req, info);
    const warn = (): Record<string, string[]> =>
      opts.warnings.length ? { Warning: opts.warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};

    if (podLog) {
      if (info.verb !== 'get') throw methodNotAllowed();
      const pod = this.svc.get(def, ns, info.name!);
      const container = logContainer(pod, q.get('container'));
      const nodes = resources.find('', 'v1', 'nodes')!;
      const node = pod.spec?.nodeName
        ? this.svc.list(nodes, undefined, { fieldSelector: `metadata.name=${pod.spec.nodeName}` }).items[0]
        : undefined;
      logWatch(await proxyLogs(kubeletEndpoint(pod, node), pod, container, q, res, this.baseHeaders()));
      return;
    }
    switch (info.verb) {
      case 'get': {
        checkResourceVersion(q.get('resourceVersion'), 'get');
        const obj = this.svc.get(def, ns, info.name!);
        send(200, sub === 'scale' ? this.svc.scaleOf(def, obj) : render(obj));
        return;
      }
      case 'list': {
        const limit = Number(q.get('limit') ?? '0');
        checkListOptions(q, false);
        // Paged, continued and exact lists are served by etcd, the rest by the watch cache.
        const fromEtcd =
          (limit > 0 && q.get('resourceVersion') !== '0') || Boolean(q.get('continue')) || q.get('resourceVersionMatch') === 'Exact';
        checkResourceVersion(q.get('resourceVersion'), fromEtcd ? 'pagedList' : 'list');
        const result = this.svc.list(def, ns, {
          labelSelector: q.get('labelSelector'),
          fieldSelector: q.get('fieldSelector'),
          limit: Number.isFinite(limit) ? limit : 0,
          continue: q.get('continue'),
          resourceVersion: q.get('resourceVersion'),
          resourceVersionMatch: q.get('resourceVersionMatch'),
        });
        if (nego.table) {
          send(200, toTable(def, result.items, listMeta(result), q.get('includeObject') ?? 'Metadata'));
        } else if (nego.partial) {
          send(200, {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata: { resourceVersion: result.resourceVersion, ...(result.continue ? { continue: result.continue } : {}) },
            items: result.items.map((o) => ({
              kind: 'PartialObjectMetadata',
              apiVersion: 'meta.k8s.io/v1',
              metadata: orderMetadata(o.metadata),
            })),
          });
        } else send(200, listBody(def, result.items, result));
        return;
      }
      case 'watch': {
        checkListOptions(q, true);
        checkResourceVersion(q.get('resourceVersion'), 'watch');
        const timeout = q.get('timeoutSeconds');
        const fieldSel = [q.get('fieldSelector'), info.name ? `metadata.name=${info.name}` : undefined].filter(Boolean).join(',');
        const labels = parseLabelSelector(q.get('labelSelector'));
        const fields = this.svc.fieldSelector(def, fieldSel);
        this.watches.serve(
          {
            def,
            rkey: this.svc.rkey(def),
            namespace: ns,
            labels,
            fields,
            resourceVersion: q.get('resourceVersion') ?? undefined,
            timeoutSeconds: timeout !== null && timeout !== '' ? Number(timeout) : undefined,
            bookmarks: q.get('allowWatchBookmarks') === 'true',
            format: nego.table ? 'table' : 'json',
            asStored: !nego.table && !nego.partial && !def.view,
            present: (stored) => this.svc.present(def, stored),
            render: (stored, first) => render(this.svc.present(def, stored), first),
            headers: this.baseHeaders(),
          },
          res,
        );
        logWatch(200);
        return;
      }
      case 'create': {
        if (tokenRequest) {
          const body = parseJsonBody((await readBody(req)).toString('utf8'), 'TokenRequest');
          send(201, this.issueToken(ns!, this.svc.get(def, ns, info.name!), body));
          return;
        }
        if (binding || (def.resource === 'bindings' && def.group === '')) {
          const body = parseJsonBody((await readBody(req)).toString('utf8'), 'Binding');
          const pods = resources.find('', 'v1', 'pods')!;
          send(201, this.svc.bind(pods, ns, info.name ?? String(body.metadata?.name ?? ''), body, opts));
          return;
        }
        if (info.name !== undefined && def.builtin) throw methodNotAllowed();
        checkWriteOptions('create', q, false);
        const body = await this.objectBody(req, def.kind, opts);
        const created = this.svc.create(def, ns, body, opts);
        send(201, render(created), warn());
        return;
      }
      case 'update': {
        checkWriteOptions('update', q, false);
        const body = await this.objectBody(req, sub === 'scale' ? 'Scale' : def.kind, opts);
        if (sub === 'scale') {
          send(200, this.svc.updateScale(def, ns, info.name!, body, opts));
          return;
        }
        send(200, render(this.svc.update(def, ns, info.name!, body, sub, opts)), warn());
        return;
      }
      case 'patch': {
        const ct = req.headers['content-type'] ?? '';
        checkWriteOptions('patch', q, ct.startsWith('application/apply-patch'));
        const raw = (await readBody(req)).toString('utf8');
        if (sub === 'scale') {
          send(200, this.svc.patchScale(def, ns, info.name!, ct, raw, opts));
          return;
        }
        const { object, created } = this.svc.patch(def, ns, info.name!, ct, raw, sub, opts, q.get('force') === 'true');
        send(created ? 201 : 200, render(object), warn());
        return;
      }
      case 'delete': {
        const o = await this.deleteBody(req, q);
        const result = this.svc.delete(
          def,
          ns,
          info.name!,
          {
            propagationPolicy: o.propagationPolicy ?? (o.orphanDependents === true ? 'Orphan' : undefined),
            preconditions: o.preconditions ?? {},
            ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
          },
          { ...opts, dryRun: o.dryRun.includes('All') },
        );
        send(200, result.kind === 'Status' ? result : render(result));
        return;
      }
      case 'deletecollection': {
        checkListOptions(q, false);
        const o = await this.deleteBody(req, q);
        send(
          200,
          this.svc.deleteCollection(
            def,
            ns,
            { labelSelector: q.get('labelSelector'), fieldSelector: q.get('fieldSelector') },
            {
              propagationPolicy: o.propagationPolicy ?? (o.orphanDependents === true ? 'Orphan' : undefined),
            },
            { ...opts, dryRun: o.dryRun.includes('All') },
          ),
        );
        return;
      }
      default:
        throw methodNotAllowed();
    }
  }
}
