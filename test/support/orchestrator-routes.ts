// The routes the Orchestrator client asks and the outcomes it can meet on each, derived from the
// client itself: every method is called against a local HTTP server that notes the path, so a new
// method (or a new path of one) is a new route, and the recordings of Orchestrator 3.2.6 that
// answer each (route, outcome) (test/fixtures/orchestrator/index.json and hooks/index.json).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kindOfMessage } from '../../src/orchestrator/errors.ts';
import { orchestratorClient, type OrchestratorClient } from '../../src/orchestrator/index.ts';

export const FIXTURES = new URL('../fixtures/orchestrator/', import.meta.url);

/** What a call can meet. `refused`: Orchestrator refused or failed the action for its own reason. */
export type Outcome = 'success' | 'unknown-cluster' | 'unknown-instance' | 'mysql-unreachable' | 'refused';

/** The values a call is made with; in a route template they are `{alias}`, `{host}`, ... */
export interface Params {
  alias: string;
  host: string;
  port: number;
  comment: string;
  owner: string;
  reason: string;
  seconds: number;
}

type Call = (c: OrchestratorClient, p: Params) => Promise<unknown>;
const key = (p: Params): { host: string; port: number } => ({ host: p.host, port: p.port });

/**
 * Every way each client method is called (one entry per distinct path). Typed by the client's
 * interface, so a new method without an entry fails the type-check, and clientRoutes() fails too.
 */
export const CALLS: { [M in keyof OrchestratorClient]: readonly Call[] } = {
  discover: [(c, p) => c.discover(key(p))],
  forget: [(c, p) => c.forget(key(p))],
  instance: [(c, p) => c.instance(key(p))],
  clusterByAlias: [(c, p) => c.clusterByAlias(p.alias)],
  master: [(c, p) => c.master(p.alias)],
  clustersInfo: [(c) => c.clustersInfo()],
  replicationAnalysis: [(c) => c.replicationAnalysis(), (c, p) => c.replicationAnalysis(p.alias)],
  recoveries: [(c, p) => c.recoveries(p.alias)],
  ackRecoveries: [(c, p) => c.ackRecoveries(p.alias, p.comment)],
  beginDowntime: [(c, p) => c.beginDowntime(key(p), { owner: p.owner, reason: p.reason, seconds: p.seconds })],
  endDowntime: [(c, p) => c.endDowntime(key(p))],
  setReadOnly: [(c, p) => c.setReadOnly(key(p))],
  setWriteable: [(c, p) => c.setWriteable(key(p))],
  gracefulMasterTakeover: [(c, p) => c.gracefulMasterTakeover(p.alias, key(p))],
  gracefulMasterTakeoverAuto: [(c, p) => c.gracefulMasterTakeoverAuto(p.alias), (c, p) => c.gracefulMasterTakeoverAuto(p.alias, key(p))],
};

/** Methods whose route connects to the server it names: known or not, an unreachable one is a dial error. */
const READS_THE_SERVER: ReadonlySet<string> = new Set(['discover', 'setReadOnly', 'setWriteable']);
/** Methods Orchestrator may refuse for a reason of its own (a failing hook, a missing comment). */
const MAY_REFUSE: ReadonlySet<string> = new Set(['ackRecoveries', 'gracefulMasterTakeover', 'gracefulMasterTakeoverAuto']);

export interface Route {
  method: keyof OrchestratorClient;
  /** Which entry of CALLS[method]. */
  variant: number;
  /** The path asked, e.g. `/api/discover/{host}/{port}`. */
  template: string;
  outcomes: Outcome[];
}

/** Distinct values, so each is found again in the path the client asked. */
const PROBE: Params = {
  alias: 'probe-alias.ns',
  host: 'probe-host.test',
  port: 4321,
  comment: 'probe-comment',
  owner: 'probe-owner',
  reason: 'probe-reason',
  seconds: 77,
};

function templateOf(path: string): string {
  return path
    .replaceAll(PROBE.alias, '{alias}')
    .replaceAll(PROBE.host, '{host}')
    .replaceAll(`/${PROBE.port}`, '/{port}')
    .replaceAll(PROBE.comment, '{comment}')
    .replaceAll(PROBE.owner, '{owner}')
    .replaceAll(PROBE.reason, '{reason}')
    .replaceAll(`/${PROBE.seconds}s`, '/{seconds}');
}

/** The outcomes a route can meet, from what it names and does. */
function outcomesOf(method: string, template: string): Outcome[] {
  const out: Outcome[] = ['success'];
  if (template.includes('{alias}')) out.push('unknown-cluster');
  if (template.includes('{host}')) out.push(READS_THE_SERVER.has(method) ? 'mysql-unreachable' : 'unknown-instance');
  if (MAY_REFUSE.has(method)) out.push('refused');
  return out;
}

/** Calls every client method against a server that notes the path and answers 404. */
export async function clientRoutes(): Promise<Route[]> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = orchestratorClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, readRetries: 0 });
    const methods = Object.keys(client) as Array<keyof OrchestratorClient>;
    const routes: Route[] = [];
    for (const method of methods) {
      const calls = CALLS[method] as readonly Call[] | undefined;
      if (calls === undefined || calls.length === 0)
        throw new Error(`client method ${method} has no entry in CALLS (test/support/orchestrator-routes.ts)`);
      for (const [variant, call] of calls.entries()) {
        asked.length = 0;
        await call(client, PROBE).catch(() => undefined);
        if (asked.length !== 1) throw new Error(`${method} #${variant} asked ${asked.length} requests: ${asked.join(', ')}`);
        const template = templateOf(asked[0]!);
        if (routes.some((r) => r.template === template)) continue;
        routes.push({ method, variant, template, outcomes: outcomesOf(method, template) });
      }
    }
    return routes;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

export interface Recording {
  file: string;
  method: string;
  path: string;
  status: number;
  contentType: string;
}

export function recordings(): Recording[] {
  const top = JSON.parse(readFileSync(new URL('index.json', FIXTURES), 'utf8')) as Recording[];
  const hooks = JSON.parse(readFileSync(new URL('hooks/index.json', FIXTURES), 'utf8')) as Array<{
    file: string;
    request: string;
    status: number;
  }>;
  return [
    ...top,
    ...hooks.map((h) => {
      const [method = '', path = ''] = h.request.split(' ');
      return { file: `hooks/${h.file}`, method, path, status: h.status, contentType: 'application/json; charset=UTF-8' };
    }),
  ];
}

export const recordedBody = (r: Recording): string => readFileSync(new URL(r.file, FIXTURES), 'utf8');

// What the recordings named that Orchestrator did not know (README: nothing listened on 127.0.0.99).
const UNKNOWN_ALIAS = /^nosuch/;
const UNKNOWN_HOST = '127.0.0.99';

const GROUP: Record<string, string> = {
  alias: '(?<alias>[^/?]+)',
  host: '(?<host>[^/]+)',
  port: '(?<port>\\d+)',
  comment: '(?<comment>[^&]*)',
  owner: '(?<owner>[^/]+)',
  reason: '(?<reason>[^/]+)',
  seconds: '(?<seconds>\\d+[smhd])',
};

/** The template as a pattern over recorded paths; a duration in other units is the same route. */
export function routePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{(\w+)\}/g, (_, name: string) => GROUP[name] ?? name)}$`);
}

/** The outcome a recording shows: by the kind of its error, else by the unknown name it asked. */
export function outcomeOf(r: Recording, params: Partial<Record<keyof Params, string>>): Outcome {
  let kind: string | undefined;
  if (r.status >= 300) {
    const body = JSON.parse(recordedBody(r)) as { Message?: string };
    kind = kindOfMessage(body.Message ?? '');
    if (kind === 'unknown-cluster' || kind === 'unknown-instance' || kind === 'mysql-unreachable') return kind;
  }
  if (params.alias !== undefined && UNKNOWN_ALIAS.test(params.alias)) return 'unknown-cluster';
  if (params.host === UNKNOWN_HOST) return 'unknown-instance';
  return kind === undefined ? 'success' : 'refused';
}

export interface Covered {
  route: Route;
  outcome: Outcome;
  /** The recordings of that outcome on that route, in index order; none when it was never recorded. */
  recorded: Array<{ recording: Recording; params: Partial<Record<keyof Params, string>> }>;
}

/** Each (route, outcome) of the client with the recordings that answer it. */
export async function coverage(): Promise<Covered[]> {
  const all = recordings().filter((r) => r.method === 'GET');
  const out: Covered[] = [];
  for (const route of await clientRoutes()) {
    const pattern = routePattern(route.template);
    const matches = all.flatMap((recording) => {
      const m = pattern.exec(recording.path);
      return m ? [{ recording, params: { ...m.groups } as Partial<Record<keyof Params, string>> }] : [];
    });
    for (const outcome of route.outcomes) {
      out.push({ route, outcome, recorded: matches.filter((x) => outcomeOf(x.recording, x.params) === outcome) });
    }
  }
  return out;
}
