// The failover hook endpoint on a real Manager against the test API server (or TEST_KUBECONFIG's
// cluster): what an authenticated call changes (signal, Event on the MysqlCluster, a reconcile of
// that cluster at once), what bad and unauthenticated calls get (refused, counted, nothing
// changed), and the hook off without a secret. Then Orchestrator's side: the stand-in, configured
// with hookCommand's command lines, fails over real MariaDB servers and its calls arrive with the
// right process, cluster and successor.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { FAILOVER_HOOK_REASONS } from '../../../src/api/constants.ts';
import { names } from '../../../src/api/names.ts';
import {
  failoverHookRoute,
  logFailoverHookState,
  type FailoverHookOptions,
} from '../../../src/controllers/orchestrator-controller/hook.ts';
import { FAILOVER_HOOK_PATH, hookProcessesConfig } from '../../../src/controllers/orchestrator-controller/hook-request.ts';
import { FailoverSignals, type HookSignal } from '../../../src/controllers/orchestrator-controller/hook-signals.ts';
import { KINDS } from '../../../src/controllers/shared/kinds.ts';
import type { Manager } from '../../../src/runtime/manager.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { runManager, testConfig } from '../runtime/helpers.ts';

const SECRET = 'hook-Secret-7f3a9c';
const CLUSTER = 'my-db';

/** FailoverSignals that also keeps every signal, in order, for the assertions. */
class RecordedSignals extends FailoverSignals {
  readonly all: HookSignal[] = [];
  override record(signal: HookSignal): void {
    this.all.push(signal);
    super.record(signal);
  }
}

interface Operator {
  env: KubeEnv;
  manager: Manager;
  client: KubeClient;
  lines: string[];
  signals: RecordedSignals;
  reconciled: string[];
  url: string;
  secretFile: string;
}

/** A Manager whose only controller carries the hook route and records the keys it reconciles. */
async function startOperator(t: TestContext, options: (secretFile: string) => FailoverHookOptions): Promise<Operator> {
  const env = await kubeEnv(t);
  const dir = mkdtempSync(join(tmpdir(), 'failover-hook-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, `${SECRET}\n`);
  const signals = new RecordedSignals();
  const reconciled: string[] = [];
  const opts = options(secretFile);
  const { manager, client, lines } = await runManager(
    t,
    env.kubeConfig,
    {
      name: 'orchestrator',
      for: KINDS.cluster,
      async reconcile(req) {
        reconciled.push(req.key);
      },
      start: (ctx) => logFailoverHookState(ctx.log, opts),
      routes: [failoverHookRoute({ options: opts, signals })],
    },
    testConfig(['--namespace', env.namespace, '--leader-elect=false']),
  );
  await client.create({
    apiVersion: KINDS.cluster.apiVersion,
    kind: KINDS.cluster.kind,
    metadata: { name: CLUSTER, namespace: env.namespace },
    spec: { replicas: 3, secretName: `${CLUSTER}-secret`, mysqlVersion: 'mariadb-10.11' },
  } as KubeObject);
  await eventually('the cluster is reconciled once', () => reconciled.includes(`${env.namespace}/${CLUSTER}`));
  const port = manager.httpAddress?.port;
  assert.ok(port);
  return { env, manager, client, lines, signals, reconciled, url: `http://127.0.0.1:${port}`, secretFile };
}

async function call(
  op: Operator,
  fields: Record<string, string>,
  secret: string | null = SECRET,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${op.url}${FAILOVER_HOOK_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(secret !== null && { Authorization: `Bearer ${secret}` }) },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: await res.text() };
}

async function hookCalls(op: Operator): Promise<string[]> {
  const text = await (await fetch(`${op.url}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('mysql_operator_failover_hook_calls_total{'));
}

async function events(
  op: Operator,
): Promise<Array<{ reason?: string; type?: string; message?: string; involvedObject?: { kind?: string; name?: string } }>> {
  return (await op.client.list({ apiVersion: 'v1', kind: 'Event' }, { namespace: op.env.namespace })).items as never;
}

describe('failover hook endpoint', { concurrency: true }, () => {
  it('records an authenticated call, puts an Event on the cluster and reconciles it at once', async (t) => {
    const op = await startOperator(t, (file) => ({ failoverHookSecretFile: file, failoverHookSecret: '' }));
    const key = `${op.env.namespace}/${CLUSTER}`;
    const before = op.reconciled.length;
    const res = await call(op, {
      process: 'PostMasterFailover',
      alias: names.orchestratorAlias(CLUSTER, op.env.namespace),
      failed: `my-db-mysql-0.mysql.${op.env.namespace}:3306`,
      successor: `my-db-mysql-1.mysql.${op.env.namespace}:3306`,
    });
    assert.deepEqual([res.status, JSON.parse(res.body)], [202, { cluster: key, process: 'PostMasterFailover' }]);
    assert.deepEqual(
      { ...op.signals.latest(key), at: undefined },
      {
        process: 'PostMasterFailover',
        clusterKey: key,
        failed: `my-db-mysql-0.mysql.${op.env.namespace}:3306`,
        successor: `my-db-mysql-1.mysql.${op.env.namespace}:3306`,
        at: undefined,
      },
    );
    await eventually('the cluster is reconciled again', () => op.reconciled.length > before && op.reconciled.at(-1) === key);
    const event = await eventually('an Event on the MysqlCluster', async () =>
      (await events(op)).find((e) => e.reason === FAILOVER_HOOK_REASONS.PostMasterFailover),
    );
    assert.deepEqual([event.type, event.involvedObject?.kind, event.involvedObject?.name], ['Normal', 'MysqlCluster', CLUSTER]);
    assert.match(event.message ?? '', /promoted my-db-mysql-1\.mysql\.\S+:3306 to master in place of my-db-mysql-0/);
    assert.deepEqual(await hookCalls(op), ['mysql_operator_failover_hook_calls_total{process="PostMasterFailover",result="accepted"} 1']);
  });

  it('refuses unauthenticated, malformed and unknown-cluster calls, counts them and changes nothing', async (t) => {
    const op = await startOperator(t, (file) => ({ failoverHookSecretFile: file, failoverHookSecret: '' }));
    const alias = names.orchestratorAlias(CLUSTER, op.env.namespace);
    const good = { process: 'PreFailover', alias, failed: 'h:3306', successor: '{successorHost}:{successorPort}' };
    const answers = [
      await call(op, good, null),
      await call(op, good, 'wrong-secret'),
      await call(op, { ...good, process: 'PostFailover' }),
      await call(op, { ...good, alias: '{failureClusterAlias}' }),
      await call(op, { ...good, alias: names.orchestratorAlias('other-db', op.env.namespace) }),
    ];
    assert.deepEqual(
      answers.map((a) => a.status),
      [401, 401, 400, 400, 404],
    );
    assert.match(answers[0]?.body ?? '', /^unauthorized: the call must carry "Authorization: Bearer/);
    assert.match(answers[2]?.body ?? '', /^invalid process: 'PostFailover'/);
    assert.match(answers[3]?.body ?? '', /^invalid alias: /);
    assert.match(answers[4]?.body ?? '', /^unknown cluster: no MysqlCluster \S+\/other-db/);
    assert.deepEqual(op.signals.all, []);
    assert.deepEqual((await hookCalls(op)).sort(), [
      'mysql_operator_failover_hook_calls_total{process="PreFailover",result="invalid"} 1',
      'mysql_operator_failover_hook_calls_total{process="PreFailover",result="unauthorized"} 2',
      'mysql_operator_failover_hook_calls_total{process="PreFailover",result="unknown-cluster"} 1',
      'mysql_operator_failover_hook_calls_total{process="unknown",result="invalid"} 1',
    ]);
    // The same answers after an accepted call would show a reconcile; refusals leave no Event.
    assert.equal((await events(op)).filter((e) => Object.values(FAILOVER_HOOK_REASONS).includes(e.reason as never)).length, 0);
    assert.ok(!op.lines.some((l) => l.includes('wrong-secret') || l.includes(SECRET)), 'no secret in the logs');
  });

  it('is off without a secret: it says so at start and answers 503 to every call', async (t) => {
    const op = await startOperator(t, () => ({ failoverHookSecretFile: '', failoverHookSecret: '' }));
    const res = await call(op, { process: 'PreFailover', alias: names.orchestratorAlias(CLUSTER, op.env.namespace) });
    assert.equal(res.status, 503);
    assert.match(
      res.body,
      /^the failover hook is off: no shared secret is configured \(--failover-hook-secret-file or FAILOVER_HOOK_SECRET\)/,
    );
    assert.ok(
      op.lines.some((l) => l.includes('failover hook is off')),
      'a log line at start',
    );
    assert.deepEqual(op.signals.all, []);
  });

  it("receives the stand-in Orchestrator's hook calls of a graceful takeover and of a failover after SIGKILL", async (t) => {
    const op = await startOperator(t, (file) => ({ failoverHookSecretFile: file, failoverHookSecret: '' }));
    const alias = names.orchestratorAlias(CLUSTER, op.env.namespace);
    const key = `${op.env.namespace}/${CLUSTER}`;
    const lab = await startStandInLab(t, 'hook', {
      alias,
      extraHooks: hookProcessesConfig({ operatorUrl: op.url, secretFile: op.secretFile }),
    });
    const [s0, s1, s2] = lab.servers;
    const at = (s: { host: string; port: number }): string => `${s.host}:${s.port}`;

    const takeover = await lab.get(`/api/graceful-master-takeover-auto/${alias}`);
    assert.equal(takeover.body.Code, 'OK', JSON.stringify(takeover.body));
    await eventually('PostGracefulTakeover arrives', () => op.signals.all.some((s) => s.process === 'PostGracefulTakeover'));
    const promoted = [s1, s2].find((s) => at(s) === op.signals.latest(key)?.successor);
    assert.ok(promoted, `the successor ${op.signals.latest(key)?.successor} is a former replica`);
    assert.deepEqual(
      op.signals.all.map((s) => [s.process, s.clusterKey, s.failed, s.successor]),
      [
        // PreGracefulTakeover names the designated replica already, as recorded (3.2.6 sets the successor first).
        ['PreGracefulTakeover', key, at(s0), at(promoted)],
        ['PreFailover', key, at(s0), undefined],
        ['PostMasterFailover', key, at(s0), at(promoted)],
        ['PostGracefulTakeover', key, at(s0), at(promoted)],
      ],
    );

    op.signals.all.length = 0;
    await promoted.kill();
    await eventually('PostMasterFailover arrives', () => op.signals.all.some((s) => s.process === 'PostMasterFailover'));
    const [pre, post] = op.signals.all;
    assert.deepEqual([pre?.process, pre?.failed, pre?.successor], ['PreFailover', at(promoted), undefined]);
    assert.equal(post?.failed, at(promoted));
    assert.ok(
      [s0, s1, s2].some((s) => s !== promoted && at(s) === post?.successor),
      `successor ${post?.successor} is a live server`,
    );
    const reasons = new Set((await events(op)).map((e) => e.reason));
    for (const p of ['PreGracefulTakeover', 'PreFailover', 'PostMasterFailover', 'PostGracefulTakeover'] as const)
      assert.ok(reasons.has(FAILOVER_HOOK_REASONS[p]), p);
  });
});
