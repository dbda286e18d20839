// Validation every object gets from the real server that operators trip over: metadata.name rules
// per kind, label keys and values, annotation size (k8s.io/apimachinery/pkg/api/validation), and
// the keys and base64 of ConfigMap/Secret data. The test server refuses the same objects.
import type { StatusCause } from './status.ts';
import type { KObj } from './types.ts';

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_DETAIL =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const TOTAL_ANNOTATION_SIZE = 256 * 1024;

function invalid(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

/** IsQualifiedName: label keys, finalizers, an Event's reportingController. */
export function keyCauses(field: string, key: string): StatusCause[] {
  const parts = key.split('/');
  if (parts.length > 2)
    return [
      invalid(
        field,
        key,
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ),
    ];
  const name = parts[parts.length - 1]!;
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  const out: StatusCause[] = [];
  if (prefix !== undefined) {
    if (prefix.length === 0) out.push(invalid(field, key, 'prefix part must be non-empty'));
    else if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      out.push(invalid(field, key, `prefix part ${DNS1123_SUBDOMAIN_DETAIL}`));
    }
  }
  if (name.length === 0) out.push(invalid(field, key, 'name part must be non-empty'));
  else if (name.length > 63) out.push(invalid(field, key, 'name part must be no more than 63 characters'));
  // Go checks the format whatever the length: an empty name part gets both causes.
  if (!QUALIFIED_NAME.test(name)) {
    out.push(
      invalid(
        field,
        key,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ),
    );
  }
  return out;
}

interface NameRule {
  pattern: RegExp;
  maxLength: number;
  detail: string;
}

const SUBDOMAIN_NAME: NameRule = { pattern: DNS1123_SUBDOMAIN, maxLength: 253, detail: DNS1123_SUBDOMAIN_DETAIL };
const LABEL_NAMES = new Map<string, NameRule>([
  [
    'services',
    {
      pattern: /^[a-z]([-a-z0-9]*[a-z0-9])?$/,
      maxLength: 63,
      detail:
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    },
  ],
  [
    'namespaces',
    {
      pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
      maxLength: 63,
      detail:
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    },
  ],
]);

/** metadata.name rules: namespaces are DNS-1123 labels, services DNS-1035 labels, the rest subdomains. */
export function nameCauses(resource: string, name: string): StatusCause[] {
  const rule = LABEL_NAMES.get(resource) ?? SUBDOMAIN_NAME;
  const out: StatusCause[] = [];
  if (name.length > rule.maxLength) out.push(invalid('metadata.name', name, `must be no more than ${rule.maxLength} characters`));
  if (!rule.pattern.test(name)) out.push(invalid('metadata.name', name, rule.detail));
  return out;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** Keys of ConfigMap/Secret data must be valid file names ([-._a-zA-Z0-9]+). */
export function dataKeyCauses(obj: KObj): StatusCause[] {
  const out: StatusCause[] = [];
  for (const field of ['data', 'binaryData']) {
    for (const k of Object.keys((obj[field] ?? {}) as KObj)) {
      if (k.length <= 253 && CONFIG_KEY.test(k)) continue;
      out.push(
        invalid(
          `${field}[${k}]`,
          k,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        ),
      );
    }
  }
  return out;
}

/** Offset of the first byte Go's base64 decoder refuses, or -1 when `s` is valid standard base64. */
export function base64ErrorAt(s: string): number {
  const bad = s.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return bad;
  const pad = s.indexOf('=');
  if (pad >= 0 && !/^={1,2}$/.test(s.slice(pad))) return pad;
  if (s.length % 4 !== 0) return s.length - (s.length % 4);
  return -1;
}

/** ObjectMeta rules of a create, or of an update when `old` (the stored metadata) is given;
 * `kubeFinalizers` for the kinds validated by pkg/apis/core (built-in kinds but CRDs). */
export function metadataCauses(meta: KObj, old?: KObj, kubeFinalizers = false): StatusCause[] {
  const out: StatusCause[] = old ? newFinalizerCauses(meta, old) : [];
  for (const [k, v] of Object.entries((meta.labels ?? {}) as Record<string, unknown>)) {
    out.push(...keyCauses('metadata.labels', k));
    const value = String(v);
    if (value.length > 63) out.push(invalid('metadata.labels', value, 'must be no more than 63 characters'));
    if (!LABEL_VALUE.test(value)) {
      out.push(
        invalid(
          'metadata.labels',
          value,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
      );
    }
  }
  let size = 0;
  for (const [k, v] of Object.entries((meta.annotations ?? {}) as Record<string, unknown>)) {
    out.push(...keyCauses('metadata.annotations', k));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE) {
    out.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE} bytes`,
      field: 'metadata.annotations',
    });
  }
  out.push(...ownerReferenceCauses(meta), ...finalizerCauses(meta));
  if (kubeFinalizers) out.push(...kubeFinalizerCauses(meta));
  return out;
}

const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** validateKubeFinalizerName, after the generic rules: a finalizer of a built-in kind without a
 * domain prefix must be one of the standard names, checked per index. */
function kubeFinalizerCauses(meta: KObj): StatusCause[] {
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers.map(String) : [];
  return finalizers.flatMap((f, i) =>
    f.includes('/') || STANDARD_FINALIZERS.includes(f)
      ? []
      : [invalid(`metadata.finalizers[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified')],
  );
}

const SYSTEM_FINALIZERS = ['orphan', 'foregroundDeletion'];

/** Go's %#v of a []string, as field errors print slices. */
function goStrings(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/**
 * metadata.finalizers (ValidateFinalizers): each a qualified name, and not both `orphan` and
 * `foregroundDeletion`.
 */
function finalizerCauses(meta: KObj): StatusCause[] {
  const field = 'metadata.finalizers';
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers.map(String) : [];
  const out: StatusCause[] = [];
  // A finalizer is a qualified name, checked as label keys are (IsQualifiedName).
  for (const f of finalizers) out.push(...keyCauses(field, f));
  if (SYSTEM_FINALIZERS.every((s) => finalizers.includes(s))) {
    out.push(invalidValue(field, goStrings(finalizers), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return out;
}

/** While the object is being deleted, no finalizer may be added (ValidateNoNewFinalizers). */
function newFinalizerCauses(meta: KObj, old: KObj): StatusCause[] {
  if (!old.deletionTimestamp) return [];
  const finalizers: string[] = Array.isArray(meta.finalizers) ? meta.finalizers.map(String) : [];
  const before = new Set(Array.isArray(old.finalizers) ? old.finalizers.map(String) : []);
  const added = [...new Set(finalizers.filter((f) => !before.has(f)))].sort();
  if (added.length === 0) return [];
  return [
    {
      reason: 'FieldValueForbidden',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(added)}`,
      field: 'metadata.finalizers',
    },
  ];
}

function invalidValue(field: string, shown: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}`, field };
}

/** metadata.ownerReferences (ValidateOwnerReferences of v1.26): required parts, at most one controller. */
function ownerReferenceCauses(meta: KObj): StatusCause[] {
  const field = 'metadata.ownerReferences';
  const refs: KObj[] = Array.isArray(meta.ownerReferences)
    ? meta.ownerReferences.filter((r: unknown) => r !== null && typeof r === 'object')
    : [];
  const out: StatusCause[] = [];
  let firstController = '';
  for (const ref of refs) {
    const apiVersion = String(ref.apiVersion ?? '');
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (version === '') out.push(invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref.kind) out.push(invalid(`${field}.kind`, String(ref.kind ?? ''), 'kind must not be empty'));
    if (!ref.name) out.push(invalid(`${field}.name`, String(ref.name ?? ''), 'name must not be empty'));
    if (!ref.uid) out.push(invalid(`${field}.uid`, String(ref.uid ?? ''), 'uid must not be empty'));
    if (apiVersion === 'v1' && ref.kind === 'Event') {
      out.push(invalidValue(field, goOwnerReference(ref), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
      if (firstController === '') firstController = current;
      else {
        out.push(
          invalidValue(
            field,
            `[]v1.OwnerReference{${refs.map(goOwnerReference).join(', ')}}`,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      }
    }
  }
  return out;
}

/** Go's %#v of a v1.OwnerReference; the real server prints the pointers' addresses, this a fixed one. */
function goOwnerReference(ref: KObj): string {
  const ptr = (v: unknown) => (v === undefined || v === null ? '(*bool)(nil)' : '(*bool)(0xc000000000)');
  return `v1.OwnerReference{APIVersion:${JSON.stringify(String(ref.apiVersion ?? ''))}, Kind:${JSON.stringify(String(ref.kind ?? ''))}, Name:${JSON.stringify(String(ref.name ?? ''))}, UID:${JSON.stringify(String(ref.uid ?? ''))}, Controller:${ptr(ref.controller)}, BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)}}`;
}
