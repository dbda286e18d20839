// Which pod template annotations make pods roll when their configuration changes.
//
// Ours: one annotation, a hash of the rendered config, the operated Secret, the images and the pod
// inputs. The anchor instead put the ConfigMap's and Secret's resourceVersions (`config_rev`,
// `secret_rev`) in the template. Replacing those with the hash on an adopted cluster would change
// the template and roll every database for nothing, so an adopted template keeps its revs as long
// as the config and Secret we render equal what the pods already run. The first real change
// switches it to the hash: that rollout was due anyway.
//
// The probes follow the same idea (decideProbes): running pods keep the anchor's slow probes as
// long as nothing else in their template changes; the first real rollout brings ours.
import type { V1PodTemplateSpec, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH, ANNOTATION_CONFIG_REV, ANNOTATION_SECRET_REV, ROLL_SETTLE_SECONDS } from '../../api/constants.ts';
import { ownedSubset } from './decide-writes.ts';
import type { RolloutInputs } from './render-cluster.ts';
import type { ProbeStyle } from './render-statefulset.ts';

export interface ExistingRolloutState {
  templateAnnotations: Readonly<Record<string, string>> | undefined;
  configMapData: Readonly<Record<string, string>> | undefined;
  /** Decoded. */
  secretData: Readonly<Record<string, string>> | undefined;
}

export function decideRolloutAnnotations(existing: ExistingRolloutState, rendered: RolloutInputs): Record<string, string> {
  const a = existing.templateAnnotations ?? {};
  const adopted = a[ANNOTATION_CONFIG_HASH] === undefined && a[ANNOTATION_CONFIG_REV] !== undefined;
  if (adopted && sameData(existing.configMapData, rendered.configData) && sameData(existing.secretData, rendered.secretData)) {
    const keep: Record<string, string> = { [ANNOTATION_CONFIG_REV]: a[ANNOTATION_CONFIG_REV]! };
    if (a[ANNOTATION_SECRET_REV] !== undefined) keep[ANNOTATION_SECRET_REV] = a[ANNOTATION_SECRET_REV];
    return keep;
  }
  return { [ANNOTATION_CONFIG_HASH]: rendered.configHash };
}

function sameData(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean {
  if (!a) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * The anchor's probes while the template rendered with them is the one the pods run (adopted
 * clusters, and clusters of our releases before the startup probe), so that changing the probes
 * alone never rolls a database; ours for a new StatefulSet and once anything else changes, in the
 * same rollout. Compared as decide-writes.ts compares templates: a field only the stored template
 * has does not count, so a field removed from the spec rolls once more with the anchor's probes.
 */
export function decideProbes(existing: V1PodTemplateSpec | undefined, anchorTemplate: V1PodTemplateSpec): ProbeStyle {
  if (!existing) return 'fast';
  return ownedSubset(anchorTemplate, existing) ? 'anchor' : 'fast';
}

/**
 * The StatefulSet's `minReadySeconds`: how long a rolled pod must stay Ready before the next one is
 * stopped. The master's pod rolls last, and its preStop asks Orchestrator for a graceful takeover,
 * which relocates every other replica below the new master; Orchestrator refuses a replica it has
 * not checked since it came back ("too complex; please do it manually": its last check invalid
 * or not recent), and a refused takeover is a failover instead. A real Orchestrator re-checks a
 * replica within 2 x InstancePollSeconds of its return, so a few seconds of settling close the
 * gap. Not while the cluster is first created: the StatefulSet controller waits the same time
 * before creating each next pod, which would only slow down a new cluster. So 0 until the
 * StatefulSet has had every replica Ready and up to date once, then kept. An adopted StatefulSet
 * (the anchor's revs in its template, not yet rolled by us) keeps what it has: adoption writes no
 * spec; the first rollout of ours makes it ours.
 */
export function decideMinReadySeconds(existing: V1StatefulSet | undefined, replicas: number): number {
  if (existing === undefined) return 0;
  const had = existing.spec?.minReadySeconds ?? 0;
  if (had > 0 || existing.spec?.template?.metadata?.annotations?.[ANNOTATION_CONFIG_HASH] === undefined) return had;
  const st = existing.status;
  const settled =
    st !== undefined &&
    (st.readyReplicas ?? 0) >= replicas &&
    (st.updatedReplicas ?? 0) >= replicas &&
    st.currentRevision === st.updateRevision;
  return settled ? ROLL_SETTLE_SECONDS : 0;
}
