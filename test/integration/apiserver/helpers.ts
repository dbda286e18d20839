// Helpers of the API server conformance suite: raw HTTP through a KubeConfig (so the same calls
// reach the test server or a real cluster), the recorded kube-apiserver fixtures, and the
// normalisation of run-dependent values (uid, resourceVersion, timestamps, IPs, tokens).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { microTime } from '../../../src/runtime/leader-election.ts';
import type { Json, JsonObject } from '../../support/json.ts';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/kube-apiserver/', import.meta.url));

export interface FixtureRow {
  file: string;
  section: string;
  method: string;
  path: string;
  requestContentType: string | null;
  accept: string;
  authorization: string | null;
  requestBodyFile: string | null;
  requestBody: string | null;
  status: number;
  contentType: string;
  responseHeaders: Record<string, string | string[]>;
}

/** A Date client-node serialises as a MicroTime (six fractional digits) instead of toISOString's milliseconds. */
export function asMicroTime(d: Date): Date {
  return Object.assign(new Date(d), { toISOString: () => microTime(d) });
}

export function fixtureIndex(): FixtureRow[] {
  return JSON.parse(readFileSync(`${FIXTURES}index.json`, 'utf8')) as FixtureRow[];
}

export function fixtureText(file: string): string {
  return readFileSync(`${FIXTURES}${file}`, 'utf8');
}

export function fixtureJson(file: string): Record<string, unknown> {
  return JSON.parse(fixtureText(file)) as Record<string, unknown>;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: Json;
}

export interface RawOptions {
  body?: string;
  contentType?: string;
  accept?: string;
  userAgent?: string;
  /** undefined: the kubeconfig's credentials; null: none; a string: this bearer token. */
  token?: string | null;
}

/** One HTTP request to the cluster of `kc`, with its credentials unless told otherwise. */
export async function raw(kc: KubeConfig, method: string, path: string, o: RawOptions = {}): Promise<RawResponse> {
  const server = kc.getCurrentCluster()!.server;
  const url = new URL(path, server);
  const opts: RequestOptions = { method, headers: {} };
  await kc.applyToHTTPSOptions(opts);
  const headers = (opts.headers ?? {}) as Record<string, string>;
  if (o.token === null) delete headers.Authorization;
  else if (typeof o.token === 'string') headers.Authorization = `Bearer ${o.token}`;
  headers.Accept = o.accept ?? 'application/json';
  headers['User-Agent'] = o.userAgent ?? 'fixture-capture/1.0';
  if (o.body !== undefined) {
    headers['Content-Type'] = o.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(o.body));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...opts, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** Watch events (one JSON per line) until the server ends the stream. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WatchEvent = { type: string; object: JsonObject };

export async function rawWatchLines(kc: KubeConfig, path: string): Promise<{ status: number; events: WatchEvent[] }> {
  const r = await raw(kc, 'GET', path);
  const events = r.text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as WatchEvent);
  return { status: r.status, events };
}

const TIME_KEYS = new Set(['creationTimestamp', 'time', 'deletionTimestamp', 'lastTransitionTime']);

/** Replaces run-dependent values by placeholders, keeping key order (compared via JSON text). */
export function normalize(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    if (key === 'managedFields') return sortManaged(v as Record<string, unknown>[]).map((x) => normalize(x));
    if (key === 'clusterIPs') return v.map((x) => (x === 'None' ? x : '<ip>'));
    if (key === 'cells') return v.map((x) => (typeof x === 'string' && /^\d+[smhd]$/.test(x) ? '<age>' : x));
    return v.map((x) => normalize(x));
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>))
      out[k.replace(/^k:\{"uid":"[^"]+"\}$/, 'k:{"uid":"<uid>"}')] = normalize(x, k);
    return out;
  }
  if (typeof v === 'string') {
    if (key === 'uid') return '<uid>';
    if (key === 'resourceVersion') return '<rv>';
    if (TIME_KEYS.has(key) && v !== '') return '<time>';
    if (key === 'clusterIP' && v !== 'None') return '<ip>';
    if (key === 'continue' && v !== '') return `<continue:${normalizeToken(v)}>`;
    if (key === 'serverAddress') return '<address>';
    if (key === 'message') return v.replace(/too old resource version: \d+ \(\d+\)/, 'too old resource version: <rv> (<rv>)');
  }
  return v;
}

/** With times normalised away, managedFields order is only defined by operation, manager and subresource. */
function sortManaged(entries: Record<string, unknown>[]): Record<string, unknown>[] {
  const key = (e: Record<string, unknown>) => `${String(e.operation)}\u0000${String(e.manager)}\u0000${String(e.subresource ?? '')}`;
  return [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function normalizeToken(t: string): string {
  try {
    const d = JSON.parse(Buffer.from(t, 'base64url').toString('utf8')) as { rv: number; start: string };
    return `${d.rv === -1 ? '-1' : '<rv>'}:${d.start}`;
  } catch {
    return t;
  }
}

export function normalizedText(v: unknown): string {
  return JSON.stringify(normalize(v), null, 1);
}

/** The HTTP code and parsed Status body of a client-node ApiException. */
export async function expectApiError(p: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: number; body?: unknown };
    if (typeof err.code !== 'number') throw e;
    const body = typeof err.body === 'string' ? (JSON.parse(err.body) as Record<string, unknown>) : (err.body as Record<string, unknown>);
    return { code: err.code, status: body };
  }
  throw new Error('expected the call to fail');
}

export const MYSQL_GROUP = { group: 'mysql.presslabs.org', version: 'v1alpha1', plural: 'mysqlclusters' };

export function cluster(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name, ...metadata },
    spec: { secretName: `${name}-secret`, ...spec },
  };
}

/** client-node sends JSON patch unless told otherwise: options selecting another patch type. */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
export const STRATEGIC_PATCH = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
export const APPLY_PATCH = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
