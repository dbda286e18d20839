// What kube-apiserver v1.26 validation refuses in built-in kinds beyond what an OpenAPI schema can
// say (cross-field and value rules), with the messages of pkg/apis/*/validation and
// apimachinery's field.Error rendering (Go's %#v for values without a String method).
import { canonicalQuantity } from '../../src/api/quantity.ts';
import { keyCauses } from './meta-validation.ts';
import type { StatusCause } from './status.ts';
import { resourceKey, type KObj, type ResourceDef } from './types.ts';

const invalid = (field: string, value: string, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${value}: ${detail}`,
  field,
});
const required = (field: string, detail = ''): StatusCause => ({
  reason: 'FieldValueRequired',
  message: detail ? `Required value: ${detail}` : 'Required value',
  field,
});
const notSupported = (field: string, value: unknown, allowed: string[]): StatusCause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value ?? '')}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
  field,
});
const duplicate = (field: string, value: string): StatusCause => ({
  reason: 'FieldValueDuplicate',
  message: `Duplicate value: ${value}`,
  field,
});

const PORT_RANGE = 'must be between 1 and 65535, inclusive';

/** Go's %#v of a map[string]string (keys sorted). */
function goMap(m: unknown): string {
  if (!m || typeof m !== 'object') return 'map[string]string(nil)';
  const entries = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify((m as KObj)[k])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/** Go's %#v of an intstr.IntOrString. */
function goIntOrString(v: unknown): string {
  return typeof v === 'number'
    ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`;
}

function selectorMatches(selector: KObj, labels: KObj): boolean {
  for (const [k, v] of Object.entries((selector.matchLabels ?? {}) as KObj)) if (labels[k] !== v) return false;
  for (const r of (selector.matchExpressions ?? []) as KObj[]) {
    const has = Object.hasOwn(labels, r.key);
    const values = (r.values ?? []) as string[];
    const ok =
      r.operator === 'In'
        ? has && values.includes(labels[r.key])
        : r.operator === 'NotIn'
          ? !has || !values.includes(labels[r.key])
          : r.operator === 'Exists'
            ? has
            : !has;
    if (!ok) return false;
  }
  return true;
}

/** A selected pod template's labels (apps/v1 ValidatePodTemplateSpecForStatefulSet / ReplicaSet). */
function templateCauses(spec: KObj, restartPolicies: string[] | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  const labels = (spec.template?.metadata?.labels ?? {}) as KObj;
  const selector = spec.selector as KObj | undefined;
  const empty = !selector || Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0;
  if (!selector || !empty) {
    if (!selector || !selectorMatches(selector, labels)) {
      out.push(
        invalid('spec.template.metadata.labels', goMap(spec.template?.metadata?.labels), '`selector` does not match template `labels`'),
      );
    }
  }
  const policy = spec.template?.spec?.restartPolicy;
  if (restartPolicies && !restartPolicies.includes(policy))
    out.push(notSupported('spec.template.spec.restartPolicy', policy, restartPolicies));
  return out;
}

function containerCauses(podSpec: KObj | undefined, at: string): StatusCause[] {
  const out: StatusCause[] = [];
  for (const list of ['initContainers', 'containers']) {
    ((podSpec?.[list] ?? []) as KObj[]).forEach((c, i) => {
      const requests = (c.resources?.requests ?? {}) as KObj;
      const limits = (c.resources?.limits ?? {}) as KObj;
      for (const [name, q] of Object.entries(requests)) {
        if (limits[name] === undefined || compareQuantities(String(q), String(limits[name])) <= 0) continue;
        out.push(
          invalid(`${at}.${list}[${i}].resources.requests`, JSON.stringify(String(q)), `must be less than or equal to ${name} limit`),
        );
      }
    });
  }
  return out;
}

/** Sign of a - b for two stored (canonical or kept) quantities. */
export function compareQuantities(a: string, b: string): number {
  const scaled = (q: string): bigint => {
    const c = canonicalQuantity(q);
    const m = /^([+-]?[0-9]+)(.*)$/.exec(c)!;
    const suffix: Record<string, bigint> = {
      n: 1n,
      u: 1000n,
      m: 1000000n,
      '': 10n ** 9n,
      k: 10n ** 12n,
      M: 10n ** 15n,
      G: 10n ** 18n,
      T: 10n ** 21n,
      P: 10n ** 24n,
      E: 10n ** 27n,
      Ki: 1024n * 10n ** 9n,
      Mi: 1024n ** 2n * 10n ** 9n,
      Gi: 1024n ** 3n * 10n ** 9n,
      Ti: 1024n ** 4n * 10n ** 9n,
      Pi: 1024n ** 5n * 10n ** 9n,
      Ei: 1024n ** 6n * 10n ** 9n,
    };
    const e = /^e(-?[0-9]+)$/.exec(m[2]!);
    if (e) {
      const exp = Number(e[1]) + 9;
      return exp >= 0 ? BigInt(m[1]!) * 10n ** BigInt(exp) : BigInt(m[1]!) / 10n ** BigInt(-exp);
    }
    return BigInt(m[1]!) * (suffix[m[2]!] ?? 1n);
  };
  const d = scaled(a) - scaled(b);
  return d > 0n ? 1 : d < 0n ? -1 : 0;
}

function percentOver100(field: string, v: unknown): StatusCause[] {
  if (typeof v !== 'string' || !/^[0-9]+%$/.test(v) || Number(v.slice(0, -1)) <= 100) return [];
  return [invalid(field, goIntOrString(v), 'must not be greater than 100%')];
}

function servicePortCauses(spec: KObj): StatusCause[] {
  const out: StatusCause[] = [];
  const ports = (spec.ports ?? []) as KObj[];
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    if (ports.length > 1 && !p.name) out.push(required(`${at}.name`));
    else if (p.name) {
      if (names.has(p.name)) out.push(duplicate(`${at}.name`, JSON.stringify(p.name)));
      names.add(p.name);
    }
    if (!(p.port >= 1 && p.port <= 65535)) out.push(invalid(`${at}.port`, String(p.port ?? 0), PORT_RANGE));
    if (typeof p.targetPort === 'number' && !(p.targetPort >= 1 && p.targetPort <= 65535))
      out.push(invalid(`${at}.targetPort`, String(p.targetPort), PORT_RANGE));
    const key = `${p.protocol}/${p.port}`;
    if (seen.has(key)) {
      out.push(
        duplicate(
          at,
          `core.ServicePort{Name:"", Protocol:${JSON.stringify(p.protocol)}, AppProtocol:(*string)(nil), Port:${p.port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
        ),
      );
    }
    seen.add(key);
  });
  return out;
}

const SECRET_KEYS: Record<string, string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

/** What a rule may depend on besides the object: the request's API version and whether it creates. */
export interface RuleContext {
  requestVersion: string;
  creating: boolean;
}

type Rule = (o: KObj, ctx: RuleContext) => StatusCause[];

const RULES: Record<string, Rule> = {
  'statefulsets.apps': (o) => [
    ...templateCauses(o.spec ?? {}, ['Always']),
    ...containerCauses(o.spec?.template?.spec, 'spec.template.spec'),
  ],
  'deployments.apps': (o) => [
    ...templateCauses(o.spec ?? {}, ['Always']),
    ...containerCauses(o.spec?.template?.spec, 'spec.template.spec'),
  ],
  'replicasets.apps': (o) => [
    ...templateCauses(o.spec ?? {}, ['Always']),
    ...containerCauses(o.spec?.template?.spec, 'spec.template.spec'),
  ],
  'jobs.batch': (o) => {
    // validateJobSpec: a policy left out is defaulted to Always, so both read as "Required value".
    const policy = o.spec?.template?.spec?.restartPolicy;
    const field = 'spec.template.spec.restartPolicy';
    const out =
      policy === 'OnFailure' || policy === 'Never'
        ? []
        : policy === 'Always' || policy === undefined || policy === ''
          ? [required(field, 'valid values: "OnFailure", "Never"')]
          : [notSupported(field, policy, ['OnFailure', 'Never'])];
    return [...out, ...containerCauses(o.spec?.template?.spec, 'spec.template.spec')];
  },
  pods: (o) => containerCauses(o.spec, 'spec'),
  'poddisruptionbudgets.policy': (o) => {
    const s = (o.spec ?? {}) as KObj;
    const out: StatusCause[] = [];
    if (s.minAvailable !== undefined && s.maxUnavailable !== undefined) {
      out.push(
        invalid(
          'spec',
          'policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}',
          'minAvailable and maxUnavailable cannot be both set',
        ),
      );
    }
    for (const k of ['minAvailable', 'maxUnavailable']) {
      const v = s[k];
      if (v === undefined) continue;
      if (typeof v === 'number' && v < 0) out.push(invalid(`spec.${k}`, goIntOrString(v), 'must be greater than or equal to 0'));
      if (typeof v === 'string' && !/^[0-9]+%$/.test(v))
        out.push(
          invalid(
            `spec.${k}`,
            goIntOrString(v),
            "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
          ),
        );
      out.push(...percentOver100(`spec.${k}`, v));
    }
    return out;
  },
  services: (o) => servicePortCauses(o.spec ?? {}),
  secrets: (o) => (SECRET_KEYS[o.type] ?? []).filter((k) => o.data?.[k] === undefined).map((k) => required(`data[${k}]`)),
  persistentvolumeclaims: (o) => {
    const s = (o.spec ?? {}) as KObj;
    const modes = (s.accessModes ?? []) as string[];
    const out: StatusCause[] = modes.length === 0 ? [required('spec.accessModes', 'at least 1 access mode is required')] : [];
    for (const m of modes) if (!ACCESS_MODES.includes(m)) out.push(notSupported('spec.accessModes', m, ACCESS_MODES));
    if (s.resources?.requests?.storage === undefined) out.push(required('spec.resources[storage]'));
    return out;
  },
  'leases.coordination.k8s.io': (o) => {
    const s = (o.spec ?? {}) as KObj;
    const out: StatusCause[] = [];
    if (typeof s.leaseDurationSeconds === 'number' && s.leaseDurationSeconds <= 0)
      out.push(invalid('spec.leaseDurationSeconds', String(s.leaseDurationSeconds), 'must be greater than 0'));
    if (typeof s.leaseTransitions === 'number' && s.leaseTransitions < 0)
      out.push(invalid('spec.leaseTransitions', String(s.leaseTransitions), 'must be greater than or equal to 0'));
    return out;
  },
  events: (o, ctx) => {
    const ns = o.metadata?.namespace ?? '';
    const involved = String(o.involvedObject?.namespace ?? '');
    const timed = o.eventTime !== undefined && o.eventTime !== null;
    const ok =
      involved === '' ? (timed ? ns === 'default' || ns === 'kube-system' : ns === '' || ns === 'default') : timed || ns === involved;
    const out = ok ? [] : [invalid('involvedObject.namespace', JSON.stringify(involved), 'does not match event.namespace')];
    if (timed) out.push(...timedEventCauses(o, ctx.requestVersion === 'v1' ? 'reportingComponent' : 'reportingController'));
    return ctx.creating && ctx.requestVersion === 'events.k8s.io/v1' ? [...out, ...eventsV1CreateCauses(o)] : out;
  },
};

/** legacyValidateEvent of v1.26 for an Event with eventTime (both APIs): the paths are the
 * events.k8s.io names but the reporting controller's, which is `reportingComponent` when the
 * request came through core/v1; lengths are Go's byte counts. Messages are refused, never
 * truncated (the client's recorder truncates, not the server). */
function timedEventCauses(o: KObj, controllerField: string): StatusCause[] {
  const out: StatusCause[] = [];
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const atMost = (field: string, value: string, limit: number) => {
    if (Buffer.byteLength(value) > limit) out.push(invalid(field, '""', `can have at most ${limit} characters`));
  };
  const controller = text(o.reportingComponent);
  if (controller === '') out.push(required(controllerField));
  out.push(...keyCauses(controllerField, controller));
  if (text(o.reportingInstance) === '') out.push(required('reportingInstance'));
  atMost('reportingInstance', text(o.reportingInstance), 128);
  if (text(o.action) === '') out.push(required('action'));
  atMost('action', text(o.action), 128);
  if (text(o.reason) === '') out.push(required('reason'));
  atMost('reason', text(o.reason), 128);
  atMost('message', text(o.message), 1024);
  return out;
}

/** ValidateEventCreate's strict part, for Events created through events.k8s.io/v1 (core/v1 keeps
 * the legacy rules for old clients). The paths are the internal (core) field names, as in v1.26. */
function eventsV1CreateCauses(o: KObj): StatusCause[] {
  const out: StatusCause[] = [];
  const unset = (v: unknown) => v === undefined || v === null;
  if (o.series) {
    if (!(Number(o.series.count ?? 0) >= 2)) out.push(invalid('series.count', '""', 'should be at least 2'));
    if (unset(o.series.lastObservedTime)) out.push(required('series.lastObservedTime'));
  }
  if (unset(o.eventTime)) out.push(required('eventTime'));
  if (o.type !== 'Normal' && o.type !== 'Warning') out.push(invalid('type', '""', `has invalid value: ${o.type ?? ''}`));
  if (!unset(o.firstTimestamp)) out.push(invalid('firstTimestamp', '""', 'needs to be unset'));
  if (!unset(o.lastTimestamp)) out.push(invalid('lastTimestamp', '""', 'needs to be unset'));
  if (o.count) out.push(invalid('count', '""', 'needs to be unset'));
  if (o.source?.component || o.source?.host) out.push(invalid('source', '""', 'needs to be unset'));
  return out;
}

/** The cross-field rules of `def`'s kind that `obj` (decoded and defaulted) breaks. */
export function ruleCauses(def: ResourceDef, obj: KObj, ctx: RuleContext): StatusCause[] {
  return RULES[resourceKey(def)]?.(obj, ctx) ?? [];
}
