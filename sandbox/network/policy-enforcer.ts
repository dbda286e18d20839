// Ingress NetworkPolicies enforced by the kernel, as a CNI would (docs/sandbox-network.md,
// "Network policies"): on every change of Pods, Namespaces or NetworkPolicies (and on each
// attach), every attached pod's rules are compiled (policy.ts) and the pods whose text changed get
// it applied in their own network namespace with `nft`, one transaction each. The rules live in
// the pod's namespace, so they go with it: nothing to remove on detach or stop.
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import { errorMessage, type Logger } from '../../src/runtime/logger.ts';
import { applyNftScript } from './ip.ts';
import { podIngress, renderNftScript, type NetworkPolicy, type PolicyPod, type PolicyView } from './policy.ts';

export interface EnforcerSource {
  /** Pods whose network namespace exists, with the address this network gave them. */
  attached(): Array<{ uid: string; namespace: string; ip: string; netns: string }>;
  /** Every address given (uid → ip), namespaces made or still being made. */
  addresses(): ReadonlyMap<string, string>;
  pods(): V1Pod[];
  namespaces(): V1Namespace[];
  policies(): NetworkPolicy[];
}

/** A Pod object as the compiler sees it; its address is the one this network gave it, else its status's. */
export function policyPod(pod: V1Pod, given: string | undefined): PolicyPod {
  return {
    namespace: pod.metadata?.namespace ?? '',
    labels: pod.metadata?.labels ?? {},
    ip: given ?? (pod.status?.podIP || undefined),
    namedPorts: (pod.spec?.containers ?? []).flatMap((c) =>
      (c.ports ?? []).flatMap((p) => (p.name ? [{ name: p.name, port: p.containerPort, protocol: p.protocol ?? 'TCP' }] : [])),
    ),
  };
}

/** Each attached pod's script, by uid; a pod whose Pod object is not seen yet gets none. */
export function desiredScripts(
  source: EnforcerSource,
  node: string,
  aliases: (ip: string) => string[],
): Map<string, { netns: string; script: string }> {
  const given = source.addresses();
  const byUid = new Map(source.pods().map((p) => [p.metadata?.uid ?? '', p]));
  const view: PolicyView = {
    pods: source.pods().map((p) => policyPod(p, given.get(p.metadata?.uid ?? ''))),
    namespaces: new Map(source.namespaces().map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}])),
    policies: source.policies(),
    aliases,
  };
  const out = new Map<string, { netns: string; script: string }>();
  for (const a of source.attached()) {
    const pod = byUid.get(a.uid);
    if (!pod) continue;
    out.set(a.uid, { netns: a.netns, script: renderNftScript(podIngress(policyPod(pod, a.ip), view), node) });
  }
  return out;
}

export class PolicyEnforcer {
  readonly #source: EnforcerSource;
  readonly #node: string;
  readonly #aliases: (ip: string) => string[];
  readonly #log: Logger;
  /** The script each pod's namespace holds now (what was last applied there). */
  readonly #applied = new Map<string, string>();
  #dirty = false;
  #running: Promise<void> | undefined;

  constructor(source: EnforcerSource, node: string, aliases: (ip: string) => string[], log: Logger) {
    this.#source = source;
    this.#node = node;
    this.#aliases = aliases;
    this.#log = log;
  }

  /** Brings every attached pod's rules up to date; resolves once everything seen before the call is applied. */
  sync(): Promise<void> {
    this.#dirty = true;
    this.#running ??= (async () => {
      try {
        while (this.#dirty) {
          this.#dirty = false;
          try {
            await this.#syncOnce();
          } catch (e) {
            // Never a rejection: callers fire and forget on every watch event.
            this.#log.warn('sandbox network: network policy sync failed', { error: errorMessage(e) });
          }
        }
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /** Resolves when no sync is under way. */
  async idle(): Promise<void> {
    await this.#running?.catch(() => undefined);
  }

  /** The script a pod's namespace holds (tests, the display). */
  applied(uid: string): string | undefined {
    return this.#applied.get(uid);
  }

  async #syncOnce(): Promise<void> {
    const wanted = desiredScripts(this.#source, this.#node, this.#aliases);
    for (const uid of [...this.#applied.keys()]) if (!wanted.has(uid)) this.#applied.delete(uid);
    await Promise.all(
      [...wanted].map(async ([uid, { netns, script }]) => {
        if (this.#applied.get(uid) === script) return;
        try {
          await applyNftScript(netns, script);
          this.#applied.set(uid, script);
        } catch (e) {
          // A pod detached meanwhile has no namespace left to hold rules: not a failure.
          if (!this.#source.attached().some((a) => a.uid === uid)) return;
          this.#log.warn('sandbox network: network policy rules not applied', { netns, error: errorMessage(e) });
        }
      }),
    );
  }
}
