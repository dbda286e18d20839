import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { controllers } from '../../../src/controllers/index.ts';
import { clusterControllerDefinition } from '../../../src/controllers/cluster/controller.ts';
import { DEFAULT_CLUSTER_OPTIONS, type ClusterControllerOptions } from '../../../src/controllers/cluster/options.ts';
import { ConfigError, helpRequested, helpText, loadConfig, parseDuration, settingSections } from '../../../src/runtime/config.ts';
import type { Setting } from '../../../src/runtime/settings.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { ConfigError as SidecarConfigError, loadConfig as loadSidecarConfig } from '../../../src/sidecar/config.ts';

const ORC_PASSWORD = 'Orc-Secret-4711';

/** The cluster controller's options as main loads them. */
function clusterOpts(argv: string[], env: NodeJS.ProcessEnv = {}): ClusterControllerOptions {
  return loadConfig(argv, env, [clusterControllerDefinition]).controllers[0]!.options as ClusterControllerOptions;
}

/** The problems of a configuration that does not load. */
function problemsOf(argv: string[], env: NodeJS.ProcessEnv = {}): readonly string[] {
  try {
    loadConfig(argv, env, controllers);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems;
  }
  assert.fail('loaded');
}

describe('config', () => {
  it('uses defaults when nothing is given', () => {
    const { runtime: c } = loadConfig([], {});
    assert.equal(c.namespace, '');
    assert.equal(c.kubeconfig, undefined);
    assert.deepEqual(c.metricsAddr, { host: '0.0.0.0', port: 8080 });
    assert.equal(c.workers, 5);
    assert.equal(c.leaderElect, true);
    assert.equal(c.leaderElectionNamespace, 'default');
    assert.equal(c.leaseDurationMs, 15_000);
    assert.equal(c.kubeApiQps, 20);
    assert.equal(c.kubeApiBurst, 30);
    assert.equal(c.reconcileTimeoutMs, 300_000);
    assert.equal(c.logLevel, 'info');
  });

  it('keeps only runtime settings in the runtime config; each controller gets its own options', () => {
    const loaded = loadConfig([], {}, controllers);
    assert.equal('orcTopologyPassword' in loaded.runtime, false);
    assert.equal('sidecarImage57' in loaded.runtime, false);
    assert.deepEqual(
      loaded.controllers.map((c) => c.name),
      controllers.map((c) => c.name),
    );
    assert.deepEqual(loaded.controllers[0]!.options, DEFAULT_CLUSTER_OPTIONS);
  });

  it("defaults the cluster controller to the anchor's per-line images and Orchestrator URI, ours only for lines the anchor never had", () => {
    const o = clusterOpts([]);
    assert.equal(o.sidecarImage57, 'docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3');
    assert.equal(o.sidecarImage80, 'docker.io/bitpoke/mysql-operator-sidecar-8.0:v0.6.3');
    assert.equal(o.sidecarImage84, 'mysql-operator-sidecar:latest');
    assert.equal(o.sidecarImageMariaDB, 'mysql-operator-sidecar:latest');
    assert.equal(o.metricsExporterImage, 'docker.io/prom/mysqld-exporter:v0.13.0');
    assert.equal(o.orchestratorUri, 'http://mysql-operator.mysql-operator/api');
    assert.equal(o.failoverBeforeShutdown, true);
    assert.equal(o.imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(o.versionImages, {});
  });

  it("takes the anchor chart's flags, --sidecar-image for 5.7 only and Go's --switch=false", () => {
    const o = clusterOpts([
      '--sidecar-image=s57',
      '--sidecar-mysql8-image',
      's80',
      '--orchestrator-uri=http://orc.ns/api',
      '--failover-before-shutdown=false',
      '--mysql-versions-to-image',
      '5.7.35=mysql:5.7,8.0=percona:8.0',
      '--image-pull-policy',
      'Always',
      '--image-pull-secret',
      'regcred',
      '--metrics-exporter-image',
      'exp:1',
    ]);
    assert.equal(o.sidecarImage57, 's57');
    assert.equal(o.sidecarImage80, 's80');
    assert.equal(o.sidecarImage84, 'mysql-operator-sidecar:latest');
    assert.equal(o.orchestratorUri, 'http://orc.ns/api');
    assert.equal(o.failoverBeforeShutdown, false);
    assert.deepEqual(o.versionImages, { '5.7.35': 'mysql:5.7', '8.0': 'percona:8.0' });
    assert.equal(o.imagePullPolicy, 'Always');
    assert.equal(o.imagePullSecretName, 'regcred');
    assert.equal(o.metricsExporterImage, 'exp:1');
    assert.equal(clusterOpts(['--failover-before-shutdown']).failoverBeforeShutdown, true);
    assert.equal(clusterOpts([], { FAILOVER_BEFORE_SHUTDOWN: 'false' }).failoverBeforeShutdown, false);
  });

  it('keeps the variable names: ORCHESTRATOR_URL, MYSQL_IMAGE_MAP, SIDECAR_IMAGE, ORC_TOPOLOGY_*', () => {
    const o = clusterOpts([], {
      ORCHESTRATOR_URL: 'http://orc:3000',
      MYSQL_IMAGE_MAP: '8.0=p:8',
      SIDECAR_IMAGE: 's:1',
      ORC_TOPOLOGY_USER: 'orc',
    });
    assert.equal(o.orchestratorUri, 'http://orc:3000');
    assert.deepEqual(o.versionImages, { '8.0': 'p:8' });
    assert.equal(o.sidecarImage57, 's:1');
    assert.equal(o.orcTopologyUser, 'orc');
  });

  it('reads the API rate limit and the reconcile deadline from flags over variables', () => {
    const { runtime: c } = loadConfig(['--kube-api-qps', '2.5', '--reconcile-timeout=90s'], {
      KUBE_API_QPS: '50',
      KUBE_API_BURST: '7',
      RECONCILE_TIMEOUT: '1m',
    });
    assert.equal(c.kubeApiQps, 2.5);
    assert.equal(c.kubeApiBurst, 7);
    assert.equal(c.reconcileTimeoutMs, 90_000);
  });

  it("takes Orchestrator's topology credentials from the anchor chart's variables, a flag winning", () => {
    const env = { ORC_TOPOLOGY_USER: 'orc', ORC_TOPOLOGY_PASSWORD: ORC_PASSWORD };
    const fromEnv = clusterOpts([], env);
    assert.equal(fromEnv.orcTopologyUser, 'orc');
    assert.equal(fromEnv.orcTopologyPassword, ORC_PASSWORD);
    const flagged = clusterOpts(['--orchestrator-topology-user', 'orc2', '--orchestrator-topology-password', 'other'], env);
    assert.equal(flagged.orcTopologyUser, 'orc2');
    assert.equal(flagged.orcTopologyPassword, 'other');
    assert.equal(clusterOpts([]).orcTopologyPassword, '', 'none: each Secret keeps or generates its own');
  });

  it('hands the topology credentials to the cluster controller from the env it is given, not process.env', () => {
    const before = process.env.ORC_TOPOLOGY_USER;
    process.env.ORC_TOPOLOGY_USER = 'from-process-env';
    try {
      const opts = clusterOpts([], { ORC_TOPOLOGY_USER: 'orc', ORC_TOPOLOGY_PASSWORD: ORC_PASSWORD });
      assert.equal(opts.orcTopologyUser, 'orc');
      assert.equal(opts.orcTopologyPassword, ORC_PASSWORD);
    } finally {
      if (before === undefined) delete process.env.ORC_TOPOLOGY_USER;
      else process.env.ORC_TOPOLOGY_USER = before;
    }
  });

  it('masks the topology password when the options are logged', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write: (c, _e, cb) => {
        lines.push(String(c));
        cb();
      },
    });
    createLogger({ stream }).info('options', { options: clusterOpts(['--orchestrator-topology-password', ORC_PASSWORD]) });
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? '', new RegExp(ORC_PASSWORD));
    assert.match(lines[0] ?? '', /"orcTopologyPassword":"\*\*\*"/);
  });

  it('takes flags over environment variables', () => {
    const { runtime: c } = loadConfig(['--workers', '3', '--namespace=db'], {
      WORKERS: '7',
      WATCH_NAMESPACE: 'other',
      RESYNC_PERIOD: '1m30s',
    });
    assert.equal(c.workers, 3);
    assert.equal(c.namespace, 'db');
    assert.equal(c.leaderElectionNamespace, 'db');
    assert.equal(c.resyncPeriodMs, 90_000);
  });

  const bad: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['a non-numeric worker count', ['--workers', 'many'], {}, /^--workers \(or WORKERS\): 'many' is not an integer/],
    ['a bad duration in the environment', [], { RESYNC_PERIOD: '10 minutes' }, /^--resync-period \(or RESYNC_PERIOD\): '10 minutes'/],
    [
      'an orchestrator URL that is not http',
      [],
      { ORCHESTRATOR_URL: 'orc:3000' },
      /^--orchestrator-uri \(or ORCHESTRATOR_URL\): 'orc:3000' is not an http\(s\) URL/,
    ],
    ['a metrics address without a port', ['--metrics-addr', 'localhost'], {}, /^--metrics-addr \(or METRICS_ADDR\): 'localhost'/],
    ['a malformed image map', ['--mysql-versions-to-image', '8.0'], {}, /^--mysql-versions-to-image \(or MYSQL_IMAGE_MAP\): '8.0'/],
    ['a zero API rate', ['--kube-api-qps', '0'], {}, /^--kube-api-qps \(or KUBE_API_QPS\): '0' is not a positive number/],
    ['a negative API rate', [], { KUBE_API_QPS: '-1' }, /^--kube-api-qps \(or KUBE_API_QPS\): '-1'/],
    ['a fractional burst', ['--kube-api-burst', '1.5'], {}, /^--kube-api-burst \(or KUBE_API_BURST\): '1.5'/],
    ['a zero burst', [], { KUBE_API_BURST: '0' }, /^--kube-api-burst \(or KUBE_API_BURST\): '0'/],
    ['a reconcile deadline that is not a duration', ['--reconcile-timeout', '5'], {}, /^--reconcile-timeout \(or RECONCILE_TIMEOUT\): '5'/],
    [
      'an unknown log level',
      [],
      { LOG_LEVEL: 'verbose' },
      /^--log-level \(or LOG_LEVEL\): 'verbose' is not one of error, warn, info, debug/,
    ],
    [
      'an unknown pull policy',
      ['--image-pull-policy', 'Sometimes'],
      {},
      /^--image-pull-policy \(or IMAGE_PULL_POLICY\): 'Sometimes' is not one of Always, IfNotPresent, Never/,
    ],
    [
      'an empty sidecar image',
      [],
      { SIDECAR_MYSQL8_IMAGE: '' },
      /^--sidecar-mysql8-image \(or SIDECAR_MYSQL8_IMAGE\): '' must not be empty/,
    ],
    [
      'a switch given a word',
      ['--failover-before-shutdown=yes'],
      {},
      /^--failover-before-shutdown \(or FAILOVER_BEFORE_SHUTDOWN\): 'yes' is not true or false/,
    ],
    [
      'a renew deadline not shorter than the lease',
      ['--lease-duration', '5s', '--renew-deadline', '5s'],
      {},
      /^--renew-deadline .* shorter than --lease-duration/,
    ],
    ['an unknown flag', ['--wokers', '2'], {}, /^unknown flag --wokers/],
    ['a flag without its value', ['--namespace'], {}, /^--namespace needs a value/],
    ["this project's old flag names", ['--orchestrator-url', 'http://orc'], {}, /^unknown flag --orchestrator-url/],
  ];
  for (const [what, argv, env, message] of bad) {
    it(`rejects ${what} with a message naming the flag and variable`, () => {
      const problems = problemsOf(argv, env);
      assert.ok(
        problems.some((p) => message.test(p)),
        problems.join('\n'),
      );
    });
  }

  it('reports every problem at once, in one ConfigError', () => {
    const problems = problemsOf(['--workers', 'many', '--sidecar-image='], { LOG_LEVEL: 'verbose', ORCHESTRATOR_URL: 'orc' });
    assert.equal(problems.length, 4, problems.join('\n'));
  });

  it('one ConfigError, with the list of problems, for the operator and the sidecar', () => {
    assert.equal(SidecarConfigError, ConfigError);
    assert.throws(
      () => loadSidecarConfig({}, [], ['identity']),
      (err: unknown) =>
        err instanceof ConfigError && err.problems.length === 3 && err.message === `invalid configuration: ${err.problems.join('; ')}`,
    );
    assert.ok(problemsOf(['--workers', 'many']).length === 1);
  });

  it('never echoes URL userinfo in a start-up error', () => {
    for (const [argv, env] of [
      [['--orchestrator-uri', 'ftp://orc-user:Orc-Pass-0815@orc:3000/api'], {}],
      [[], { ORCHESTRATOR_URL: 'http://orc-user:Orc-Pass-0815@orc:99999/api' }],
    ] as Array<[string[], NodeJS.ProcessEnv]>) {
      const problems = problemsOf(argv, env);
      assert.equal(problems.length, 1);
      assert.match(
        problems[0]!,
        /^--orchestrator-uri \(or ORCHESTRATOR_URL\): '(ftp|http):\/\/\*\*\*@orc:\d+\/api' is not an http\(s\) URL$/,
      );
      assert.doesNotMatch(problems.join(' '), /orc-user|Orc-Pass-0815/);
    }
  });

  it('refuses an Orchestrator URL with user info, which would be copied into every MySQL pod spec, without echoing it', () => {
    for (const [argv, env] of [
      [['--orchestrator-uri', 'http://orc-user:Orc-Pass-0815@orc:3000/api'], {}],
      [[], { ORCHESTRATOR_URL: 'https://Orc-Token-0815@orc/api' }],
      [['--orchestrator-uri=http://:Orc-Pass-0815@orc/api'], {}],
    ] as Array<[string[], NodeJS.ProcessEnv]>) {
      const problems = problemsOf(argv, env);
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(
        problems[0]!,
        /^--orchestrator-uri \(or ORCHESTRATOR_URL\): 'https?:\/\/\*\*\*@orc(:3000)?\/api' carries user info \(user:password@\)/,
      );
      assert.doesNotMatch(problems[0]!, /orc-user|Orc-(Pass|Token)-0815/);
    }
    assert.equal(clusterOpts(['--orchestrator-uri', 'http://orc.ns:3000/api']).orchestratorUri, 'http://orc.ns:3000/api');
  });

  it("never echoes a value that may be a password: a stray argument, a secret flag's dash-leading value", () => {
    const problems = [
      ...problemsOf(['--orchestrator-topology-user', 'orc', ORC_PASSWORD]),
      ...problemsOf(['--orchestrator-topology-password', `-${ORC_PASSWORD}`]),
    ];
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0]!, /^unexpected argument 3, not shown/);
    assert.match(problems[1]!, /^--orchestrator-topology-password needs a value/);
    assert.doesNotMatch(problems.join(' '), new RegExp(ORC_PASSWORD));
  });

  it('sees --help or -h among the flags, even beside invalid ones, but not as the value of a flag', () => {
    assert.equal(helpRequested(['--help']), true);
    assert.equal(helpRequested(['-h']), true);
    assert.equal(helpRequested(['--wokers', '2', '--workers=many', '-h']), true);
    assert.equal(helpRequested(['--namespace', '-h']), false);
    assert.equal(helpRequested(['--sidecar-image', '-h'], controllers), false);
    assert.equal(helpRequested(['--workers', '2']), false);
    assert.equal(helpRequested([]), false);
  });

  it('the help names every flag of the runtime and every controller with its variable, and --help itself', () => {
    const text = helpText(controllers);
    for (const section of settingSections(controllers)) {
      if (Object.keys(section.settings).length === 0) continue; // a controller without settings has no heading
      assert.match(text, new RegExp(`^${section.title}:$`, 'm'));
      for (const s of Object.values(section.settings) as Setting[]) assert.match(text, new RegExp(`--${s.flag} +${s.env} `), s.flag);
    }
    assert.match(text, /--help, -h/);
  });

  it('parses durations', () => {
    assert.equal(parseDuration('1500ms'), 1500);
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('soon'), undefined);
  });
});
