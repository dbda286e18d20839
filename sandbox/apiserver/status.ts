// Kubernetes `Status` bodies with the exact field order of kube-apiserver v1.26
// (kind, apiVersion, metadata, status, message, reason, details, code) and the messages of the
// recorded fixtures. Handlers throw ApiError; the router turns it into the response.
import type { StatusCause } from './structural/index.ts';
import type { KObj, ResourceDef } from './types.ts';

export type { StatusCause };

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails, metadata: KObj = {}): KObj {
  const body: KObj = { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message, reason };
  if (details !== undefined) body.details = orderedDetails(details);
  body.code = code;
  return body;
}

function orderedDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name !== undefined) out.name = d.name;
  if (d.group !== undefined) out.group = d.group;
  if (d.kind !== undefined) out.kind = d.kind;
  if (d.uid !== undefined) out.uid = d.uid;
  if (d.causes !== undefined) out.causes = d.causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  return out;
}

export class ApiError extends Error {
  readonly code: number;
  readonly body: KObj;
  constructor(code: number, body: KObj) {
    super(String(body.message ?? `HTTP ${code}`));
    this.code = code;
    this.body = body;
  }
}

function qualified(def: ResourceDef): string {
  return def.group === '' ? def.resource : `${def.resource}.${def.group}`;
}

/** `{ name, group?, kind }`: `kind` is the resource name, except for Invalid (the kind). */
function nameDetails(def: ResourceDef, name: string, kind = def.resource): StatusDetails {
  const d: StatusDetails = { name };
  if (def.group !== '') d.group = def.group;
  d.kind = kind;
  return d;
}

export function notFound(def: ResourceDef, name: string): ApiError {
  return new ApiError(404, statusBody(404, 'NotFound', `${qualified(def)} "${name}" not found`, nameDetails(def, name)));
}

export function alreadyExists(def: ResourceDef, name: string): ApiError {
  return new ApiError(409, statusBody(409, 'AlreadyExists', `${qualified(def)} "${name}" already exists`, nameDetails(def, name)));
}

export function conflict(
  def: ResourceDef,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): ApiError {
  return new ApiError(
    409,
    statusBody(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(def)} "${name}": ${why}`, nameDetails(def, name)),
  );
}

export function invalid(def: ResourceDef, name: string, causes: StatusCause[]): ApiError {
  const kindGroup = def.group === '' ? def.kind : `${def.kind}.${def.group}`;
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const details: StatusDetails = { ...nameDetails(def, name, def.kind), causes };
  return new ApiError(422, statusBody(422, 'Invalid', `${kindGroup} "${name}" is invalid: ${summary}`, details));
}

export function genericInvalid(): ApiError {
  return new ApiError(422, statusBody(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, statusBody(400, 'BadRequest', message));
}

export function methodNotAllowed(): ApiError {
  return new ApiError(405, statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
}

export function resourceNotFound(): ApiError {
  return new ApiError(404, statusBody(404, 'NotFound', 'the server could not find the requested resource', {}));
}

export function unsupportedPatch(accepted: string[]): ApiError {
  return new ApiError(
    415,
    statusBody(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  );
}

export function notAcceptable(): ApiError {
  return new ApiError(
    406,
    statusBody(
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    ),
  );
}

export function expired(message: string, metadata: KObj = {}): ApiError {
  return new ApiError(410, statusBody(410, 'Expired', message, undefined, metadata));
}

export function forbidden(message: string, details?: StatusDetails): ApiError {
  return new ApiError(403, statusBody(403, 'Forbidden', message, details));
}

export function unauthorized(): ApiError {
  return new ApiError(401, statusBody(401, 'Unauthorized', 'Unauthorized'));
}

export function internalError(message: string): ApiError {
  return new ApiError(
    500,
    statusBody(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ reason: 'UnexpectedServerResponse', message, field: '' }],
    }),
  );
}

/** A Status an injected fault answers with: the reason real servers give for that code. */
export function faultStatus(code: number, message?: string): ApiError {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    410: 'Expired',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  const reason = reasons[code] ?? 'Unknown';
  return new ApiError(code, statusBody(code, reason, message ?? `injected fault: ${reason}`));
}

export function successStatus(def: ResourceDef, obj: KObj): KObj {
  const details: StatusDetails = { ...nameDetails(def, obj.metadata.name), uid: obj.metadata.uid };
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
