// Secret `<c>-mysql-orc-api`: Orchestrator's API credentials for the cluster's pods, as curl's
// default config file. The pre-stop script (render-pre-shutdown-script.ts) must keep the anchor's
// bytes, and its curl lines carry no credentials; curl reads `$CURL_HOME/.curlrc` before its
// arguments, so the mysql container gets CURL_HOME pointing at this Secret mounted as `.curlrc`
// (render-statefulset.ts). Not the anchor's: the anchor's Orchestrator had no authentication.
import type { V1Secret } from '@kubernetes/client-node';
import { ORCHESTRATOR_API_CURLRC_KEY } from '../../api/pod-contract.ts';
import { controllerRef, names, type ClusterRef } from '../../api/names.ts';
import type { OrchestratorCredentials } from '../../orchestrator/index.ts';
import { encodeSecretData } from '../../runtime/kube/secret-data.ts';

/**
 * curl's config line for basic credentials. Inside double quotes curl reads `\` escapes, so `\`
 * and `"` are escaped; a line break cannot be written in a config line and is refused (the
 * chart's schema and Orchestrator's init script refuse these characters already).
 */
export function curlrcText(c: OrchestratorCredentials): string {
  const both = `${c.user}:${c.password}`;
  if (/[\r\n]/.test(both)) throw new Error("Orchestrator's API user or password holds a line break, which curl's config file cannot carry");
  return `user = "${both.replace(/[\\"]/g, (ch) => `\\${ch}`)}"\n`;
}

export function renderOrchestratorApiSecret(ref: ClusterRef, c: OrchestratorCredentials): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.orchestratorApiSecret(ref.name), namespace: ref.namespace, ownerReferences: [controllerRef(ref)] },
    data: encodeSecretData({ [ORCHESTRATOR_API_CURLRC_KEY]: curlrcText(c) }),
  };
}
