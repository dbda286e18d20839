// Contract tests of the Orchestrator client: a tiny HTTP server answers with the bodies recorded
// from a real Orchestrator 3.2.6 (test/fixtures/orchestrator/, bytes and status as served), the
// client calls the route the recording was made on, and the decoded values or typed errors are
// checked. With TEST_ORCHESTRATOR_URL the read-only calls also run against a real Orchestrator.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  orchestratorClient,
  OrchestratorError,
  type AnalysisEntry as A,
  type ClusterInfo as C,
  type Instance as I,
  type OrchestratorClient,
  type OrchestratorErrorKind,
  type Recovery as R,
} from '../../../src/orchestrator/index.ts';
import { coverage, recordings, type Recording } from '../../support/orchestrator-routes.ts';

const FIXTURES = new URL('../../fixtures/orchestrator/', import.meta.url);
const JSON_TYPE = 'application/json; charset=UTF-8';

type Row = Recording;
const rows = recordings;

/** Answers every request with the body the test set; remembers what it was asked. */
interface Recorded {
  server: Server;
  base: string;
  answer: { status: number; contentType: string; body: string | Buffer } | 'reset' | 'hang';
  /** Answer with `reset` this many times before the set answer. */
  resets: number;
  requests: Array<{ method: string; url: string; authorization: string | undefined }>;
}

async function recordedServer(): Promise<Recorded> {
  const r: Recorded = { server: createServer(), base: '', answer: 'hang', resets: 0, requests: [] };
  r.server.on('request', (req: IncomingMessage, res) => {
    r.requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    if (r.resets > 0) {
      r.resets--;
      req.socket.destroy();
      return;
    }
    const a = r.answer;
    if (a === 'reset') return void req.socket.destroy();
    if (a === 'hang') return;
    res.writeHead(a.status, { 'content-type': a.contentType });
    res.end(a.body);
  });
  await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  r.base = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/api`;
  return r;
}

function serve(r: Recorded, row: Row): void {
  r.answer = { status: row.status, contentType: row.contentType, body: readFileSync(new URL(row.file, FIXTURES)) };
}

const srv = await recordedServer();
after(() => {
  srv.server.closeAllConnections();
  srv.server.close();
});
const client = orchestratorClient({ baseUrl: srv.base, retryDelayMs: 1 });

const key = (host: string, port: string | number) => ({ host: decodeURIComponent(host), port: Number(port) });
const SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/**
 * The client call for a recorded route. `exact`: the client asks exactly the recorded path;
 * otherwise the recording is of a route variant with the same body (cluster by hint instead of
 * by alias, a page of all recoveries instead of one cluster's) and only the decoding is checked.
 */
interface Method {
  route: RegExp;
  exact: boolean;
  call: (c: OrchestratorClient, m: string[]) => Promise<unknown>;
}
const METHODS: Method[] = [
  { route: /^\/api\/discover\/([^/]+)\/(\d+)$/, exact: true, call: (c, m) => c.discover(key(m[1]!, m[2]!)) },
  { route: /^\/api\/forget\/([^/]+)\/(\d+)$/, exact: true, call: (c, m) => c.forget(key(m[1]!, m[2]!)) },
  { route: /^\/api\/instance\/([^/]+)\/(\d+)$/, exact: true, call: (c, m) => c.instance(key(m[1]!, m[2]!)) },
  { route: /^\/api\/instance\/([^/]+)\/([^/]+)$/, exact: false, call: (c, m) => c.instance(key(m[1]!, 3306)) },
  { route: /^\/api\/cluster\/alias\/([^/]+)$/, exact: true, call: (c, m) => c.clusterByAlias(decodeURIComponent(m[1]!)) },
  { route: /^\/api\/cluster\/([^/]+)$/, exact: false, call: (c, m) => c.clusterByAlias(m[1]!) },
  { route: /^\/api\/master\/([^/]+)$/, exact: true, call: (c, m) => c.master(decodeURIComponent(m[1]!)) },
  { route: /^\/api\/clusters-info$/, exact: true, call: (c) => c.clustersInfo() },
  { route: /^\/api\/replication-analysis$/, exact: true, call: (c) => c.replicationAnalysis() },
  { route: /^\/api\/replication-analysis\/.+$/, exact: false, call: (c) => c.replicationAnalysis() },
  { route: /^\/api\/audit-recovery\/alias\/([^/]+)$/, exact: true, call: (c, m) => c.recoveries(decodeURIComponent(m[1]!)) },
  {
    route: /^\/api\/audit-recovery(\/cluster\/[^/]+|\/[^/]+)?(\?unacknowledged=true)?$/,
    exact: false,
    call: (c) => c.recoveries('labcluster'),
  },
  {
    route: /^\/api\/ack-recovery\/cluster\/([^/?]+)\?comment=(.+)$/,
    exact: true,
    call: (c, m) => c.ackRecoveries(m[1]!, decodeURIComponent(m[2]!)),
  },
  { route: /^\/api\/ack-recovery\/cluster\/([^/?]+)$/, exact: false, call: (c, m) => c.ackRecoveries(m[1]!, '') },
  {
    route: /^\/api\/begin-downtime\/([^/]+)\/(\d+)\/([^/]+)\/([^/]+)\/(\d+)s$/,
    exact: true,
    call: (c, m) => c.beginDowntime(key(m[1]!, m[2]!), { owner: m[3]!, reason: m[4]!, seconds: Number(m[5]) }),
  },
  {
    route: /^\/api\/begin-downtime\/([^/]+)\/(\d+)\/([^/]+)\/([^/]+)\/(\w+)$/,
    exact: false,
    call: (c, m) => {
      const d = /^(\d+)([smhd])$/.exec(m[5]!);
      const seconds = d ? Number(d[1]) * SECONDS[d[2] as keyof typeof SECONDS] : 1;
      return c.beginDowntime(key(m[1]!, m[2]!), { owner: m[3]!, reason: m[4]!, seconds });
    },
  },
  { route: /^\/api\/end-downtime\/([^/]+)\/(\d+)$/, exact: true, call: (c, m) => c.endDowntime(key(m[1]!, m[2]!)) },
  { route: /^\/api\/set-read-only\/([^/]+)\/(\d+)$/, exact: true, call: (c, m) => c.setReadOnly(key(m[1]!, m[2]!)) },
  { route: /^\/api\/set-writeable\/([^/]+)\/(\d+)$/, exact: true, call: (c, m) => c.setWriteable(key(m[1]!, m[2]!)) },
  {
    route: /^\/api\/graceful-master-takeover\/([^/]+)\/([^/]+)\/(\d+)$/,
    exact: true,
    call: (c, m) => c.gracefulMasterTakeover(m[1]!, key(m[2]!, m[3]!)),
  },
  {
    route: /^\/api\/graceful-master-takeover-auto\/([^/]+)(?:\/([^/]+)\/(\d+))?$/,
    exact: true,
    call: (c, m) => c.gracefulMasterTakeoverAuto(m[1]!, m[2] === undefined ? undefined : key(m[2], m[3]!)),
  },
];

/** The typed error each recorded error body maps to. */
const ERROR_KINDS: Record<string, OrchestratorErrorKind> = {
  'error_instance_unknown_127.0.0.99_3306.json': 'unknown-instance',
  'error_forget_unknown_127.0.0.99_3306.json': 'unknown-instance',
  'error_instance_bad-port.json': 'failed',
  'error_discover_unreachable_127.0.0.99_3306.json': 'mysql-unreachable',
  'error_discover_known-dead_127.0.0.1_23306.json': 'mysql-unreachable',
  'error_set-read-only_unknown.json': 'mysql-unreachable',
  'error_cluster_unknown.json': 'unknown-cluster',
  'error_master_unknown.json': 'unknown-cluster',
  'error_graceful-master-takeover_unknown-cluster.json': 'unknown-cluster',
  'error_ack-recovery_unknown-cluster.json': 'unknown-cluster',
  'error_cluster-alias_unknown.json': 'unknown-cluster',
  'error_master_unknown-alias.json': 'unknown-cluster',
  'error_graceful-master-takeover-auto_unknown-cluster.json': 'unknown-cluster',
  'error_set-writeable_unknown_127.0.0.99_3306.json': 'mysql-unreachable',
  'error_graceful-master-takeover_unknown-designated.json': 'failed',
  'error_graceful-master-takeover-auto_unknown-designated.json': 'failed',
  'error_graceful-master-takeover_unknown-alias.json': 'unknown-cluster',
  'error_graceful-master-takeover-auto_unknown-alias_designated.json': 'unknown-cluster',
  'error_graceful-master-takeover_prehook-refused.json': 'failed',
  'error_graceful-master-takeover-auto_prehook-refused_designated.json': 'failed',
  'error_ack-recovery_empty-comment.json': 'failed',
  'error_ack-recovery_missing-comment.json': 'failed',
  'error_begin-downtime_bad-duration.json': 'failed',
  'hooks/graceful-takeover-prehook-exit1_response.json': 'failed',
};

const decoded = new Map<string, unknown>();

test('the client decodes every recorded answer it has a method for, asking the recorded route', async (t) => {
  let covered = 0;
  for (const row of rows()) {
    const method = row.method === 'GET' ? METHODS.find((m) => m.route.test(row.path)) : undefined;
    if (method === undefined) continue;
    covered++;
    await t.test(`${row.file} (${row.method} ${row.path} → ${row.status})`, async () => {
      serve(srv, row);
      srv.requests.length = 0;
      const m = [...method.route.exec(row.path)!] as string[];
      const result = method.call(client, m);
      if (row.status === 200) decoded.set(row.file, await result);
      else {
        const kind = ERROR_KINDS[row.file];
        assert.ok(kind, `no expected error kind for ${row.file}`);
        await assert.rejects(result, (e: unknown) => {
          assert.ok(e instanceof OrchestratorError, String(e));
          assert.equal(e.kind, kind, e.message);
          assert.equal(e.status, row.status);
          assert.doesNotMatch(e.message, /^\d{4}-|ERROR \d/, 'log prefix left in the message');
          return true;
        });
      }
      if (method.exact)
        assert.deepEqual(
          srv.requests.map((q) => `${q.method} ${q.url}`),
          [`GET ${row.path}`],
        );
    });
  }
  assert.ok(covered >= 60, `only ${covered} recorded answers had a method`);
});

test('decoded values are what the recorded servers were doing', () => {
  const got = <T>(file: string): T => {
    assert.ok(decoded.has(file), `${file} was not decoded`);
    return decoded.get(file) as T;
  };
  const k = (h: string) => ({ host: h, port: 3306 });

  const master = got<I>('instance_master_127.0.0.11_3306.json');
  assert.deepEqual(
    [master.key, master.master, master.readOnly, master.clusterAlias, master.clusterName],
    [k('127.0.0.11'), null, false, 'labcluster', '127.0.0.11:3306'],
  );
  assert.deepEqual(master.replicas.map((r) => r.host).sort(), ['127.0.0.12', '127.0.0.13']);
  assert.equal(master.lastSeen?.toISOString().slice(0, 10), '2026-11-21');

  const replica = got<I>('instance_replica_127.0.0.12_3306.json');
  assert.deepEqual(
    [
      replica.master,
      replica.readOnly,
      replica.sqlThreadRunning,
      replica.ioThreadRunning,
      replica.secondsBehindMaster,
      replica.lastCheckValid,
    ],
    [k('127.0.0.11'), true, true, true, 0, true],
  );
  const dead = got<I>('instance_dead-master_127.0.0.11_3306.json');
  assert.equal(dead.lastCheckValid, false);
  const downtimed = got<I>('instance_downtimed_127.0.0.13_3306.json');
  assert.deepEqual([downtimed.downtimed, downtimed.downtimeOwner, downtimed.downtimeReason], [true, 'lab-operator', 'maintenance-test']);
  assert.equal(got<I>('set-writeable_replica_127.0.0.13_3306.json').readOnly, false);
  assert.equal(got<I>('set-read-only_replica_127.0.0.13_3306.json').readOnly, true);
  assert.deepEqual(got<I>('master_labcluster_after-failover.json').key, k('127.0.0.13'));
  assert.deepEqual(
    got<I[]>('cluster_alias_labcluster.json')
      .map((i) => i.key.host)
      .sort(),
    ['127.0.0.11', '127.0.0.12', '127.0.0.13'],
  );

  const infos = got<C[]>('clusters-info_after-failover.json');
  assert.equal(infos.find((c) => c.clusterAlias === 'labcluster')?.clusterName, '127.0.0.13:3306');

  const analysis = got<A[]>('replication-analysis_during-failure_deadmaster.json');
  assert.deepEqual(analysis.map((a) => [a.instance.host, a.analysis]).sort(), [
    ['127.0.0.11', 'DeadMaster'],
    ['127.0.0.12', 'FirstTierReplicaFailingToConnectToMaster'],
    ['127.0.0.13', 'FirstTierReplicaFailingToConnectToMaster'],
  ]);
  assert.deepEqual(got<A[]>('replication-analysis_healthy.json'), []);

  const failover = got<R[]>('audit-recovery_after-failover.json')[0]!;
  assert.deepEqual(
    [failover.id, failover.analysis, failover.failed, failover.successor, failover.successful, failover.acknowledged, failover.errors],
    [3, 'DeadMaster', k('127.0.0.11'), k('127.0.0.13'), true, false, []],
  );
  assert.ok(got<R[]>('audit-recovery_after-failover-ack.json').every((r) => r.acknowledged && r.acknowledgedAt !== null));
  assert.equal(got<string>('ack-recovery_cluster_labcluster.json'), '127.0.0.12:3306');

  const takeover = got<R>('graceful-master-takeover_labcluster_127.0.0.12_3306.json');
  assert.deepEqual([takeover.failed, takeover.successor, takeover.clusterAlias], [k('127.0.0.11'), k('127.0.0.12'), 'labcluster']);
  const unsuccessful = got<R[]>('hooks/failover-unsuccessful_audit-recovery.json')[0]!;
  assert.deepEqual([unsuccessful.successful, unsuccessful.successor], [false, null]);
});

const FIXTURE = (file: string): Row => {
  const row = rows().find((r) => r.file === file);
  assert.ok(row, file);
  return row;
};

test('a body without a field the project reads is an unexpected response naming the field and route', async () => {
  const row = FIXTURE('instance_replica_127.0.0.12_3306.json');
  const body = JSON.parse(readFileSync(new URL(row.file, FIXTURES), 'utf8')) as Record<string, unknown>;
  delete body.ReadOnly;
  srv.answer = { status: 200, contentType: JSON_TYPE, body: JSON.stringify(body) };
  await assert.rejects(client.instance({ host: '127.0.0.12', port: 3306 }), (e: unknown) => {
    assert.ok(e instanceof OrchestratorError);
    assert.deepEqual([e.kind, e.field], ['unexpected-response', 'ReadOnly']);
    assert.match(e.message, /GET \/instance\/127\.0\.0\.12\/3306: ReadOnly is missing/);
    return true;
  });

  const analysis = JSON.parse(readFileSync(new URL('replication-analysis_during-failure_deadmaster.json', FIXTURES), 'utf8')) as {
    Details: Array<{ ClusterDetails: Record<string, unknown> }>;
  };
  analysis.Details[1]!.ClusterDetails.ClusterAlias = 7;
  srv.answer = { status: 200, contentType: JSON_TYPE, body: JSON.stringify(analysis) };
  await assert.rejects(client.replicationAnalysis(), { kind: 'unexpected-response', field: 'Details[1].ClusterDetails.ClusterAlias' });
});

test('an unrouted path (plain-text 404) is an unexpected response', async () => {
  for (const file of ['error_unknown-route_replicas.json', 'error_post-method_not-routed.json']) {
    serve(srv, FIXTURE(file));
    await assert.rejects(client.instance({ host: '127.0.0.11', port: 3306 }), { kind: 'unexpected-response', status: 404 });
  }
});

test('replication analysis for one alias leaves out the other clusters', async () => {
  serve(srv, FIXTURE('replication-analysis_after-failover.json'));
  const all = await client.replicationAnalysis();
  const mine = await client.replicationAnalysis('labcluster');
  assert.ok(all.length > 0);
  assert.ok(mine.every((a) => a.clusterAlias === 'labcluster'));
  assert.ok(mine.length < all.length, 'the old master alone in its own cluster is not labcluster');
});

test('a read is retried when Orchestrator drops the connection; a write is not', async () => {
  serve(srv, FIXTURE('instance_replica_127.0.0.12_3306.json'));
  srv.requests.length = 0;
  srv.resets = 1;
  assert.equal((await client.instance({ host: '127.0.0.12', port: 3306 })).readOnly, true);
  assert.equal(srv.requests.length, 2);

  serve(srv, FIXTURE('set-read-only_replica_127.0.0.13_3306.json'));
  srv.requests.length = 0;
  srv.resets = 1;
  await assert.rejects(client.setReadOnly({ host: '127.0.0.13', port: 3306 }), { kind: 'unreachable' });
  assert.equal(srv.requests.length, 1);
  srv.resets = 0;
});

test('nothing listening is unreachable', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const c = orchestratorClient({ baseUrl: `http://127.0.0.1:${port}/api`, retryDelayMs: 1 });
  await assert.rejects(c.clustersInfo(), { kind: 'unreachable' });
});

test("no answer in time is unreachable; an aborted call rejects with the caller's reason", async () => {
  srv.answer = 'hang';
  const c = orchestratorClient({ baseUrl: srv.base, timeoutMs: 50, readRetries: 0 });
  await assert.rejects(
    c.master('labcluster'),
    (e: unknown) => e instanceof OrchestratorError && e.kind === 'unreachable' && /no answer within 50 ms/.test(e.message),
  );

  const ac = new AbortController();
  const call = client.gracefulMasterTakeoverAuto('labcluster', undefined, { signal: ac.signal });
  ac.abort(new Error('operator stopping'));
  await assert.rejects(call, { message: 'operator stopping' });
  srv.server.closeAllConnections();
});

test('credentials in the base URL are sent but never appear in an error', async () => {
  const c = orchestratorClient({ baseUrl: srv.base.replace('http://', 'http://orc:s3cret@'), retryDelayMs: 1 });
  serve(srv, FIXTURE('error_master_unknown.json'));
  srv.requests.length = 0;
  await assert.rejects(
    c.master('nosuchcluster'),
    (e: unknown) => e instanceof Error && !e.message.includes('s3cret') && !e.stack?.includes('s3cret'),
  );
  assert.equal(srv.requests[0]?.authorization, `Basic ${Buffer.from('orc:s3cret').toString('base64')}`);
});

test('a downtime of no positive whole seconds is refused before asking Orchestrator', async () => {
  srv.requests.length = 0;
  await assert.rejects(
    client.beginDowntime({ host: 'h', port: 3306 }, { owner: 'o', reason: 'r', seconds: 0 }),
    /seconds must be a positive integer/,
  );
  assert.equal(srv.requests.length, 0);
});

const REAL = process.env.TEST_ORCHESTRATOR_URL;
test('against a real Orchestrator (TEST_ORCHESTRATOR_URL), the read-only calls decode', {
  skip: REAL ? false : 'needs TEST_ORCHESTRATOR_URL (a real Orchestrator API base, e.g. http://host:3000/api)',
}, async () => {
  const c = orchestratorClient({ baseUrl: REAL! });
  const infos = await c.clustersInfo();
  await c.replicationAnalysis();
  for (const info of infos) {
    const instances = await c.clusterByAlias(info.clusterAlias);
    assert.ok(instances.length > 0, info.clusterAlias);
    const m = await c.master(info.clusterAlias);
    assert.deepEqual(await c.instance(m.key).then((i) => i.key), m.key);
    await c.recoveries(info.clusterAlias);
  }
  await assert.rejects(c.instance({ host: 'no-such-host.invalid', port: 3306 }), { kind: 'unknown-instance' });
  await assert.rejects(c.master('no-such-cluster.invalid'), { kind: 'unknown-cluster' });
});

test('every route the client asks, with every outcome it can meet there, has a recorded answer of Orchestrator 3.2.6', async () => {
  const all = await coverage();
  const missing = all.filter((c) => c.recorded.length === 0).map((c) => `${c.route.template} → ${c.outcome}`);
  assert.deepEqual(missing, [], 'record these with the real binary (test/fixtures/orchestrator/README.md says how)');
  // The enumeration is the client's: every method, and both paths of the takeover with and without a designated replica.
  const templates = new Set(all.map((c) => c.route.template));
  assert.ok(
    templates.has('/api/graceful-master-takeover-auto/{alias}') &&
      templates.has('/api/graceful-master-takeover-auto/{alias}/{host}/{port}'),
  );
  assert.equal(new Set(all.map((c) => c.route.method)).size, Object.keys(client).length);
});
