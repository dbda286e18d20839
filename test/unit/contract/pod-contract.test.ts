// The pod contract (src/api/pod-contract.ts) from both ends: the cluster controller renders a pod,
// each container's environment is resolved as the kubelet would and its mounts are read, and the
// sidecar loads it with its own loadConfig. What the renderer wrote must be what the sidecar reads:
// renaming a variable or a path on one side only fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, basename } from 'node:path';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { MysqlClusterSpec } from '../../../src/api/index.ts';
import { CONTAINER, HEADLESS_SERVICE_NAME, OPERATED_SECRET_KEY as KEY, PORT, PORT_NAME, VOLUME } from '../../../src/api/constants.ts';
import { names, podFqdn } from '../../../src/api/names.ts';
import { ENV, PT_KILL_PROGRAM } from '../../../src/api/pod-contract.ts';
import { COMMAND_NEEDS, parseCommandLine, type ParsedCommandLine } from '../../../src/sidecar/command-line.ts';
import { loadConfig, podFilePaths, type SidecarConfig } from '../../../src/sidecar/config.ts';
import { storedHashMatches, storedPasswordHash } from '../../../src/mysql/accounts.ts';
import { containerEnv, mountsOf, type SecretsByName } from '../../../sandbox/kubelet/env.ts';
import { cluster, render } from '../cluster/builders.ts';

const NAMESPACE = 'prod';
const ORDINAL = 2;
const POD_NAME = names.pod('my-db', ORDINAL);
const BUCKET_SECRET = 'bucket-creds';

/** Every spec field that reaches the sidecar's environment, none at its default. */
const SPEC: Partial<MysqlClusterSpec> = {
  replicas: 3,
  serverIDOffset: 700,
  initBucketURL: 's3://backups/my-db/my-db-auto-2026-01-01t00-00-00.xbackup.gz',
  initBucketSecretName: BUCKET_SECRET,
  xtrabackupTargetDir: '/scratch/xtrabackup/',
  backupCompressCommand: ['zstd', '-3', '-T2'],
  backupDecompressCommand: ['zstd', '-d'],
  rcloneExtraArgs: ['--s3-upload-concurrency=8'],
  xbstreamExtraArgs: ['--parallel=4'],
  xtrabackupExtraArgs: ['--throttle=10', '--parallel=2'],
  xtrabackupPrepareExtraArgs: ['--use-memory=1G'],
  initFileExtraSQL: ['SET GLOBAL max_connections = 1000', 'CREATE DATABASE IF NOT EXISTS app'],
  queryLimits: { maxQueryTime: 30 },
  backupURL: 's3://backups/my-db/',
  backupSecretName: BUCKET_SECRET,
  binlogArchive: { enabled: true, intervalSeconds: 17 },
};

// Rendered for another reader than the sidecar: the pod IP (the anchor's, unused so far) and
// rclone's arguments (the storage layer speaks to the object store itself).
const RENDERED_FOR_OTHERS: readonly string[] = [ENV.podIp, ENV.rcloneExtraArgs];
// Read by the sidecar but not rendered into the pod: the container runtime sets HOSTNAME, the
// backup Job will set the compressor, SIDECAR_* are the overrides of tests and the sandbox, and
// the topology password's hash is looked for first when the Secret holds the plain password (the
// anchor's sidecar images read that, docs/credentials.md).
const READ_NOT_RENDERED = (name: string): boolean =>
  name === ENV.hostname || name === ENV.backupCompressCommand || name.startsWith('SIDECAR_') || name === KEY.orcTopologyPasswordHash;

function podOf(template: NonNullable<ReturnType<typeof render>['statefulSet']['spec']>['template']): V1Pod {
  return {
    metadata: { ...template.metadata, name: POD_NAME, namespace: NAMESPACE, uid: 'pod-uid' },
    spec: template.spec!,
    status: { podIP: '10.1.2.3', hostIP: '192.168.0.9' },
  };
}

interface Loaded {
  container: V1Container;
  line: ParsedCommandLine;
  env: Record<string, string>;
  cfg: SidecarConfig;
  mounts: Map<string, string>;
}

for (const version of ['5.7', '8.0', 'mariadb-10.11']) {
  const desired = render(cluster({ ...SPEC, mysqlVersion: version }, { namespace: NAMESPACE }));
  const template = desired.statefulSet.spec!.template;
  const pod = podOf(template);
  const all = [...(template.spec!.initContainers ?? []), ...template.spec!.containers];
  const byName = (n: string): V1Container => all.find((c) => c.name === n)!;
  const secrets: SecretsByName = {
    [names.operatedSecret('my-db')]: desired.secretData,
    'my-db-secret': { ROOT_PASSWORD: 'r00t' },
    [BUCKET_SECRET]: { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' },
  };
  const sidecarImage = byName(CONTAINER.init).image;
  const reads = new Set<string>();

  /** The containers the sidecar binary runs, loaded the way its main.ts loads them. */
  const loaded: Loaded[] = all.flatMap((container) => {
    const parsed = parseCommandLine(container.args ?? []);
    if (container.image !== sidecarImage || !parsed.ok) return [];
    const env = containerEnv(container, pod, { secrets });
    // Records every variable the sidecar looks at.
    const recording = new Proxy(env, {
      get: (target, name) => {
        if (typeof name === 'string') reads.add(name);
        return Reflect.get(target, name) as unknown;
      },
    });
    const cfg = loadConfig(recording, parsed.value.overrides, COMMAND_NEEDS[parsed.value.command]);
    return [{ container, line: parsed.value, env, cfg, mounts: mountsOf(container) }];
  });
  const command = (c: ParsedCommandLine['command']): Loaded => loaded.find((l) => l.line.command === c)!;
  const secret = desired.secretData;
  const cred = (user: string, password: string) => ({ user: secret[user], password: secret[password] });

  test(`${version}: the sidecar runs in init, sidecar and pt-heartbeat; pt-kill is the image's own program`, () => {
    assert.deepEqual(
      loaded.map((l) => [l.container.name, l.line.command]),
      [
        [CONTAINER.init, 'clone-and-init'],
        [CONTAINER.sidecar, 'config-and-serve'],
        [CONTAINER.heartbeat, 'heartbeat'],
      ],
    );
    const ptKill = byName(CONTAINER.ptKill);
    assert.equal(ptKill.image, sidecarImage);
    assert.equal(ptKill.args?.[0], PT_KILL_PROGRAM);
  });

  test(`${version}: clone-and-init reads the identity, the clone sources and settings the renderer wrote`, () => {
    const { cfg, mounts } = command('clone-and-init');
    assert.equal(cfg.namespace, NAMESPACE);
    assert.equal(cfg.podName, POD_NAME);
    assert.equal(cfg.ordinal, ORDINAL);
    assert.equal(cfg.clusterName, 'my-db');
    assert.equal(cfg.serviceName, HEADLESS_SERVICE_NAME);
    // The name Orchestrator and status.nodes know the server by.
    assert.equal(cfg.fqdn, podFqdn(POD_NAME, NAMESPACE));
    assert.equal(cfg.flavour.family, version.startsWith('mariadb') ? 'mariadb' : 'mysql');
    assert.equal(cfg.serverIdOffset, SPEC.serverIDOffset);
    assert.equal(cfg.serverId, ORDINAL + SPEC.serverIDOffset!);
    assert.equal(cfg.initBucketUri, SPEC.initBucketURL);
    assert.deepEqual(cfg.decompressCommand, SPEC.backupDecompressCommand);
    assert.deepEqual(cfg.xbstreamExtraArgs, SPEC.xbstreamExtraArgs);
    assert.deepEqual(cfg.xtrabackupPrepareExtraArgs, SPEC.xtrabackupPrepareExtraArgs);
    assert.deepEqual(cfg.initFileExtraSql, SPEC.initFileExtraSQL);
    assert.deepEqual(cfg.operator, cred(KEY.operatorUser, KEY.operatorPassword));
    assert.deepEqual(cfg.replication, cred(KEY.replicationUser, KEY.replicationPassword));
    assert.deepEqual(cfg.exporter, cred(KEY.metricsExporterUser, KEY.metricsExporterPassword));
    // The hash the Secret holds, or the hash of the plain password the anchor's sidecar images need.
    const hash = secret[KEY.orcTopologyPasswordHash] ?? storedPasswordHash(cfg.flavour, secret[KEY.orcTopologyPassword]!, 'prod/my-db');
    assert.deepEqual(cfg.orchestrator, { user: secret[KEY.orcTopologyUser], passwordHash: hash });
    assert.ok(storedHashMatches(cfg.orchestrator.passwordHash, 'PlaceOrc10'));
    assert.equal(secret[KEY.orcTopologyPassword] === undefined, !String(sidecarImage).includes('bitpoke/'), sidecarImage);
    assert.deepEqual(cfg.backup, cred(KEY.backupUser, KEY.backupPassword));
    // Its paths are where the volumes are mounted.
    assert.equal(cfg.paths.configDir, mounts.get(VOLUME.conf));
    assert.equal(cfg.paths.confSourceDir, mounts.get(VOLUME.configMap));
    assert.equal(cfg.paths.dataDir, mounts.get(VOLUME.data));
    assert.equal(cfg.mysql.port, PORT.mysql);
  });

  test(`${version}: config-and-serve reads the backup settings and credentials, and serves where the probe and Services look`, () => {
    const { cfg, mounts, container } = command('config-and-serve');
    assert.deepEqual(cfg.backup, cred(KEY.backupUser, KEY.backupPassword));
    assert.deepEqual(cfg.replication, cred(KEY.replicationUser, KEY.replicationPassword));
    assert.deepEqual(cfg.xtrabackupExtraArgs, SPEC.xtrabackupExtraArgs);
    assert.deepEqual(cfg.binlogArchive, { url: 's3://backups/my-db/binlogs/', intervalSeconds: 17 });
    assert.equal(command('clone-and-init').cfg.binlogArchive, undefined, 'only the sidecar container archives');
    assert.deepEqual(cfg.xbstreamExtraArgs, SPEC.xbstreamExtraArgs);
    assert.equal(cfg.paths.xtrabackupTargetDir, SPEC.xtrabackupTargetDir);
    assert.equal(cfg.flavour.family, version.startsWith('mariadb') ? 'mariadb' : 'mysql');
    assert.equal(cfg.paths.configDir, mounts.get(VOLUME.conf));
    assert.equal(cfg.paths.dataDir, mounts.get(VOLUME.data));
    const port = container.ports?.find((p) => p.name === PORT_NAME.sidecarHttp)?.containerPort;
    assert.equal(cfg.http.port, port);
    assert.equal(container.readinessProbe?.httpGet?.port, port);
    assert.equal(cfg.mysql.port, byName(CONTAINER.mysql).ports?.find((p) => p.name === PORT_NAME.mysql)?.containerPort);
  });

  test(`${version}: the files clone-and-init writes are the ones the other containers use`, () => {
    const files = podFilePaths(command('clone-and-init').cfg.paths.configDir);
    const heartbeat = command('heartbeat');
    assert.equal(heartbeat.line.heartbeat.defaultsFile, files.heartbeat);
    assert.equal(heartbeat.mounts.get(VOLUME.conf), dirname(files.heartbeat));
    const mysql = byName(CONTAINER.mysql);
    assert.equal(mountsOf(mysql).get(VOLUME.conf), dirname(files.myCnf));
    assert.deepEqual(mysql.livenessProbe?.exec?.command, ['mysqladmin', `--defaults-file=${files.client}`, 'ping']);
    assert.match(mysql.readinessProbe?.exec?.command?.[2] ?? '', new RegExp(`--defaults-file=${files.client} `));
    assert.ok(byName(CONTAINER.ptKill).args?.includes(`--defaults-file=${files.client}`));
    // clone-and-init copies the ConfigMap's files into the conf directory under their key names.
    const preStop = mysql.lifecycle?.preStop?.exec?.command ?? [];
    assert.equal(dirname(preStop[1] ?? ''), dirname(files.myCnf));
    assert.deepEqual(Object.keys(desired.configMap.data ?? {}).sort(), [basename(files.myCnf), basename(preStop[1] ?? '')].sort());
    assert.match(desired.configMap.data?.[basename(files.myCnf)] ?? '', new RegExp(`^!includedir ${files.confD}$`, 'm'));
  });

  test(`${version}: every variable rendered for the sidecar is read by it, and every one it reads is rendered`, () => {
    const rendered = new Set(loaded.flatMap((l) => Object.keys(l.env)));
    const bucketKeys = Object.keys(secrets[BUCKET_SECRET]!);
    const unread = [...rendered].filter((n) => !reads.has(n) && !RENDERED_FOR_OTHERS.includes(n) && !bucketKeys.includes(n));
    assert.deepEqual(unread, [], 'rendered into a sidecar container, read by nobody');
    const missing = [...reads].filter((n) => !rendered.has(n) && !READ_NOT_RENDERED(n));
    assert.deepEqual(missing, [], 'read by the sidecar, rendered nowhere');
  });
}
