// What kube-apiserver v1.26 checks in a request before it reaches storage: the options of each verb
// (k8s.io/apimachinery/pkg/apis/meta/v1/validation: ValidateCreateOptions, ValidateUpdateOptions,
// ValidatePatchOptions, ValidateDeleteOptions; meta/internalversion/validation: ValidateListOptions),
// each refused as a 422 `<Kind>Options.meta.k8s.io "" is invalid`; the body's media type (415);
// and resourceVersion parameters, parsed as the watch cache parses them (APIObjectVersioner).
import { ApiError, statusBody, type StatusCause } from './status.ts';

const FIELD_MANAGER_MAX_LENGTH = 128;
const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'];
const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];
/** What the real server decodes request bodies from, in its order (Codecs.SupportedMediaTypes). */
const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

function optionsInvalid(kind: string, causes: StatusCause[]): ApiError {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new ApiError(
    422,
    statusBody(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${summary}`, { group: 'meta.k8s.io', kind, causes }),
  );
}

function notSupported(field: string, shown: string, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${shown}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
    field,
  };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** Go's strconv.Quote for the characters a query string can carry. */
export function goQuote(s: string): string {
  return `"${[...s]
    .map((ch) => {
      const code = ch.codePointAt(0)!;
      if (ch === '"' || ch === '\\') return `\\${ch}`;
      const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
      if (named[ch]) return named[ch];
      if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
      if (!isGoPrintable(ch))
        return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
      return ch;
    })
    .join('')}"`;
}

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isGoPrintable(ch: string): boolean {
  return ch === ' ' || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch);
}

function fieldManagerCauses(manager: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) {
    out.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${FIELD_MANAGER_MAX_LENGTH} bytes`,
      field: 'fieldManager',
    });
  }
  let at = 0;
  for (const ch of manager) {
    if (!isGoPrintable(ch)) {
      const u = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      out.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goQuote(manager)}: invalid character ${u} (at position ${at})`,
        field: 'fieldManager',
      });
    }
    at += Buffer.byteLength(ch);
  }
  return out;
}

function dryRunCauses(dryRun: string[]): StatusCause[] {
  if (dryRun.every((v) => v === 'All')) return [];
  return [notSupported('dryRun', `[]string{${dryRun.map(goQuote).join(', ')}}`, ['All'])];
}

function fieldValidationCauses(value: string): StatusCause[] {
  return FIELD_VALIDATION_VALUES.includes(value) ? [] : [notSupported('fieldValidation', goQuote(value), FIELD_VALIDATION_VALUES)];
}

/** The options of create, update and patch, checked as their handlers check them. */
export function checkWriteOptions(verb: 'create' | 'update' | 'patch', q: URLSearchParams, apply: boolean): void {
  const manager = q.get('fieldManager') ?? '';
  const causes: StatusCause[] = [];
  if (verb === 'patch') {
    if (!apply && q.has('force')) causes.push(forbidden('force', 'may not be specified for non-apply patch'));
    if (apply && manager === '')
      causes.push({ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' });
  }
  causes.push(
    ...fieldManagerCauses(manager),
    ...dryRunCauses(q.getAll('dryRun')),
    ...fieldValidationCauses(q.get('fieldValidation') ?? ''),
  );
  if (causes.length > 0) throw optionsInvalid(`${verb[0]!.toUpperCase()}${verb.slice(1)}Options`, causes);
}

export interface DeleteRequestOptions {
  propagationPolicy?: string;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: string[];
}

/**
 * DeleteOptions come from the body when there is one, else from the query (never both: the
 * handler decodes one or the other), then ValidateDeleteOptions.
 */
export function deleteOptions(q: URLSearchParams, body: Record<string, unknown> | undefined): DeleteRequestOptions {
  let o: DeleteRequestOptions;
  if (body) {
    o = { dryRun: Array.isArray(body.dryRun) ? body.dryRun.map(String) : [] };
    if (typeof body.propagationPolicy === 'string') o.propagationPolicy = body.propagationPolicy;
    if (typeof body.orphanDependents === 'boolean') o.orphanDependents = body.orphanDependents;
    if (typeof body.gracePeriodSeconds === 'number') o.gracePeriodSeconds = body.gracePeriodSeconds;
    if (body.preconditions !== null && typeof body.preconditions === 'object')
      o.preconditions = body.preconditions as DeleteRequestOptions['preconditions'];
  } else {
    o = { dryRun: q.getAll('dryRun') };
    const policy = q.get('propagationPolicy');
    if (policy !== null) o.propagationPolicy = policy;
    const orphan = q.get('orphanDependents');
    if (orphan !== null) o.orphanDependents = orphan === 'true';
    const grace = q.get('gracePeriodSeconds');
    if (grace !== null && grace !== '' && Number.isFinite(Number(grace))) o.gracePeriodSeconds = Number(grace);
  }
  const causes: StatusCause[] = [];
  if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goQuote(o.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
      field: 'propagationPolicy',
    });
  }
  if (o.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(o.propagationPolicy)) {
    causes.push(notSupported('propagationPolicy', goQuote(o.propagationPolicy), [...PROPAGATION_POLICIES, 'nil']));
  }
  causes.push(...dryRunCauses(o.dryRun));
  if (causes.length > 0) throw optionsInvalid('DeleteOptions', causes);
  return o;
}

/** ValidateListOptions of v1.26 (list and watch). */
export function checkListOptions(q: URLSearchParams, watch: boolean): void {
  const match = q.get('resourceVersionMatch') ?? '';
  if (match === '') return;
  const rv = q.get('resourceVersion') ?? '';
  const causes: StatusCause[] = [];
  const field = 'resourceVersionMatch';
  if (watch) causes.push(forbidden(field, 'resourceVersionMatch is forbidden for watch'));
  if (rv === '') causes.push(forbidden(field, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
  if (q.get('continue')) causes.push(forbidden(field, 'resourceVersionMatch is forbidden when continue is provided'));
  if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported(field, goQuote(match), ['Exact', 'NotOlderThan', '']));
  if (match === 'Exact' && rv === '0') causes.push(forbidden(field, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  if (causes.length > 0) throw optionsInvalid('ListOptions', causes);
}

/**
 * A resourceVersion that is not a decimal uint64 (APIObjectVersioner.ParseResourceVersion), as each
 * path reports it: a paged list, served by etcd, as 400; a watch, a get or an unpaged list through
 * the watch cache as a storage error that no layer converts, so a 500 with no reason (a real
 * v1.26 with its watch cache on answered a watch so; only etcd's own watch says 422).
 */
export function checkResourceVersion(rv: string | null, how: 'watch' | 'get' | 'list' | 'pagedList'): void {
  if (rv === null || rv === '' || rv === '0' || (/^\d{1,20}$/.test(rv) && BigInt(rv) <= 0xffffffffffffffffn)) return;
  const parseError = /^\d+$/.test(rv)
    ? `strconv.ParseUint: parsing ${goQuote(rv)}: value out of range`
    : `strconv.ParseUint: parsing ${goQuote(rv)}: invalid syntax`;
  const cause: StatusCause = {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${goQuote(rv)}: ${parseError}`,
    field: 'resourceVersion',
  };
  const text = `${cause.field}: ${cause.message}`;
  if (how === 'pagedList') throw new ApiError(400, statusBody(400, 'BadRequest', `invalid resource version: ${text}`));
  const body = statusBody(500, '', text);
  delete body.reason;
  throw new ApiError(500, body);
}

/**
 * The media type of a create, update or delete body: JSON (also when none is given), YAML,
 * protobuf (decoded by protobuf.ts for the kinds it knows), or 415 with the real message.
 */
export function bodyMediaType(contentType: string | undefined): 'json' | 'yaml' | 'protobuf' {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/json') return 'json';
  if (type === 'application/yaml') return 'yaml';
  if (type === 'application/vnd.kubernetes.protobuf') return 'protobuf';
  throw new ApiError(
    415,
    statusBody(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${BODY_MEDIA_TYPES.join(', ')}`,
    ),
  );
}
