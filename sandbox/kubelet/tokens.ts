// Where a pod's projected service account token comes from. The sandbox's own API server takes
// the kubeconfig's token (the kubelet writes that). Attached to a cluster (docs/sandbox.md), the
// kubelet asks the API server for the pod's own token, as a real kubelet does: a TokenRequest for
// the pod's service account, bound to the pod, asked again at 80 % of its life; so the pods carry
// their service account's identity, never the kubeconfig's credentials, and a kubeconfig with a
// client certificate (no token at all) works.
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeClient } from '../../src/runtime/kube/client.ts';

export type TokenSource = (pod: V1Pod, expirationSeconds: number) => Promise<string>;

export function staticToken(token: string): TokenSource {
  return async () => token;
}

interface Held {
  token: string;
  /** When to ask again (ms since the epoch). */
  renewAt: number;
}

/** When a token issued at `issuedAt` that expires at `expiresAt` is asked for again (the kubelet's 80 %). */
export function renewAt(issuedAt: number, expiresAt: number): number {
  return issuedAt + 0.8 * (expiresAt - issuedAt);
}

export function requestedTokens(client: KubeClient, now: () => number = Date.now): TokenSource & { forget(uid: string): void } {
  const held = new Map<string, Held>();
  const source = async (pod: V1Pod, expirationSeconds: number): Promise<string> => {
    const uid = pod.metadata?.uid ?? '';
    const h = held.get(uid);
    if (h && now() < h.renewAt) return h.token;
    const ns = pod.metadata?.namespace ?? 'default';
    const account = pod.spec?.serviceAccountName ?? 'default';
    const issuedAt = now();
    const answer = await client.request<{ status?: { token?: string; expirationTimestamp?: string } }>(
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/${account}/token`,
      {
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { audiences: [], expirationSeconds, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid } },
        },
      },
    );
    const token = answer.status?.token;
    if (!token) throw new Error(`TokenRequest for service account ${ns}/${account} answered without a token`);
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '') || issuedAt + expirationSeconds * 1000;
    held.set(uid, { token, renewAt: renewAt(issuedAt, expires) });
    return token;
  };
  return Object.assign(source, { forget: (uid: string) => void held.delete(uid) });
}
