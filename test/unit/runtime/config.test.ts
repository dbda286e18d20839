import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { clusterOptionsFromConfig } from '../../../src/controllers/cluster/controller.ts';
import { ConfigError, helpRequested, helpText, loadConfig, OPTIONS, parseDuration } from '../../../src/runtime/config.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const ORC_PASSWORD = 'Orc-Secret-4711';

describe('config', () => {
  it('uses defaults when nothing is given', () => {
    const c = loadConfig([], {});
    assert.equal(c.namespace, '');
    assert.deepEqual(c.metricsAddr, { host: '0.0.0.0', port: 8080 });
    assert.equal(c.workers, 5);
    assert.equal(c.leaderElect, true);
    assert.equal(c.leaderElectionNamespace, 'default');
    assert.equal(c.leaseDurationMs, 15_000);
    assert.equal(c.kubeApiQps, 20);
    assert.equal(c.kubeApiBurst, 30);
    assert.equal(c.reconcileTimeoutMs, 300_000);
    assert.equal(c.orcTopologyUser, '');
    assert.equal(c.orcTopologyPassword, '');
  });

  it('reads the API rate limit and the reconcile deadline from flags over variables', () => {
    const c = loadConfig(['--kube-api-qps', '2.5', '--reconcile-timeout=90s'], { KUBE_API_QPS: '50', KUBE_API_BURST: '7', RECONCILE_TIMEOUT: '1m' });
    assert.equal(c.kubeApiQps, 2.5);
    assert.equal(c.kubeApiBurst, 7);
    assert.equal(c.reconcileTimeoutMs, 90_000);
  });

  it("takes Orchestrator's topology credentials from the anchor chart's variables, a flag winning", () => {
    const env = { ORC_TOPOLOGY_USER: 'orc', ORC_TOPOLOGY_PASSWORD: ORC_PASSWORD };
    const fromEnv = loadConfig([], env);
    assert.equal(fromEnv.orcTopologyUser, 'orc');
    assert.equal(fromEnv.orcTopologyPassword, ORC_PASSWORD);
    const flagged = loadConfig(['--orc-topology-user', 'orc2', '--orc-topology-password', 'other'], env);
    assert.equal(flagged.orcTopologyUser, 'orc2');
    assert.equal(flagged.orcTopologyPassword, 'other');
  });

  it('hands the topology credentials to the cluster controller through the config, not process.env', () => {
    const before = process.env['ORC_TOPOLOGY_USER'];
    process.env['ORC_TOPOLOGY_USER'] = 'from-process-env';
    try {
      const opts = clusterOptionsFromConfig(loadConfig([], { ORC_TOPOLOGY_USER: 'orc', ORC_TOPOLOGY_PASSWORD: ORC_PASSWORD }));
      assert.equal(opts.orcTopologyUser, 'orc');
      assert.equal(opts.orcTopologyPassword, ORC_PASSWORD);
    } finally {
      if (before === undefined) delete process.env['ORC_TOPOLOGY_USER'];
      else process.env['ORC_TOPOLOGY_USER'] = before;
    }
  });

  it('masks the topology password when the config is logged', () => {
    const env = { ORC_TOPOLOGY_PASSWORD: ORC_PASSWORD };
    const lines: string[] = [];
    const stream = new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) });
    createLogger({ stream }).info('config', { config: loadConfig(['--orc-topology-password', ORC_PASSWORD], env) });
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? '', new RegExp(ORC_PASSWORD));
    assert.match(lines[0] ?? '', /"orcTopologyPassword":"\*\*\*"/);
  });

  it('takes flags over environment variables', () => {
    const c = loadConfig(['--workers', '3', '--namespace=db', '--mysql-image-map', '8.0=percona:8.0,mariadb-10.11=mariadb:10.11'], {
      WORKERS: '7',
      WATCH_NAMESPACE: 'other',
      ORCHESTRATOR_URL: 'http://orc:3000',
      RESYNC_PERIOD: '1m30s',
    });
    assert.equal(c.workers, 3);
    assert.equal(c.namespace, 'db');
    assert.equal(c.leaderElectionNamespace, 'db');
    assert.equal(c.orchestratorUrl, 'http://orc:3000');
    assert.equal(c.resyncPeriodMs, 90_000);
    assert.deepEqual(c.mysqlImageMap, { '8.0': 'percona:8.0', 'mariadb-10.11': 'mariadb:10.11' });
  });

  const bad: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['a non-numeric worker count', ['--workers', 'many'], {}, /--workers \(or WORKERS\): 'many'/],
    ['a bad duration in the environment', [], { RESYNC_PERIOD: '10 minutes' }, /--resync-period \(or RESYNC_PERIOD\): '10 minutes'/],
    ['an orchestrator URL that is not http', [], { ORCHESTRATOR_URL: 'orc:3000' }, /--orchestrator-url \(or ORCHESTRATOR_URL\)/],
    ['a metrics address without a port', ['--metrics-addr', 'localhost'], {}, /--metrics-addr \(or METRICS_ADDR\): 'localhost'/],
    ['a malformed image map', ['--mysql-image-map', '8.0'], {}, /--mysql-image-map \(or MYSQL_IMAGE_MAP\)/],
    ['a zero API rate', ['--kube-api-qps', '0'], {}, /--kube-api-qps \(or KUBE_API_QPS\): '0' is not a positive number/],
    ['a negative API rate', [], { KUBE_API_QPS: '-1' }, /--kube-api-qps \(or KUBE_API_QPS\): '-1'/],
    ['a fractional burst', ['--kube-api-burst', '1.5'], {}, /--kube-api-burst \(or KUBE_API_BURST\): '1.5'/],
    ['a zero burst', [], { KUBE_API_BURST: '0' }, /--kube-api-burst \(or KUBE_API_BURST\): '0'/],
    ['a reconcile deadline that is not a duration', ['--reconcile-timeout', '5'], {}, /--reconcile-timeout \(or RECONCILE_TIMEOUT\): '5'/],
    ['an unknown log level', [], { LOG_LEVEL: 'verbose' }, /--log-level \(or LOG_LEVEL\): 'verbose'/],
    ['a renew deadline not shorter than the lease', ['--lease-duration', '5s', '--renew-deadline', '5s'], {}, /--renew-deadline .* shorter than --lease-duration/],
    ['an unknown flag', ['--wokers', '2'], {}, /invalid command line: .*wokers/],
  ];
  for (const [what, argv, env, message] of bad) {
    it(`rejects ${what} with a message naming the flag and variable`, () => {
      assert.throws(() => loadConfig(argv, env), (err: unknown) => err instanceof ConfigError && message.test(err.message));
    });
  }

  it('rejects a bad boolean variable naming it', () => {
    assert.throws(() => loadConfig([], { LEADER_ELECT: 'yes' }), /--leader-elect \(or LEADER_ELECT\): 'yes'/);
  });

  it('sees --help or -h among the flags, even beside invalid ones, but not as the value of a flag', () => {
    assert.equal(helpRequested(['--help']), true);
    assert.equal(helpRequested(['-h']), true);
    assert.equal(helpRequested(['--wokers', '2', '--workers=many', '-h']), true);
    assert.equal(helpRequested(['--namespace', '-h']), false);
    assert.equal(helpRequested(['--workers', '2']), false);
    assert.equal(helpRequested([]), false);
  });

  it('the help names every flag with its variable, and --help itself', () => {
    const text = helpText();
    for (const o of OPTIONS) assert.match(text, new RegExp(`--${o.flag} +${o.env} `), o.flag);
    assert.match(text, /--help, -h/);
  });

  it('parses durations', () => {
    assert.equal(parseDuration('1500ms'), 1500);
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('soon'), undefined);
  });
});
