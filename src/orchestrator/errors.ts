// Operational errors of Orchestrator access, as one class with a `kind` callers switch on.
// Messages name the route (the path below the API base) and never the base URL, which may carry
// basic-auth credentials; the HTTP library's own error (whose config holds them) is not kept.

export type OrchestratorErrorKind =
  /** Orchestrator does not know the instance ("Cannot read instance", ForgetInstance "not found"). */
  | 'unknown-instance'
  /** Orchestrator cannot map the cluster hint or alias to a cluster. */
  | 'unknown-cluster'
  /** Orchestrator itself did not answer: refused, reset, name unknown, or no answer in time. */
  | 'unreachable'
  /** Orchestrator answered, but it could not connect to the MySQL server it was asked about. */
  | 'mysql-unreachable'
  /** Orchestrator refused the credentials (401), or the user may only read (multi's `readonly`: "Unauthorized"). */
  | 'unauthorized'
  /** Orchestrator refused or failed the operation for another reason (its message is kept). */
  | 'failed'
  /** The answer is not what the recorded Orchestrator 3.2 sends: unrouted path, not JSON, a missing field. */
  | 'unexpected-response';

export class OrchestratorError extends Error {
  readonly kind: OrchestratorErrorKind;
  /** The request, e.g. `GET /instance/my-db-mysql-0.mysql.default/3306`. */
  readonly route: string;
  /** HTTP status, when Orchestrator answered. */
  readonly status: number | undefined;
  /** For unexpected-response: the field that is missing or of the wrong type, e.g. `Details.ReadOnly`. */
  readonly field: string | undefined;
  constructor(kind: OrchestratorErrorKind, route: string, detail: string, extra: { status?: number; field?: string } = {}) {
    super(`orchestrator ${route}: ${detail}`);
    this.name = 'OrchestratorError';
    this.kind = kind;
    this.route = route;
    this.status = extra.status;
    this.field = extra.field;
  }
}

export function isOrchestratorError(e: unknown): e is OrchestratorError {
  return e instanceof OrchestratorError;
}

// Orchestrator prefixes the messages it also logs with the log line's timestamp and level.
const LOG_PREFIX = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ERROR /;

/** Orchestrator's own words without the log prefix and trailing newline. */
export function cleanMessage(message: string): string {
  return message.replace(LOG_PREFIX, '').trim();
}

/** Kind of an `{Code:"ERROR", Message}` body, by the messages recorded from Orchestrator 3.2.6. */
export function kindOfMessage(message: string): OrchestratorErrorKind {
  const m = cleanMessage(message);
  if (m.startsWith('Cannot read instance:') || /^ForgetInstance\(\): instance .* not found$/.test(m)) return 'unknown-instance';
  // The hint routes (`master/:hint`, takeovers) and the alias routes (`cluster/alias/:alias`,
  // `cluster-info/alias/:alias`, `ack-recovery/cluster/alias/:alias`) word it differently.
  if (m.startsWith('Unable to determine cluster name') || m.startsWith('No cluster found for alias')) return 'unknown-cluster';
  if (/^dial tcp .*: (connect: |i\/o timeout)/.test(m)) return 'mysql-unreachable';
  // A write route asked by a user allowed to read only (3.2.6, multi's `readonly`).
  if (m === 'Unauthorized') return 'unauthorized';
  return 'failed';
}
