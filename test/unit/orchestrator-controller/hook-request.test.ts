// The failover hook's judgement of a call: authentication before anything else, the fields
// Orchestrator fills in (and the placeholders it leaves literal), and the command line that sends
// them without the secret on it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterOfOrchestratorAlias, names } from '../../../src/api/names.ts';
import {
  authorized,
  hookCommand,
  hookEvent,
  hookProcessesConfig,
  judgeHookCall,
  secretFromFileText,
  secretProblem,
  type HookSecret,
} from '../../../src/controllers/orchestrator-controller/hook-request.ts';

const SECRET: HookSecret = { secret: 's3cr3t-Token' };
const AUTH = 'Bearer s3cr3t-Token';

/** A body as curl's --data-urlencode sends it after Orchestrator substituted the placeholders. */
function body(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

const POST_MASTER_FAILOVER = {
  process: 'PostMasterFailover',
  alias: 'my-db.default',
  failed: 'my-db-mysql-0.mysql.default:3306',
  successor: 'my-db-mysql-1.mysql.default:3306',
};

describe('judgeHookCall', () => {
  it('accepts an authenticated PostMasterFailover and names the cluster, the failed and the promoted instance', () => {
    const v = judgeHookCall({ secret: SECRET, authorization: AUTH, body: body(POST_MASTER_FAILOVER) });
    assert.deepEqual(v, {
      kind: 'accept',
      request: { ...POST_MASTER_FAILOVER, namespace: 'default', name: 'my-db' },
    });
  });

  it('takes the successor placeholders Orchestrator leaves literal before a promotion as no successor', () => {
    const v = judgeHookCall({
      secret: SECRET,
      authorization: AUTH,
      body: body({ ...POST_MASTER_FAILOVER, process: 'PreFailover', successor: '{successorHost}:{successorPort}' }),
    });
    assert.equal(v.kind, 'accept');
    assert.equal(v.kind === 'accept' && v.request.successor, undefined);
    assert.equal(v.kind === 'accept' && v.request.failed, POST_MASTER_FAILOVER.failed);
  });

  it('refuses everything with 503 while no secret is configured, saying why', () => {
    const v = judgeHookCall({ secret: { off: 'no shared secret is configured' }, authorization: AUTH, body: body(POST_MASTER_FAILOVER) });
    assert.deepEqual(v.kind === 'refuse' && [v.status, v.result], [503, 'disabled']);
    assert.match(v.kind === 'refuse' ? v.message : '', /off: no shared secret is configured/);
  });

  it('refuses a call without the right secret with 401, before judging its fields', () => {
    for (const authorization of [
      undefined,
      '',
      'Bearer wrong',
      'Basic s3cr3t-Token',
      'Bearer s3cr3t-Toke',
      'Bearer s3cr3t-Token2',
      'bearer s3cr3t-Token',
    ]) {
      const v = judgeHookCall({ secret: SECRET, authorization, body: 'process=nonsense' });
      assert.deepEqual(v.kind === 'refuse' && [v.status, v.result], [401, 'unauthorized'], String(authorization));
      assert.doesNotMatch(v.kind === 'refuse' ? v.message : '', /s3cr3t/);
    }
  });

  it('refuses bad fields with 400 and a message naming the field', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { ...POST_MASTER_FAILOVER, process: 'PostFailover' },
        /^invalid process: 'PostFailover' is not one of PreGracefulTakeover, PreFailover, /,
      ],
      [{ alias: 'my-db.default' }, /^invalid process: '' /],
      [{ ...POST_MASTER_FAILOVER, alias: '{failureClusterAlias}' }, /^invalid alias: '\{failureClusterAlias\}' is not a cluster alias/],
      [{ ...POST_MASTER_FAILOVER, alias: 'nodot' }, /^invalid alias/],
      [
        { ...POST_MASTER_FAILOVER, failed: 'my-db-mysql-0.mysql.default' },
        /^invalid failed: 'my-db-mysql-0.mysql.default' is not host:port/,
      ],
      [{ ...POST_MASTER_FAILOVER, successor: 'h:99999' }, /^invalid successor: 'h:99999' is not host:port/],
      [{ ...POST_MASTER_FAILOVER, process: 'x'.repeat(100_000) }, /^invalid process: 'x{80}\.\.\.' is not one of/],
    ];
    for (const [fields, message] of cases) {
      const v = judgeHookCall({ secret: SECRET, authorization: AUTH, body: body(fields) });
      assert.deepEqual(v.kind === 'refuse' && [v.status, v.result], [400, 'invalid'], JSON.stringify(fields));
      assert.match(v.kind === 'refuse' ? v.message : '', message);
    }
  });

  it('labels the call with its process when it names a known one, else unknown (bounded metric labels)', () => {
    const good = judgeHookCall({ secret: SECRET, authorization: 'Bearer no', body: body(POST_MASTER_FAILOVER) });
    const bad = judgeHookCall({ secret: SECRET, authorization: 'Bearer no', body: body({ process: 'x'.repeat(100) }) });
    assert.deepEqual([good.kind === 'refuse' && good.process, bad.kind === 'refuse' && bad.process], ['PostMasterFailover', 'unknown']);
  });
});

describe('authorized', () => {
  it('takes the first of repeated Authorization headers only', () => {
    assert.equal(authorized([AUTH, 'Bearer other'], 's3cr3t-Token'), true);
    assert.equal(authorized(['Bearer other', AUTH], 's3cr3t-Token'), false);
  });
});

describe('the shared secret', () => {
  it('drops the trailing newline of a file and refuses text that cannot travel in a curl config header line', () => {
    assert.equal(secretFromFileText('abc\n'), 'abc');
    assert.equal(secretFromFileText('abc\r\n'), 'abc');
    assert.equal(secretProblem('Az09-_.~!#$%&()*+,/:;<=>?@[]^`{|}'), null);
    for (const bad of ['', 'a b', 'a"b', 'a\\b', 'ünïcode', 'a\nb']) assert.ok(secretProblem(bad), JSON.stringify(bad));
  });
});

describe('clusterOfOrchestratorAlias', () => {
  it('reads back what names.orchestratorAlias writes, dotted cluster names too', () => {
    for (const [c, ns] of [
      ['my-db', 'default'],
      ['db.v2', 'team-a'],
      ['a', 'b'],
    ] as const) {
      assert.deepEqual(clusterOfOrchestratorAlias(names.orchestratorAlias(c, ns)), { name: c, namespace: ns });
    }
  });

  it('refuses text that names no cluster', () => {
    for (const bad of [
      '',
      'nodot',
      '.default',
      'my-db.',
      'My-Db.default',
      'my-db.Default',
      '{failureClusterAlias}',
      'my-db-mysql-0.mysql.default:3306',
    ]) {
      assert.equal(clusterOfOrchestratorAlias(bad), null, bad);
    }
  });
});

describe('hookCommand', () => {
  const cmd = hookCommand({
    operatorUrl: 'http://mysql-operator.ops:8080/',
    process: 'PostMasterFailover',
    secretFile: '/etc/hook/secret',
  });

  it('passes the placeholders Orchestrator substitutes, the secret only from a file through curl stdin, and never fails the hook', () => {
    for (const placeholder of ['{failureClusterAlias}', '{failedHost}:{failedPort}', '{successorHost}:{successorPort}'])
      assert.ok(cmd.includes(placeholder), placeholder);
    assert.match(cmd, /"\$\(cat '\/etc\/hook\/secret'\)" \| curl .*-K - /);
    assert.ok(cmd.includes("'http://mysql-operator.ops:8080/hooks/orchestrator/failover'"));
    assert.match(cmd, /\|\| true$/, 'a failing PreFailover hook would abort the recovery');
  });

  it("gives one command per hook process, in the keys of Orchestrator's config", () => {
    const conf = hookProcessesConfig({ operatorUrl: 'http://op:8080', secretFile: '/s' });
    assert.deepEqual(Object.keys(conf), [
      'PreGracefulTakeoverProcesses',
      'PreFailoverProcesses',
      'PostMasterFailoverProcesses',
      'PostGracefulTakeoverProcesses',
      'PostUnsuccessfulFailoverProcesses',
    ]);
    assert.match(conf.PostUnsuccessfulFailoverProcesses[0] ?? '', /'process=PostUnsuccessfulFailover'/);
    // 3.2.6 freezes the master right after PreGracefulTakeoverProcesses (issue 21): the operator must hear of it first.
    assert.match(
      conf.PreGracefulTakeoverProcesses[0] ?? '',
      /'process=PreGracefulTakeover'.*'successor=\{successorHost\}:\{successorPort\}'/,
    );
  });
});

describe('hookEvent', () => {
  it('says what Orchestrator did, a Warning when it could not promote', () => {
    const r = {
      process: 'PostMasterFailover' as const,
      alias: 'my-db.default',
      namespace: 'default',
      name: 'my-db',
      failed: 'a:3306',
      successor: 'b:3306',
    };
    assert.deepEqual(hookEvent(r), {
      type: 'Normal',
      reason: 'OrchestratorMasterPromoted',
      message: 'Orchestrator promoted b:3306 to master in place of a:3306',
    });
    const failed = hookEvent({ ...r, process: 'PostUnsuccessfulFailover', successor: undefined });
    assert.deepEqual([failed.type, failed.reason], ['Warning', 'OrchestratorFailoverFailed']);
  });
});
