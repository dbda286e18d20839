// The API's authentication as Orchestrator 3.2.6 answers it (recorded in
// test/fixtures/orchestrator/auth/): with `basic` or `multi`, every path (the probes' too) wants a
// Basic Authorization header and answers 401 `Not Authorized` with a challenge otherwise; with
// `multi` the user `readonly` passes with any password and the write routes answer it with the
// HTTP 500 envelope `Unauthorized`.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Authentication } from './config.ts';

/** Who a request is: refused (401), the configured user, or multi's read-only user. */
export type Caller = 'refused' | 'admin' | 'readonly';

/** The user name multi lets in with any password, read-only. */
export const READONLY_USER = 'readonly';

/** The routes (first path part after /api) that call isAuthorizedForAction in 3.2.6 and that the stand-in serves. */
export const WRITE_ROUTES: ReadonlySet<string> = new Set([
  'discover',
  'forget',
  'begin-downtime',
  'end-downtime',
  'set-read-only',
  'set-writeable',
  'graceful-master-takeover',
  'graceful-master-takeover-auto',
  'force-master-failover',
  'ack-recovery',
]);

const same = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

export function callerOf(auth: Authentication, header: string | undefined): Caller {
  if (auth.method === 'none') return 'admin';
  // The scheme is matched as sent by clients ("Basic "): 3.2.6 refused "basic " (recorded).
  const m = /^Basic ([A-Za-z0-9+/=]*)$/.exec(header ?? '');
  if (!m) return 'refused';
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'refused';
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (auth.method === 'multi' && user === READONLY_USER) return 'readonly';
  return same(user, auth.user) && same(password, auth.password) ? 'admin' : 'refused';
}

/** The 401 3.2.6 sends (headers as recorded, less Date and Content-Length). */
export const UNAUTHORIZED = {
  status: 401,
  headers: {
    'Content-Type': 'text/plain; charset=utf-8',
    'Www-Authenticate': 'Basic realm="Authorization Required"',
    'X-Content-Type-Options': 'nosniff',
  },
  body: 'Not Authorized\n',
} as const;

/** The message of the HTTP 500 envelope a read-only caller gets on a write route. */
export const READONLY_REFUSED_MESSAGE = 'Unauthorized';
