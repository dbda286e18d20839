// The sandbox (docs/architecture.md §6, docs/sandbox.md): a whole cluster on this machine, without
// containers. `startSandbox()` composes the parts, each a component with start/ready/stop: the
// test API server, the workload controllers, the pod network with its Service proxy, the
// kubelet, then installs the chart (operator and Orchestrator as pods) with the real `helm install`.
// `npm run sandbox` and the end-to-end tests both stand on it.
import { execFile, execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { LABEL_APP_COMPONENT, LABEL_APP_INSTANCE } from '../src/api/constants.ts';
import { KubeClient } from '../src/runtime/kube/client.ts';
import { createLogger, type Logger } from '../src/runtime/logger.ts';
import { startApiServer, type ApiServer } from './apiserver/index.ts';
import { attach, type Attachment } from './attach.ts';
import type { ControllersChoice } from './decide-attach.ts';
import { startKubelet, type Kubelet } from './kubelet/index.ts';
import { startS3Server, type S3Server } from './s3.ts';
import { claimAddresses, startSandboxNetwork, type SandboxNetwork } from './network/index.ts';
import { startWorkloadControllers, type WorkloadControllers } from './workloads/index.ts';
import { sandboxFaults, type SandboxFaults } from './faults/pods.ts';

export const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const KUBECTL = join(REPO, '.tools/bin/kubectl');
export const HELM = join(REPO, '.tools/bin/helm');
const CHART = join(REPO, 'chart');

/** The chart's release: its namespace and name give the operator's and Orchestrator's objects their names. */
export const RELEASE = { name: 'mysql-operator', namespace: 'mysql-operator' } as const;
export const NODE_NAME = 'sandbox';
/** The sandbox's S3 bucket: the one the examples' backup URLs name. */
export const S3_BUCKET = 'my-bucket';

/**
 * Chart values the sandbox needs. One Orchestrator: the stand-in has no raft, and three
 * independent ones would each run a failover.
 */
export const SANDBOX_CHART_VALUES: readonly string[] = ['orchestrator.replicas=1'];

/**
 * Attached to a cluster whose own scheduler runs: the operator's and Orchestrator's pods go to the
 * sandbox's node only (the cluster's other nodes have no programs for these images). The
 * MysqlClusters get the same nodeSelector from sandbox/examples.ts.
 */
export const ON_SANDBOX_NODE: readonly string[] = [
  `nodeSelector.kubernetes\\.io/hostname=${NODE_NAME}`,
  `orchestrator.nodeSelector.kubernetes\\.io/hostname=${NODE_NAME}`,
];

export interface SandboxOptions {
  /** Everything the sandbox writes: kubeconfig, pods' directories, volumes, logs. Removed by stop(). */
  workDir: string;
  /**
   * An existing cluster's kubeconfig (`npm run sandbox -- --kubeconfig FILE`, TEST_KUBECONFIG):
   * no API server starts; the kubelet, network, Service proxy and S3 server run here against it,
   * and a relay on the bridge carries pods to its server (docs/sandbox.md "Attached to a cluster").
   */
  kubeconfig?: string;
  /**
   * Attached: whose workload controllers and scheduler run (decide-attach.ts decideControllers).
   * Default 'auto': the cluster's when it runs kube-controller-manager, else the sandbox's.
   */
  controllers?: ControllersChoice;
  /** `--set` values for the chart on top of SANDBOX_CHART_VALUES. */
  chartValues?: readonly string[];
  /** What each component is doing, one line at a time (the progress display). */
  progress?: (line: string) => void;
  /** Restart backoff of the kubelet (default the kubelet's 10 s doubling to 5 min). */
  backoff?: { baseMs: number; maxMs: number };
  /**
   * Build (`npm run build`) and run the operator and sidecar pods from dist/, as the images ship
   * them (npm run sandbox). Default: from the sources, sparing each test's sandbox a build.
   */
  built?: boolean;
  /**
   * Where the kubelet looks for an `orchestrator` binary to play the chart's Orchestrator image (a
   * PATH-style list; default the process's PATH); `''` plays the stand-in whatever PATH holds.
   */
  orchestratorPath?: string;
}

export interface Sandbox {
  /** Path of the kubeconfig for processes on this machine (kubectl, tests). */
  kubeconfig: string;
  kubeConfig: KubeConfig;
  client: KubeClient;
  /** Undefined when attached to a cluster. */
  apiserver?: ApiServer;
  /** Attached to a cluster: the relay pods reach its server through, and whose controllers run. */
  attached?: Attachment;
  /** Undefined when the cluster's own controllers run. */
  workloads?: WorkloadControllers;
  network: SandboxNetwork;
  kubelet: Kubelet;
  /** The S3 server (s3rver) on the bridge's gateway, with the bucket S3_BUCKET: reached from pods and from this machine. */
  s3: S3Server;
  /** Faults to inject into pods' links and pods (docs/sandbox-faults.md); stop() undoes what is left. */
  faults: SandboxFaults;
  /** Resolves once the operator and Orchestrator pods are Ready. */
  ready: Promise<void>;
  /** Runs the real kubectl against the sandbox (never blocks the API server sharing this process). */
  kubectl(args: readonly string[], input?: string): Promise<{ ok: boolean; out: string; stdout: string }>;
  /** Runs the real helm against the sandbox, with its cache, config and data homes in the work dir (where the release was installed from). */
  helm(args: readonly string[]): Promise<{ ok: boolean; out: string; stdout: string }>;
  /** Says what plays Orchestrator (a real binary or the stand-in), from the kubelet's Started Event. */
  orchestratorRunsAs(): Promise<string | undefined>;
  /** Stops every pod, then the kubelet, network, controllers and API server; removes the work dir. */
  stop(): Promise<void>;
}

/** Runs a program without blocking this process (the API server may live here). */
export function run(
  bin: string,
  args: readonly string[],
  input?: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; out: string; stdout: string }> {
  return new Promise((done) => {
    const child = execFile(bin, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...(env ? { env } : {}) }, (error, stdout, stderr) => {
      // A program that did not start (ENOENT) says nothing itself: its error does.
      done({ ok: !error, out: `${stdout}${stderr}` || (error?.message ?? ''), stdout });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Polls `check` until it gives a value, or fails naming `what` with the last thing it said. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    signal?.throwIfAborted();
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last: ${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function podReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true && !pod.metadata?.deletionTimestamp;
}

// Over 80 lines: one composition in the order of docs/sandbox.md "Design", each step pushing its
// stop as it starts; split up, that order and the stops' reverse order would be scattered.
export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const say = opts.progress ?? (() => undefined);
  if (opts.built) {
    say('build: src/ compiled to dist/ (npm run build), what the images run');
    // The project's build command, run as `npm run build` runs it: the sandbox imports no script.
    execFileSync(process.execPath, [join(REPO, 'scripts/build.ts')], { stdio: 'inherit' });
  }
  const workDir = resolve(opts.workDir);
  mkdirSync(join(workDir, 'logs'), { recursive: true });
  const kubeconfig = opts.kubeconfig ?? join(workDir, 'kubeconfig');
  const logFile = createWriteStream(join(workDir, 'logs', 'sandbox.log'), { flags: 'a' });
  const log: Logger = createLogger({ level: 'warn', stream: logFile });
  const stops: (() => Promise<void>)[] = [
    async () => {
      logFile.end();
    },
  ];
  const stopAll = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch((e: unknown) => log.warn('stop failed', { error: (e as Error).message }));
    stops.length = 0;
  };

  try {
    say('network: claiming a bridge and address ranges');
    const claim = await claimAddresses(workDir);
    stops.push(() => claim.release());
    say(`network: bridge ${claim.bridge}, pods ${claim.podCIDR}, Services ${claim.serviceCIDR}`);

    let apiserver: ApiServer | undefined;
    let attached: Attachment | undefined;
    let apiAddress: { host: string; port: number };
    if (opts.kubeconfig) {
      const kc = loadKubeConfig(opts.kubeconfig);
      const reader = new KubeClient(kc, { userAgent: 'sandbox' });
      try {
        attached = await attach(kc, reader, claim.gateway, opts.controllers ?? 'auto');
      } finally {
        reader.close();
      }
      const relay = attached.relay;
      stops.push(() => relay.stop());
      apiAddress = attached.podApi;
      say(
        `apiserver: attached to ${kc.getCurrentCluster()?.server}; pods reach it through the relay ${claim.gateway}:${relay.address.port} as https://${apiAddress.host}`,
      );
      say(`workloads: the ${attached.controllers.run}'s controllers and scheduler run: ${attached.controllers.reason}`);
    } else {
      // HTTPS on the bridge's address, reachable from pods and from this machine: in-cluster clients
      // refuse a token over plain HTTP, and verify the server with kube-root-ca.crt, which holds
      // this server's certificate.
      apiserver = await startApiServer({ host: claim.gateway, tls: true, serviceCIDR: claim.serviceCIDR });
      const server = apiserver;
      stops.push(() => server.stop());
      apiserver.writeKubeconfig(kubeconfig);
      apiAddress = { host: claim.gateway, port: Number(new URL(apiserver.url).port) };
      say(`apiserver: ${apiserver.url} (the test API server, sandbox/apiserver)`);
    }
    const kubeConfig = loadKubeConfig(kubeconfig);
    const client = new KubeClient(kubeConfig, { userAgent: 'sandbox' });
    stops.push(async () => client.close());

    let workloads: WorkloadControllers | undefined;
    if (!attached || attached.controllers.run === 'sandbox') {
      workloads = startWorkloadControllers({ kubeconfig: kubeConfig, workDir, nodeName: NODE_NAME, log });
      const w = workloads;
      stops.push(() => w.stop());
      await workloads.ready;
      say('workloads: StatefulSet, Deployment, Job, EndpointSlice controllers, scheduler, volume binder');
    }

    const network = await startSandboxNetwork({ kubeConfig, workDir, claim, log, ...(attached ? { apiServer: attached.networkApi } : {}) });
    stops.push(() => network.stop());
    await network.ready;
    say('network: pod namespaces, hosts files, Service proxy on the ClusterIPs');

    // On the gateway, like the API server: pods reach it through the bridge, host processes directly.
    const s3 = await startS3Server({ host: claim.gateway, bucket: S3_BUCKET, dir: join(workDir, 's3') });
    stops.push(() => s3.stop());
    say(`s3: ${s3.endpoint}, bucket ${S3_BUCKET} (s3rver)`);

    const kubelet = await startKubelet({
      kubeconfig: kubeConfig,
      nodeName: NODE_NAME,
      workDir,
      network: network.network,
      nodeIP: claim.gateway,
      apiServer: apiAddress,
      log,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      images: { built: opts.built ?? false, ...(opts.orchestratorPath !== undefined ? { path: opts.orchestratorPath } : {}) },
      // Attached: each pod's own service account token, never the kubeconfig's credentials.
      serviceAccountTokens: attached ? 'request' : 'kubeconfig',
    });
    // Stopped first (pushed last): the pods' processes end before the network under them goes.
    stops.push(() => kubelet.stop());
    // Before the pods stop: a partitioned pod's preStop must reach the others again, and the
    // delayers are ended.
    const faults = sandboxFaults(client, claim);
    stops.push(() => faults.clear());
    await kubelet.ready();
    say(`kubelet: node ${NODE_NAME} at ${claim.gateway}, pods as local processes (sandbox/kubelet)`);

    const kubectl = (args: readonly string[], input?: string) => run(KUBECTL, ['--kubeconfig', kubeconfig, ...args], input);
    const helmHome = join(workDir, 'helm');
    const helmEnv = {
      ...process.env,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    };
    const helm = (args: readonly string[]) => run(HELM, ['--kubeconfig', kubeconfig, ...args], undefined, helmEnv);
    say(
      `chart: helm install ${RELEASE.name} chart/ --namespace ${RELEASE.namespace} --create-namespace (the operator runs from the chart's Deployment)`,
    );
    // Attached, the release would outlive the sandbox on the cluster: uninstalled before the kubelet
    // stops, also when the install itself failed half way.
    if (attached)
      stops.push(async () => {
        const r = await helm([
          'uninstall',
          RELEASE.name,
          '--namespace',
          RELEASE.namespace,
          '--ignore-not-found',
          '--wait',
          '--timeout',
          '60s',
        ]);
        if (!r.ok) log.warn("helm uninstall of the sandbox's release failed", { output: r.out });
      });
    const onNode = attached?.controllers.run === 'cluster' ? ON_SANDBOX_NODE : [];
    const installed = await helm(chartInstallArgs('install', [...SANDBOX_CHART_VALUES, ...onNode, ...(opts.chartValues ?? [])]));
    if (!installed.ok) throw new Error(`helm install of chart/ failed:\n${installed.out}`);

    const ready = (async () => {
      for (const [component, what] of [
        ['operator', 'the operator'],
        ['orchestrator', 'Orchestrator'],
      ] as const) {
        await until(
          `${what}'s pod to be Ready (kubectl -n ${RELEASE.namespace} get pods)`,
          async () => {
            const pods = await client.list<V1Pod & { metadata: object }>(
              { apiVersion: 'v1', kind: 'Pod' },
              { namespace: RELEASE.namespace, labelSelector: `${LABEL_APP_INSTANCE}=${RELEASE.name},${LABEL_APP_COMPONENT}=${component}` },
            );
            return pods.items.some(podReady) ? true : undefined;
          },
          180_000,
        );
        say(`${component}: Ready`);
      }
    })();
    ready.catch(() => undefined);

    let stopped: Promise<void> | undefined;
    return {
      kubeconfig,
      kubeConfig,
      client,
      apiserver,
      attached,
      workloads,
      network,
      kubelet,
      s3,
      faults,
      ready,
      kubectl,
      helm,
      async orchestratorRunsAs() {
        const r = await kubectl([
          '-n',
          RELEASE.namespace,
          'get',
          'events',
          '--field-selector',
          'reason=Started',
          '-o',
          'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
        ]);
        return r.out
          .split('\n')
          .find((l) => /container orchestrator:/.test(l))
          ?.replace(/^.*runs as /, '');
      },
      stop() {
        stopped ??= (async () => {
          await stopAll();
          rmSync(workDir, { recursive: true, force: true });
        })();
        return stopped;
      },
    };
  } catch (e) {
    await stopAll();
    rmSync(workDir, { recursive: true, force: true });
    throw e;
  }
}

function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/**
 * `helm install|upgrade` of chart/ as the sandbox's release with `values` (`--set`). An install
 * creates the namespace and the CRDs (helm's crds/); an upgrade leaves the CRDs alone, as helm does.
 */
export function chartInstallArgs(verb: 'install' | 'upgrade', values: readonly string[]): string[] {
  return [
    verb,
    RELEASE.name,
    CHART,
    '--namespace',
    RELEASE.namespace,
    ...(verb === 'install' ? ['--create-namespace'] : []),
    ...values.flatMap((v) => ['--set', v]),
  ];
}
