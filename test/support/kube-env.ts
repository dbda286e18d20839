// Gives a test a Kubernetes API to talk to: the project's test API server (sandbox/apiserver),
// or, when TEST_KUBECONFIG is set, that real cluster. Each test gets a fresh namespace, deleted
// afterwards; tests that need fault injection check `supportsFaults` (false on a real cluster).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/runtime/kube/client.ts';
import { AlreadyExistsError } from '../../src/runtime/kube/errors.ts';
import { crdObjectsFrom, startApiServer, type ApiServer, type KObj } from '../../sandbox/apiserver/index.ts';
import { eventually } from './wait.ts';

export interface KubeEnv {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The test API server; undefined on a real cluster. */
  server: ApiServer | undefined;
  supportsFaults: boolean;
}

export const CRD_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));

export function projectCrds(): KObj[] {
  return readdirSync(CRD_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => crdObjectsFrom(join(CRD_DIR, f)));
}

function statusCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Creates or replaces the project's CRDs and waits until each is Established. Plain JSON through
 * the runtime's client: client-node's typed CRD model drops `x-kubernetes-*` schema keys.
 */
export async function installCrds(kubeConfig: KubeConfig, crds: KObj[] = projectCrds()): Promise<void> {
  const client = new KubeClient(kubeConfig);
  const ref = (name: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
  try {
    for (const crd of crds) {
      try {
        await client.create(crd);
      } catch (e) {
        if (!(e instanceof AlreadyExistsError)) throw e;
        const cur = await client.get(ref(crd.metadata.name));
        await client.update({ ...crd, metadata: { ...crd.metadata, resourceVersion: cur.metadata?.resourceVersion } });
      }
    }
    for (const crd of crds) {
      await eventually(`CRD ${crd.metadata.name} to be Established`, async () => {
        const cur = await client.get<KObj>(ref(crd.metadata.name));
        return cur.status?.conditions?.some((c: KObj) => c.type === 'Established' && c.status === 'True');
      });
    }
  } finally {
    client.close();
  }
}

let realClusterCrdsInstalled: Promise<void> | undefined;

/** The API for one test: a fresh namespace, cleaned up by `t.after`. */
export async function kubeEnv(t: TestContext, opts: { crds?: boolean } = {}): Promise<KubeEnv> {
  const external = process.env.TEST_KUBECONFIG;
  let kubeConfig: KubeConfig;
  let server: ApiServer | undefined;
  if (external) {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(external);
    if (opts.crds !== false) {
      realClusterCrdsInstalled ??= installCrds(kubeConfig);
      await realClusterCrdsInstalled;
    }
  } else {
    server = await startApiServer({ crds: opts.crds === false ? [] : projectCrds() });
    kubeConfig = server.kubeConfig();
  }
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespace = `t-${Math.random().toString(36).slice(2, 10)}`;
  // One hook, so the namespace is deleted before the server it lives on stops.
  t.after(async () => {
    try {
      await core.deleteNamespace({ name: namespace });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    } finally {
      await server?.stop();
    }
  });
  await core.createNamespace({ body: { metadata: { name: namespace, labels: { 'mysql-operator-test': 'true' } } } });
  return { kubeConfig, namespace, server, supportsFaults: server !== undefined };
}
