// Typed errors for the API server's answers, built from its `Status` body. Callers branch on the
// class (`err instanceof ConflictError`) or on `reason`, never on message text.
import { redactString } from '../redact.ts';

export interface StatusBody {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
  };
  metadata?: { continue?: string };
}

export class KubeApiError extends Error {
  readonly statusCode: number;
  readonly reason: string;
  readonly status: StatusBody | undefined;
  readonly method: string;
  readonly path: string;
  constructor(method: string, path: string, statusCode: number, status: StatusBody | undefined, text?: string) {
    const msg = status?.message ?? text?.trim() ?? '';
    super(redactString(`${method} ${path}: ${statusCode}${msg ? ` ${msg}` : ''}`));
    this.name = new.target.name;
    this.method = method;
    this.path = path;
    this.statusCode = statusCode;
    this.status = status;
    this.reason = status?.reason ?? '';
  }
}

export class NotFoundError extends KubeApiError {}
export class ConflictError extends KubeApiError {}
export class AlreadyExistsError extends KubeApiError {}
/** 410: the requested resourceVersion is older than the server keeps (relist needed). */
export class GoneError extends KubeApiError {}
export class InvalidError extends KubeApiError {
  /** `{ field, message }` per rejected field, from `details.causes`. */
  get causes(): Array<{ field: string; message: string }> {
    return (this.status?.details?.causes ?? []).map((c) => ({ field: c.field ?? '', message: c.message ?? '' }));
  }
}

/** Builds the most specific error for a non-2xx answer. */
export function apiError(method: string, path: string, statusCode: number, body: string): KubeApiError {
  let status: StatusBody | undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object' && (parsed as StatusBody).kind === 'Status') status = parsed as StatusBody;
  } catch {
    // a non-JSON body (e.g. text/plain "404 page not found") is kept as text
  }
  return statusError(method, path, statusCode, status, status ? undefined : body);
}

export function statusError(method: string, path: string, statusCode: number, status: StatusBody | undefined, text?: string): KubeApiError {
  const reason = status?.reason;
  if (statusCode === 404 || reason === 'NotFound') return new NotFoundError(method, path, statusCode, status, text);
  if (reason === 'AlreadyExists') return new AlreadyExistsError(method, path, statusCode, status, text);
  if (statusCode === 409 || reason === 'Conflict') return new ConflictError(method, path, statusCode, status, text);
  if (statusCode === 410 || reason === 'Expired' || reason === 'Gone') return new GoneError(method, path, statusCode, status, text);
  if (statusCode === 422 || reason === 'Invalid') return new InvalidError(method, path, statusCode, status, text);
  return new KubeApiError(method, path, statusCode, status, text);
}

export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}
export function isConflict(err: unknown): err is ConflictError {
  return err instanceof ConflictError;
}
export function isAlreadyExists(err: unknown): err is AlreadyExistsError {
  return err instanceof AlreadyExistsError;
}
