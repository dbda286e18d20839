// The mysql container's preStop as the kubelet runs it: the command of the rendered lifecycle hook
// (the anchor's pre-shutdown-ha.sh from the ConfigMap) run with bash, the container's environment
// resolved from the rendered pod (sandbox/kubelet/env.ts), the conf volume at /etc/mysql (a bind
// mount in a private mount namespace, as the sandbox's kubelet does), Debian's `mysql` and `curl`
// on PATH. The server standing in for the pod's mysqld is reached through client.conf, as the
// sidecar's clone-and-init leaves it. Shared by the switchover test and the orchestrator
// controller's component test.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH, CONTAINER, VOLUME } from '../../src/api/constants.ts';
import { names } from '../../src/api/names.ts';
import { CONF_FILE, MOUNT_PATH } from '../../src/api/pod-contract.ts';
import { clusterOptions } from '../../src/controllers/cluster/options.ts';
import { renderClientConf } from '../../src/sidecar/render-pod-files.ts';
import { containerEnv } from '../../sandbox/kubelet/env.ts';
import { cluster, render, ROOT_SECRET } from '../unit/cluster/builders.ts';
import { TEST_SYSTEM_USERS, type MariaDBServer } from './mariadb.ts';

const mountsWork = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', 'true']).status === 0;
/** The skip reason of a test that runs a preStop, or false where it can run. */
export const NO_MOUNT_NS: string | false = mountsWork ? false : 'needs root for a private mount namespace (the conf volume at /etc/mysql)';

/** Which pod of which cluster, and the Orchestrator API (`<url>/api`) its environment names. */
export interface PreStopTarget {
  cluster: string;
  namespace: string;
  orchestratorUrl: string;
  /**
   * Orchestrator's API credentials the operator holds: the pod is then rendered as a template of
   * ours (not an adopted one), with the Secret `<c>-mysql-orc-api` mounted for the script's curl.
   */
  orchestratorCredentials?: { user: string; password: string };
}

/** The cluster (3 MariaDB 10.11 pods) as the cluster controller renders it, with the preStop on. */
export function renderedForPreStop(target: PreStopTarget) {
  const c = cluster({ replicas: 3, mysqlVersion: 'mariadb-10.11' }, { name: target.cluster, namespace: target.namespace });
  const opts = clusterOptions({
    orcTopologyUser: TEST_SYSTEM_USERS.orchestrator.user,
    orcTopologyPassword: TEST_SYSTEM_USERS.orchestrator.password,
    orchestratorUri: `${target.orchestratorUrl}/api`,
    failoverBeforeShutdown: true,
  });
  if (!target.orchestratorCredentials) return render(c, opts);
  return render(c, opts, { [ANNOTATION_CONFIG_HASH]: 'ours' }, {}, ROOT_SECRET, 'fast', {
    orchestratorCredentials: target.orchestratorCredentials,
  });
}

/** Runs the mysql container's preStop of pod `ordinal`; resolves with its exit code and output. */
export async function runPreStop(
  t: { after(fn: () => unknown): void },
  target: PreStopTarget,
  ordinal: number,
  server: MariaDBServer,
): Promise<{ code: number | null; output: string }> {
  const desired = renderedForPreStop(target);
  const template = desired.statefulSet.spec!.template;
  const pod: V1Pod = {
    metadata: { ...template.metadata, name: names.pod(target.cluster, ordinal), namespace: target.namespace, uid: `pod-uid-${ordinal}` },
    spec: template.spec!,
    status: { podIP: server.host, hostIP: '127.0.0.1' },
  };
  const mysql = template.spec!.containers.find((c) => c.name === CONTAINER.mysql)!;
  const command = mysql.lifecycle?.preStop?.exec?.command;
  assert.ok(command, 'the mysql container has a preStop exec hook');
  const env = containerEnv(mysql, pod, {
    secrets: {
      [names.operatedSecret(target.cluster)]: desired.secretData,
      [ROOT_SECRET.metadata.name]: { ROOT_PASSWORD: 'r00t' },
    },
  });
  // The conf volume as clone-and-init leaves it: the ConfigMap's script copied as is, and
  // client.conf for the operator user pointing at this pod's own mysqld.
  const conf = mkdtempSync(join(tmpdir(), 'pre-stop-conf-'));
  t.after(() => rmSync(conf, { recursive: true, force: true }));
  writeFileSync(join(conf, CONF_FILE.preShutdownScript), desired.configMap.data![CONF_FILE.preShutdownScript]!);
  writeFileSync(join(conf, CONF_FILE.client), renderClientConf(TEST_SYSTEM_USERS.operator, { host: server.host, port: server.port }));
  // The Secret volume `<c>-mysql-orc-api`, nested in the conf volume as the pod mounts it.
  const apiVolume = template.spec!.volumes!.find((v) => v.name === VOLUME.orchestratorApi);
  if (apiVolume && desired.orchestratorApiSecret) {
    assert.ok(MOUNT_PATH.orchestratorApi.startsWith(`${MOUNT_PATH.conf}/`));
    const dir = join(conf, MOUNT_PATH.orchestratorApi.slice(MOUNT_PATH.conf.length + 1));
    mkdirSync(dir);
    for (const item of apiVolume.secret!.items!) {
      writeFileSync(join(dir, item.path), Buffer.from(desired.orchestratorApiSecret.data![item.key]!, 'base64'));
    }
  }
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      'bash',
      '-c',
      'mount --bind "$1" "$2" && shift 2 && exec "$@"',
      'kubelet',
      conf,
      MOUNT_PATH.conf,
      ...command,
    ],
    { env: { ...env, PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}
