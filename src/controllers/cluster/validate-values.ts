// User values the rendered StatefulSet and PodDisruptionBudget carry as they are, checked before
// rendering. The API server would refuse them too, but a bad quantity only gets a 400 naming no
// field ("quantities must match the regular expression ..."): refusing here names the user's.
import type { MysqlClusterSpec } from '../../api/index.ts';
import { CLUSTER_REASONS } from '../../api/constants.ts';
import { quantityProblem } from '../../api/quantity.ts';
import { fieldAt } from './user-field.ts';
import type { Problem } from './validate-cluster.ts';

type Values = Readonly<Record<string, unknown>>;

const RESOURCE_FIELDS = ['resources', 'mysqlOperatorSidecarResources', 'metricsExporterResources', 'ptHeartbeatResources'] as const;

function asValues(v: unknown): Values {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Values) : {};
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** `[field, value]` of every quantity the user's spec puts into a rendered object. */
function quantities(spec: MysqlClusterSpec): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const requirements = (at: string, r: unknown): void => {
    for (const part of ['requests', 'limits']) {
      for (const [k, v] of Object.entries(asValues(asValues(r)[part]))) out.push([fieldAt(`${at}.${part}`, [k]), v]);
    }
  };
  const sizeLimit = (at: string, emptyDir: unknown): void => {
    const limit = asValues(emptyDir).sizeLimit;
    if (limit !== undefined) out.push([`${at}.sizeLimit`, limit]);
  };
  const podSpec = asValues(spec.podSpec);
  for (const f of RESOURCE_FIELDS) requirements(`spec.podSpec.${f}`, podSpec[f]);
  for (const list of ['initContainers', 'containers']) {
    for (const [i, c] of asList(podSpec[list]).entries()) requirements(`spec.podSpec.${list}[${i}].resources`, asValues(c).resources);
  }
  for (const [i, v] of asList(podSpec.volumes).entries()) sizeLimit(`spec.podSpec.volumes[${i}].emptyDir`, asValues(v).emptyDir);
  const volumeSpec = asValues(spec.volumeSpec);
  requirements('spec.volumeSpec.persistentVolumeClaim.resources', asValues(volumeSpec.persistentVolumeClaim).resources);
  sizeLimit('spec.volumeSpec.emptyDir', volumeSpec.emptyDir);
  if (spec.tmpfsSize !== undefined && spec.tmpfsSize !== '') out.push(['spec.tmpfsSize', spec.tmpfsSize]);
  return out;
}

function quantityProblems(spec: MysqlClusterSpec): Problem[] {
  const out: Problem[] = [];
  for (const [field, value] of quantities(spec)) {
    const why = quantityProblem(value);
    if (why) out.push({ reason: CLUSTER_REASONS.invalidQuantity, message: `${field} is ${JSON.stringify(value)}: ${why}` });
  }
  return out;
}

/** PodDisruptionBudget minAvailable: an integer >= 0 or a percentage up to 100% (policy/v1 validation). */
function minAvailableProblems(spec: MysqlClusterSpec): Problem[] {
  const v = spec.minAvailable;
  if (v === undefined || v === '') return [];
  const refuse = (why: string): Problem[] => [
    { reason: CLUSTER_REASONS.invalidMinAvailable, message: `spec.minAvailable is ${JSON.stringify(v)}: ${why}` },
  ];
  if (typeof v === 'number') return v < 0 ? refuse('it must be greater than or equal to 0') : [];
  if (!/^[0-9]+%$/.test(v)) return refuse('a string must be a percentage such as "50%" (a number of pods is written without quotes)');
  return Number(v.slice(0, -1)) > 100 ? refuse('it must not be greater than 100%') : [];
}

/** What the API server would refuse in the rendered objects, named by the user's fields. */
export function renderedValueProblems(spec: MysqlClusterSpec): Problem[] {
  return [...quantityProblems(spec), ...minAvailableProblems(spec)];
}
