import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, helpRequested, helpText, loadConfig, OPTIONS, parseDuration } from '../../../src/runtime/config.ts';

describe('config', () => {
  it('uses defaults when nothing is given', () => {
    const c = loadConfig([], {});
    assert.equal(c.namespace, '');
    assert.deepEqual(c.metricsAddr, { host: '0.0.0.0', port: 8080 });
    assert.equal(c.workers, 5);
    assert.equal(c.leaderElect, true);
    assert.equal(c.leaderElectionNamespace, 'default');
    assert.equal(c.leaseDurationMs, 15_000);
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
