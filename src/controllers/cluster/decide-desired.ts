// What the cluster should have, given what it has: render the configuration, decide the rollout
// annotations on it, decide the probes on the template the anchor's probes would render, then
// render the objects with those choices. A straight line of pure steps, each on the output of the
// one before (render-cluster.ts, decide-rollout.ts).
import type { V1StatefulSet } from '@kubernetes/client-node';
import { decideMinReadySeconds, decideProbes, decideRolloutAnnotations } from './decide-rollout.ts';
import { renderCluster, renderConfig, renderPodTemplate, type DesiredState, type RenderInput } from './render-cluster.ts';

/** What the cluster runs now, as far as the choices about its pods depend on it. */
export interface ExistingPods {
  statefulSet: V1StatefulSet | undefined;
  configMapData: Readonly<Record<string, string>> | undefined;
  /** Decoded data of the operated Secret; undefined when there is none. */
  secretData: Readonly<Record<string, string>> | undefined;
}

export function decideDesired(input: RenderInput, existing: ExistingPods): DesiredState {
  const config = renderConfig(input);
  const template = existing.statefulSet?.spec?.template;
  const rolloutAnnotations = decideRolloutAnnotations(
    { templateAnnotations: template?.metadata?.annotations, configMapData: existing.configMapData, secretData: existing.secretData },
    config,
  );
  const probes = decideProbes(template, renderPodTemplate(input, config, { rolloutAnnotations, probes: 'anchor' }));
  const minReadySeconds = decideMinReadySeconds(existing.statefulSet, input.cluster.spec.replicas ?? 1);
  return renderCluster(input, config, { rolloutAnnotations, probes, minReadySeconds });
}
