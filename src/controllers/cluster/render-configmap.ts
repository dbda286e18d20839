// ConfigMap `<c>-mysql`: my.cnf, and the pre-stop script unless the user brings a lifecycle.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { controllerRef, names, type ClusterRef } from '../../api/names.ts';
import { CONF_FILE } from '../../api/pod-contract.ts';
import { renderPreShutdownScript } from './render-pre-shutdown-script.ts';

export function renderConfigMap(
  ref: ClusterRef,
  labels: Readonly<Record<string, string>>,
  myCnf: string,
  withPreStopScript: boolean,
): V1ConfigMap {
  // The keys are file names: clone-and-init copies them into the conf directory as they are.
  const data: Record<string, string> = { [CONF_FILE.myCnf]: myCnf };
  if (withPreStopScript) data[CONF_FILE.preShutdownScript] = renderPreShutdownScript();
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
