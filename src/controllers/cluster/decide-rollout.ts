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
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH, ANNOTATION_CONFIG_REV, ANNOTATION_SECRET_REV } from '../../api/constants.ts';
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
export function decideProbes(existing: V1PodTemplateSpec | undefined, renderTemplate: (probes: ProbeStyle) => V1PodTemplateSpec): ProbeStyle {
  if (!existing) return 'fast';
  return ownedSubset(renderTemplate('anchor'), existing) ? 'anchor' : 'fast';
}
