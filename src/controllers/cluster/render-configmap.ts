// ConfigMap `<c>-mysql`: my.cnf, and the pre-stop script unless the user brings a lifecycle.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { controllerRef, names, type ClusterRef } from '../../api/names.ts';
import { PRE_SHUTDOWN_SCRIPT_KEY, renderPreShutdownScript } from './render-pre-shutdown-script.ts';

export const MY_CNF_KEY = 'my.cnf';

export function renderConfigMap(
  ref: ClusterRef,
  labels: Readonly<Record<string, string>>,
  myCnf: string,
  withPreStopScript: boolean,
): V1ConfigMap {
  const data: Record<string, string> = { [MY_CNF_KEY]: myCnf };
  if (withPreStopScript) data[PRE_SHUTDOWN_SCRIPT_KEY] = renderPreShutdownScript();
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: names.configMap(ref.name),
      namespace: ref.namespace,
      labels: { ...labels, generated: 'true' },
      ownerReferences: [controllerRef(ref)],
    },
    data,
  };
}
