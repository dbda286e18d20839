// The Helm chart as the real helm renders it: lint and template pass for the default values and
// for a values file turning every option on; every manifest validates against the Kubernetes
// OpenAPI schema (kubernetes-models, Kubernetes 1.36); bad values are refused naming the value;
// the CRDs are the generated ones; Orchestrator's config holds docs/compatibility.md's keys and the failover
// hooks of hook-request.ts wired to the operator; the operator's args and env are flags it takes;
// the RBAC rules are the generated ones. docs/chart.md.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { V1ConfigMap, V1Container, V1Deployment, V1EnvVar, V1Role, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { namespaceSelectorLabels } from '../../../src/api/names.ts';
import { controllers } from '../../../src/controllers/index.ts';
import { DEFAULT_CLUSTER_OPTIONS } from '../../../src/controllers/cluster/options.ts';
import { hookProcessesConfig } from '../../../src/controllers/orchestrator-controller/hook-request.ts';
import { REPLICATION_CREDENTIALS_QUERY } from '../../../src/mysql/operator-schema.ts';
import { DETECT_SEMI_SYNC_ENFORCED_QUERY } from '../../../src/mysql/semi-sync.ts';
import { loadConfig, permissionSections } from '../../../src/runtime/config.ts';
import { policyRules } from '../../../src/runtime/permissions.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { parseConfig } from '../../../sandbox/orchestrator/config.ts';
import { ALL_ON, CHART, HELM, only, render, renderError, REPO, run, type RenderOptions } from './helm.ts';
import type { JsonObject } from '../../support/json.ts';

type Obj = KubeObject & JsonObject;

const VARIANTS: Record<string, RenderOptions> = { 'default values': {}, 'every option on': { values: [ALL_ON] } };
const GENERATED_RULES = policyRules(permissionSections(controllers)).map(({ neededBy: _n, ...rule }) => rule);

/** The kubernetes-models class of a manifest (the OpenAPI schema of its kind), or undefined. */
async function modelOf(o: KubeObject): Promise<(new (data: unknown) => { validate(): void }) | undefined> {
  const [group, version] = o.apiVersion!.includes('/') ? o.apiVersion!.split('/') : ['', o.apiVersion!];
  try {
    const mod = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${o.kind}`)) as Record<string, never>;
    return mod[o.kind!];
  } catch {
    return undefined;
  }
}

const operatorDeployment = (docs: KubeObject[]) => only<V1Deployment>(docs, 'Deployment');
const operatorContainer = (docs: KubeObject[]) => operatorDeployment(docs).spec!.template.spec!.containers[0]!;
const orchestratorSet = (docs: KubeObject[]) => only<V1StatefulSet>(docs, 'StatefulSet');
const orchestratorConfig = (docs: KubeObject[]) =>
  JSON.parse(only<V1ConfigMap>(docs, 'ConfigMap').data!['orchestrator.conf.json']!) as Record<string, unknown>;

/** The value of `--name=value` among `args`. */
function flag(args: readonly string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** The Service whose selector picks the pods of `template`. */
function serviceFor(docs: KubeObject[], podLabels: Record<string, string>): V1Service & KubeObject {
  return only<V1Service & KubeObject>(docs, 'Service', (s) => {
    const sel = (s as V1Service).spec?.selector ?? {};
    return (s as V1Service).spec?.clusterIP !== 'None' && Object.entries(sel).every(([k, v]) => podLabels[k] === v);
  });
}

function mountPath(c: V1Container, volume: string): string {
  const m = c.volumeMounts?.find((v) => v.name === volume);
  assert.ok(m, `${c.name} mounts ${volume}`);
  return m.mountPath;
}

for (const [name, opts] of Object.entries(VARIANTS)) {
  describe(`the chart with ${name}`, () => {
    it('passes helm lint --strict', () => {
      const r = run(HELM, ['lint', '--strict', CHART, ...(opts.values ?? []).flatMap((f) => ['-f', f])]);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });

    it('renders manifests that each validate against the Kubernetes OpenAPI schema', async (t) => {
      const docs = render({ ...opts, includeCrds: true });
      assert.ok(docs.length > 10);
      const notInOpenApi = new Set<string>();
      for (const doc of docs) {
        const Model = await modelOf(doc);
        if (!Model) {
          notInOpenApi.add(`${doc.apiVersion} ${doc.kind}`);
          continue;
        }
        assert.doesNotThrow(() => new Model(doc).validate(), `${doc.kind} ${doc.metadata?.name}`);
      }
      // prometheus-operator's kind is no part of Kubernetes' OpenAPI; its CRD is not installed here.
      assert.deepEqual(
        [...notInOpenApi].filter((k) => !k.startsWith('monitoring.coreos.com/')),
        [],
      );
      if (notInOpenApi.size > 0) t.diagnostic(`not in Kubernetes' OpenAPI, not validated: ${[...notInOpenApi].join(', ')}`);
    });

    it('runs the operator as a non-root Deployment with probes on its HTTP port, and every arg and variable is one it takes', () => {
      const docs = render(opts);
      const deploy = operatorDeployment(docs);
      const pod = deploy.spec!.template.spec!;
      const c = operatorContainer(docs);
      assert.equal(pod.securityContext?.runAsNonRoot, true);
      assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
      assert.equal(c.command, undefined, "the image's entrypoint starts the operator (the sandbox plays it the same way)");
      const port = c.ports!.find((p) => p.name === 'http')!;
      assert.equal(flag(c.args!, 'metrics-addr'), `:${port.containerPort}`);
      assert.deepEqual([c.livenessProbe?.httpGet?.path, c.livenessProbe?.httpGet?.port], ['/healthz', 'http']);
      assert.deepEqual([c.readinessProbe?.httpGet?.path, c.readinessProbe?.httpGet?.port], ['/readyz', 'http']);
      assert.equal(pod.serviceAccountName, only<Obj>(docs, 'ServiceAccount').metadata!.name);
      // What the kubelet would give: downward API values and the Secrets' keys.
      const env: Record<string, string> = {};
      for (const e of c.env as V1EnvVar[]) env[e.name] = e.value ?? (e.valueFrom?.fieldRef ? 'from-the-pod' : 'from-a-secret');
      const loaded = loadConfig(c.args!, env, controllers);
      assert.equal(loaded.runtime.leaderElect, true);
      assert.equal(loaded.runtime.leaderElectionNamespace, 'mysql-operator');
      assert.equal(loaded.runtime.identity, 'from-the-pod');
      const svc = serviceFor(docs, deploy.spec!.template.metadata!.labels!);
      assert.equal(svc.spec!.ports![0]!.targetPort, 'http');
    });

    it("gives Orchestrator docs/compatibility.md's keys, raft across its replicas, and hooks that call the operator's Service with the shared secret", () => {
      const ns = 'mysql-operator';
      const docs = render(opts);
      const conf = orchestratorConfig(docs);
      assert.equal(conf.MySQLHostnameResolveMethod, '@@report_host');
      assert.equal(conf.HostnameResolveMethod, 'none');
      assert.match(String(conf.DetectClusterAliasQuery), /@@hostname.*@@report_host/);
      assert.match(String(conf.SlaveLagQuery), /FROM sys_operator\.heartbeat/);
      assert.deepEqual(conf.RecoverMasterClusterFilters, ['.*']);
      for (const key of ['ApplyMySQLPromotionAfterMasterFailover', 'DetachLostReplicasAfterMasterFailover', 'DiscoverByShowSlaveHosts']) {
        assert.equal(conf[key], true, key);
      }
      // Issue 21: a promotion waits for the SQL thread rather than aborting the recovery, and
      // Orchestrator's read_only carries super_read_only (the fence on MySQL).
      assert.equal(conf.DelayMasterPromotionIfSQLThreadNotUpToDate, true);
      assert.equal(conf.FailMasterPromotionIfSQLThreadNotUpToDate, undefined, 'Orchestrator refuses both at once');
      assert.equal(conf.UseSuperReadOnly, true);
      assert.equal(
        conf.ReplicationCredentialsQuery,
        REPLICATION_CREDENTIALS_QUERY,
        'MariaDB needs it (docs/field-notes.md); it reads the rows the init-file writes',
      );
      assert.equal(conf.ProcessesShellCommand, 'sh');
      assert.equal(
        conf.DetectSemiSyncEnforcedQuery,
        DETECT_SEMI_SYNC_ENFORCED_QUERY,
        'docs/semi-sync.md: Orchestrator keeps semi-sync on through a failover',
      );
      assert.equal(conf.RecoverLockedSemiSyncMaster, true);
      assert.equal(conf.EnforceExactSemiSyncReplicas, false, 'the operator turns the replica side on every replica');

      const sts = orchestratorSet(docs);
      const headless = only<V1Service & KubeObject>(docs, 'Service', (s) => s.metadata!.name === sts.spec!.serviceName);
      assert.equal(headless.spec!.clusterIP, 'None');
      assert.equal(headless.spec!.publishNotReadyAddresses, true);
      const members = Array.from({ length: sts.spec!.replicas! }, (_, i) => `${sts.metadata!.name}-${i}.${headless.metadata!.name}.${ns}`);
      assert.deepEqual(conf.RaftNodes, members);
      assert.equal(conf.RaftEnabled, true);
      assert.equal(conf.RaftAdvertise, `@POD_NAME@.${headless.metadata!.name}.${ns}`);

      // The hooks: hook-request.ts's lines for the operator's Service and the file the Secret is mounted at.
      const deploy = operatorDeployment(docs);
      const operatorSvc = serviceFor(docs, deploy.spec!.template.metadata!.labels!);
      const orc = sts.spec!.template.spec!.containers[0]!;
      const orcVolume = sts.spec!.template.spec!.volumes!.find((v) => v.name === 'failover-hook')!;
      const opVolume = deploy.spec!.template.spec!.volumes!.find((v) => v.name === 'failover-hook')!;
      assert.equal(orcVolume.secret!.secretName, opVolume.secret!.secretName, 'both pods mount the one shared secret');
      const expected = hookProcessesConfig({
        operatorUrl: `http://${operatorSvc.metadata!.name}.${ns}:${operatorSvc.spec!.ports![0]!.port}`,
        secretFile: `${mountPath(orc, 'failover-hook')}/secret`,
      });
      for (const [key, lines] of Object.entries(expected)) {
        assert.deepEqual((conf[key] as string[]).slice(-lines.length), lines, key);
      }
      assert.equal(
        flag(operatorContainer(docs).args!, 'failover-hook-secret-file'),
        `${mountPath(operatorContainer(docs), 'failover-hook')}/secret`,
      );
      // The pods' checksum annotation makes Orchestrator restart when its config changes.
      assert.match(sts.spec!.template.metadata!.annotations!['checksum/config']!, /^[0-9a-f]{64}$/);
    });

    it('gives the operator exactly the generated RBAC rules', () => {
      const docs = render(opts);
      const roles = docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role') as (V1Role & KubeObject)[];
      const main = roles.find((r) => !r.metadata!.name!.endsWith('-leader-election'))!;
      assert.deepEqual(main.rules, GENERATED_RULES);
      assert.deepEqual(main.rules, parse(readFileSync(`${CHART}/rbac/rules.yaml`, 'utf8')));
      const binding = only<Obj>(
        docs,
        main.kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding',
        (b) => (b as Obj).roleRef.name === main.metadata!.name,
      );
      assert.deepEqual(binding.subjects, [
        { kind: 'ServiceAccount', name: operatorDeployment(docs).spec!.template.spec!.serviceAccountName, namespace: 'mysql-operator' },
      ]);
    });
  });
}

describe('the chart, further', () => {
  it('installs the generated CRDs: chart/crds is a link to crds/, and helm renders exactly those files', () => {
    assert.equal(readlinkSync(`${CHART}/crds`), '../crds');
    const files = readdirSync(`${REPO}crds`)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    const fromFiles = files.flatMap((f) => parseAllDocuments(readFileSync(`${REPO}crds/${f}`, 'utf8')).map((d) => d.toJS()));
    const rendered = render({ includeCrds: true }).filter((d) => d.kind === 'CustomResourceDefinition');
    assert.deepEqual(rendered, fromFiles);
    assert.equal(rendered.length, 4);
  });

  it('refuses bad values with a message naming the value', () => {
    const cases: [string, string][] = [
      ['replicaCount=three', "at '/replicaCount': got string, want integer"],
      ['image.repository=', "at '/image/repository'"],
      ['orchestrator.replicas=0', "at '/orchestrator/replicas'"],
      ['orchestrator.service.port=http', "at '/orchestrator/service/port': got string, want integer"],
      ['orchestrator.config.InstancePollSeconds=fast', "at '/orchestrator/config/InstancePollSeconds': got string, want integer"],
      ['orchestrator.persistence.size=big', "at '/orchestrator/persistence/size'"],
      ['podDisruptionBudget.maxUnavailable=most', "at '/podDisruptionBudget/maxUnavailable'"],
      ['extraArgs={workers=8}', "at '/extraArgs/0'"],
      ['gracefulShutdown.enabled=sometimes', "at '/gracefulShutdown/enabled': got string, want boolean"],
      ['orchestrator.api.authenticationMethod=token', "at '/orchestrator/api/authenticationMethod'"],
      ['orchestrator.api.user=readonly', "at '/orchestrator/api/user'"],
      ['orchestrator.api.password=a"b', "at '/orchestrator/api/password'"],
    ];
    const both = renderError({ set: ['orchestrator.config.FailMasterPromotionIfSQLThreadNotUpToDate=true'] });
    assert.ok(both?.includes('cannot both be true'), `Fail and Delay together: ${both}`);
    assert.equal(
      orchestratorConfig(
        render({
          set: [
            'orchestrator.config.FailMasterPromotionIfSQLThreadNotUpToDate=true',
            'orchestrator.config.DelayMasterPromotionIfSQLThreadNotUpToDate=false',
          ],
        }),
      ).FailMasterPromotionIfSQLThreadNotUpToDate,
      true,
      'the Fail variant, asked for',
    );
    for (const [set, message] of cases) {
      const err = renderError({ set: [set] });
      assert.ok(err, `${set} is refused`);
      assert.ok(err.includes(message), `${set}: ${err}`);
    }
  });

  it("keeps the hooks and raft keys the chart manages, and the user's own hook lines before the chart's", () => {
    const conf = orchestratorConfig(
      render({ values: [ALL_ON], set: ['orchestrator.config.ListenAddress=:9999', 'orchestrator.config.RaftEnabled=false'] }),
    );
    assert.equal(conf.ListenAddress, ':3000');
    assert.equal(conf.RaftEnabled, true);
    assert.equal(conf.InstancePollSeconds, 2);
    const lines = conf.PostMasterFailoverProcesses as string[];
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^echo 'promoted/);
    assert.match(lines[1]!, /\/hooks\/orchestrator\/failover' \|\| true$/);
  });

  it('uses InstancePollSeconds 1 by default (docs/field-notes.md: a dead master is seen about a second sooner than with 5)', () => {
    assert.equal(orchestratorConfig(render()).InstancePollSeconds, 1);
  });

  it("Orchestrator's init script writes the member's own config and a credentials file only its user reads; the stand-in loads them", () => {
    const docs = render({ namespace: 'ops' });
    const cm = only<V1ConfigMap>(docs, 'ConfigMap');
    const init = orchestratorSet(docs).spec!.template.spec!.initContainers![0]!;
    const templates = mountPath(init, 'templates');
    const conf = mountPath(init, 'conf');
    const dir = mkdtempSync(join(tmpdir(), 'chart-orc-'));
    try {
      // The container paths, moved under a temporary directory.
      const script = cm.data!['render-config.sh']!.replaceAll(templates, `${dir}/templates`).replaceAll(conf, `${dir}/conf`);
      for (const sub of ['templates', 'conf']) execFileSync('mkdir', ['-p', `${dir}/${sub}`]);
      writeFileSync(`${dir}/templates/orchestrator.conf.json`, cm.data!['orchestrator.conf.json']!);
      writeFileSync(`${dir}/render-config.sh`, script);
      const env = {
        PATH: process.env.PATH,
        POD_NAME: 'mysql-operator-orc-1',
        POD_IP: '10.1.2.3',
        ORC_TOPOLOGY_USER: 'orchestrator',
        ORC_TOPOLOGY_PASSWORD: 'p%s"w',
        // sed and awk replacement characters and a placeholder: spliced in literally.
        ORC_HTTP_AUTH_USER: 'orc-operator',
        ORC_HTTP_AUTH_PASSWORD: 'a&b/c$1\\1@HTTP_AUTH_USER@',
      };
      execFileSync('sh', [`${dir}/render-config.sh`], { env: { ...env, ORC_HTTP_AUTH_PASSWORD: 'a&b/c$1|@HTTP_AUTH_USER@' } });
      const rendered = JSON.parse(readFileSync(`${dir}/conf/orchestrator.conf.json`, 'utf8')) as Record<string, unknown>;
      assert.equal(rendered.RaftBind, '10.1.2.3');
      assert.equal(rendered.RaftAdvertise, 'mysql-operator-orc-1.mysql-operator-orc.ops');
      assert.ok((rendered.RaftNodes as string[]).includes(rendered.RaftAdvertise as string));
      assert.equal(rendered.HTTPAdvertise, 'http://mysql-operator-orc-1.mysql-operator-orc.ops:3000');
      assert.equal(readFileSync(`${dir}/conf/orc-topology.cnf`, 'utf8'), '[client]\nuser=orchestrator\npassword=p%s"w\n');
      assert.equal(statSync(`${dir}/conf/orc-topology.cnf`).mode & 0o777, 0o600);
      // The sandbox plays the Orchestrator image with the stand-in when no orchestrator binary is on PATH.
      const standIn = parseConfig(
        JSON.stringify({ ...rendered, MySQLTopologyCredentialsConfigFile: `${dir}/conf/orc-topology.cnf` }),
        (f) => readFileSync(f, 'utf8'),
      );
      assert.deepEqual([standIn.topologyUser, standIn.topologyPassword, standIn.instancePollSeconds], ['orchestrator', 'p%s"w', 1]);
      assert.equal(standIn.hooks.PostMasterFailoverProcesses.length, 1);
      // The API's credentials, from the Secret's env, in the config as given, and for basic's probes.
      assert.deepEqual(standIn.authentication, { method: 'multi', user: 'orc-operator', password: 'a&b/c$1|@HTTP_AUTH_USER@' });
      assert.equal(readFileSync(`${dir}/conf/probe.curlrc`, 'utf8'), 'user = "orc-operator:a&b/c$1|@HTTP_AUTH_USER@"\n');
      assert.equal(statSync(`${dir}/conf/probe.curlrc`).mode & 0o777, 0o600);
      // A quote or backslash would need escapes in JSON and curl's file: refused, naming the problem, not the value.
      for (const bad of ['a"b', 'a\\b']) {
        const r = spawnSync('sh', [`${dir}/render-config.sh`], { env: { ...env, ORC_HTTP_AUTH_PASSWORD: bad }, encoding: 'utf8' });
        assert.equal(r.status, 1);
        assert.match(r.stderr, /holds " or \\/);
        assert.ok(!r.stderr.includes(bad));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Orchestrator's API wants credentials: a kept Secret, the operator mounts it, the probes authenticate", () => {
    const docs = render({ namespace: 'ops' });
    const secret = only<Obj>(docs, 'Secret', (o) => o.metadata!.name === 'mysql-operator-orc-api');
    assert.equal(Buffer.from(secret.data.user, 'base64').toString(), 'orc-operator');
    assert.match(Buffer.from(secret.data.password, 'base64').toString(), /^[A-Za-z0-9]{32}$/);
    const conf = orchestratorConfig(docs);
    assert.deepEqual(
      [conf.AuthenticationMethod, conf.HTTPAuthUser, conf.HTTPAuthPassword],
      ['multi', '@HTTP_AUTH_USER@', '@HTTP_AUTH_PASSWORD@'],
    );
    // The operator: the flag names the directory the Secret is mounted at, with the files the client reads.
    const op = operatorContainer(docs);
    const dir = flag(op.args!, 'orchestrator-credentials-dir');
    assert.equal(dir, mountPath(op, 'orchestrator-api'));
    const volume = operatorDeployment(docs).spec!.template.spec!.volumes!.find((v) => v.name === 'orchestrator-api')!;
    assert.deepEqual(
      [volume.secret!.secretName, volume.secret!.items!.map((i) => i.path)],
      ['mysql-operator-orc-api', ['user', 'password']],
    );
    assert.ok(!JSON.stringify(op.env).includes('orc-api'), 'the credentials are not in the env');
    // Orchestrator's init container reads them from the Secret.
    const init = orchestratorSet(docs).spec!.template.spec!.initContainers![0]!;
    const fromSecret = (name: string) => init.env!.find((e) => e.name === name)!.valueFrom!.secretKeyRef;
    assert.deepEqual(
      [fromSecret('ORC_HTTP_AUTH_USER'), fromSecret('ORC_HTTP_AUTH_PASSWORD')],
      [
        { name: 'mysql-operator-orc-api', key: 'user' },
        { name: 'mysql-operator-orc-api', key: 'password' },
      ],
    );
    // multi: the probes as `readonly`, whose password Orchestrator ignores (no secret in the pod spec).
    const orc = orchestratorSet(docs).spec!.template.spec!.containers[0]!;
    for (const p of [orc.livenessProbe!, orc.readinessProbe!]) {
      assert.deepEqual(p.httpGet!.httpHeaders, [
        { name: 'Authorization', value: `Basic ${Buffer.from('readonly:probe').toString('base64')}` },
      ]);
    }
    // basic: curl with the file the init container wrote.
    const basic = orchestratorSet(render({ set: ['orchestrator.api.authenticationMethod=basic'] })).spec!.template.spec!.containers[0]!;
    assert.deepEqual(basic.readinessProbe!.exec!.command, [
      'curl',
      '-fsS',
      '-o',
      '/dev/null',
      '-K',
      '/etc/orchestrator/probe.curlrc',
      'http://127.0.0.1:3000/api/raft-health',
    ]);
    assert.equal(orchestratorConfig(render({ set: ['orchestrator.api.authenticationMethod=basic'] })).AuthenticationMethod, 'basic');
    // Given values, or an existing Secret.
    const given = only<Obj>(
      render({ set: ['orchestrator.api.password=chosen-pw', 'orchestrator.api.user=people'] }),
      'Secret',
      (o) => o.metadata!.name === 'mysql-operator-orc-api',
    );
    assert.deepEqual(
      [given.data.user, given.data.password].map((v: string) => Buffer.from(v, 'base64').toString()),
      ['people', 'chosen-pw'],
    );
    const own = render({ set: ['orchestrator.api.secretName=mine'] });
    assert.equal(own.filter((o) => o.kind === 'Secret' && o.metadata!.name === 'mysql-operator-orc-api').length, 0);
    assert.equal(
      operatorDeployment(own).spec!.template.spec!.volumes!.find((v) => v.name === 'orchestrator-api')!.secret!.secretName,
      'mine',
    );
  });

  it("defaults to the operator's own defaults where the anchor had them (adopted clusters keep their pods) and to npm start's node flags", () => {
    const args = operatorContainer(render()).args!;
    assert.equal(flag(args, 'sidecar-image'), DEFAULT_CLUSTER_OPTIONS.sidecarImage57);
    assert.equal(flag(args, 'sidecar-mysql8-image'), DEFAULT_CLUSTER_OPTIONS.sidecarImage80);
    assert.equal(flag(args, 'metrics-exporter-image'), DEFAULT_CLUSTER_OPTIONS.metricsExporterImage);
    assert.equal(flag(args, 'orchestrator-uri'), 'http://mysql-operator.mysql-operator/api');
    const start = (JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    const nodeFlags = start
      .split(' ')
      .filter((w) => w.startsWith('--'))
      .join(' ');
    const nodeOptions = (operatorContainer(render()).env as V1EnvVar[]).find((e) => e.name === 'NODE_OPTIONS')!.value;
    assert.equal(nodeOptions, nodeFlags);
  });

  it("NetworkPolicies: Orchestrator's API from the operator, every MySQL pod, its members and orchestratorFrom, raft from its members; the operator's port from Orchestrator and metricsFrom; the operator renders the clusters' with its pods' labels", () => {
    const docs = render({ values: [ALL_ON] });
    const operatorPods = operatorDeployment(docs).spec!.template.metadata!.labels!;
    const orchestratorPods = orchestratorSet(docs).spec!.template.metadata!.labels!;
    const policies = docs.filter((d) => d.kind === 'NetworkPolicy') as Obj[];
    assert.equal(policies.length, 2);
    const selecting = (pods: Record<string, string>) =>
      only<Obj>(policies, 'NetworkPolicy', (p) =>
        Object.entries((p as Obj).spec.podSelector.matchLabels as Record<string, string>).every(([k, v]) => pods[k] === v),
      );
    type Peer = { podSelector?: { matchLabels?: Record<string, string> } };
    const labelsOf = (peer: Peer): Record<string, string> => peer.podSelector?.matchLabels ?? {};
    const matches = (peer: Peer, pods: Record<string, string>) => Object.entries(labelsOf(peer)).every(([k, v]) => pods[k] === v);
    const orc = selecting(orchestratorPods);
    const [api, raft] = orc.spec.ingress;
    assert.deepEqual(api.ports, [{ protocol: 'TCP', port: 'http' }]);
    assert.ok(
      api.from.some((p: Peer & { namespaceSelector?: object }) => !p.namespaceSelector && matches(p, operatorPods)),
      'the operator',
    );
    assert.ok(
      api.from.some((p: Peer & { namespaceSelector?: object }) => !p.namespaceSelector && matches(p, orchestratorPods)),
      'the raft members',
    );
    // Every cluster's MySQL pods, in any namespace, carry the headless Service's selector labels.
    const mysql = api.from.find((p: Obj) => p.namespaceSelector && Object.keys(p.namespaceSelector).length === 0);
    assert.deepEqual(labelsOf(mysql), namespaceSelectorLabels());
    assert.deepEqual(api.from.at(-1), { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } });
    assert.deepEqual(raft.ports, [{ protocol: 'TCP', port: 'raft' }]);
    assert.equal(raft.from.length, 1);
    assert.ok(matches(raft.from[0], orchestratorPods) && !matches(raft.from[0], operatorPods));
    const [http] = selecting(operatorPods).spec.ingress;
    assert.equal(http.from.length, 2);
    assert.ok(matches(http.from[0], orchestratorPods) && !matches(http.from[0], operatorPods), 'Orchestrator (its hooks)');
    assert.deepEqual(labelsOf(http.from[1]), { 'app.kubernetes.io/name': 'prometheus' });
    // Container ports the policies name.
    assert.ok(operatorContainer(docs).ports!.some((p) => p.name === 'http'));
    for (const name of ['http', 'raft'])
      assert.ok(orchestratorSet(docs).spec!.template.spec!.containers[0]!.ports!.some((p) => p.name === name));
    const args = operatorContainer(docs).args!;
    assert.equal(flag(args, 'network-policies'), 'true');
    const pairs = (text: string | undefined) => Object.fromEntries((text ?? '').split(',').map((p) => p.split('=') as [string, string]));
    assert.deepEqual(pairs(flag(args, 'operator-pod-labels')), operatorPods);
    assert.deepEqual(pairs(flag(args, 'orchestrator-pod-labels')), orchestratorPods);
    assert.ok(
      (operatorContainer(docs).env as V1EnvVar[]).some((e) => e.name === 'POD_NAMESPACE'),
      'the operator knows its namespace',
    );

    const off = render({ set: ['networkPolicy.enabled=false'] });
    assert.equal(off.filter((d) => d.kind === 'NetworkPolicy').length, 0);
    assert.equal(flag(operatorContainer(off).args!, 'network-policies'), 'false');
  });

  it("the operator's ServiceMonitor selects the operator's Service and scrapes its port", () => {
    const docs = render({ values: [ALL_ON] });
    const monitor = only<Obj>(docs, 'ServiceMonitor', (m) => !m.metadata!.name!.endsWith('-clusters'));
    const svc = serviceFor(docs, operatorDeployment(docs).spec!.template.metadata!.labels!);
    for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels as Record<string, string>))
      assert.equal(svc.metadata!.labels![k], v, k);
    assert.equal(monitor.spec.endpoints[0].port, svc.spec!.ports![0]!.name);
    assert.deepEqual(monitor.spec.namespaceSelector, { matchNames: ['mysql-operator'] });
  });

  it('with watchNamespace: a Role there with the generated rules, and the Lease rules in the release namespace', () => {
    const docs = render({ set: ['watchNamespace=databases'] });
    const roles = docs.filter((d) => d.kind === 'Role') as (V1Role & KubeObject)[];
    assert.deepEqual(
      docs.filter((d) => d.kind === 'ClusterRole'),
      [],
    );
    const watched = roles.find((r) => r.metadata!.namespace === 'databases')!;
    assert.deepEqual(watched.rules, GENERATED_RULES);
    const lease = roles.find((r) => r.metadata!.namespace === undefined)!;
    assert.deepEqual(
      lease.rules,
      GENERATED_RULES.filter((r) => r.apiGroups.includes('coordination.k8s.io')),
    );
    assert.equal(flag(operatorContainer(docs).args!, 'namespace'), 'databases');
  });
});
