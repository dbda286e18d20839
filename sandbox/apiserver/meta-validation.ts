// ObjectMeta validation every kind gets (k8s.io/apimachinery/pkg/api/validation): label keys and
// values, annotation size. Operators trip over these on real clusters (63-character label values,
// huge last-applied annotations), so the test server refuses the same objects.
import type { StatusCause } from './status.ts';
import type { KObj } from './types.ts';

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const TOTAL_ANNOTATION_SIZE = 256 * 1024;

function invalid(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

function keyCauses(field: string, key: string): StatusCause[] {
  const parts = key.split('/');
  if (parts.length > 2) return [invalid(field, key, "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")];
  const name = parts[parts.length - 1]!;
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  const out: StatusCause[] = [];
  if (prefix !== undefined) {
    if (prefix.length === 0) out.push(invalid(field, key, 'prefix part must be non-empty'));
    else if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      out.push(invalid(field, key, "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
    }
  }
  if (name.length === 0) out.push(invalid(field, key, 'name part must be non-empty'));
  else if (name.length > 63) out.push(invalid(field, key, 'name part must be no more than 63 characters'));
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) {
    out.push(invalid(field, key, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
  }
  return out;
}

export function metadataCauses(meta: KObj): StatusCause[] {
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries((meta.labels ?? {}) as Record<string, unknown>)) {
    out.push(...keyCauses('metadata.labels', k));
    const value = String(v);
    if (value.length > 63) out.push(invalid('metadata.labels', value, 'must be no more than 63 characters'));
    if (!LABEL_VALUE.test(value)) {
      out.push(invalid('metadata.labels', value, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
    }
  }
  let size = 0;
  for (const [k, v] of Object.entries((meta.annotations ?? {}) as Record<string, unknown>)) {
    out.push(...keyCauses('metadata.annotations', k));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE) {
    out.push({ reason: 'FieldValueTooLong', message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE} bytes`, field: 'metadata.annotations' });
  }
  return out;
}
