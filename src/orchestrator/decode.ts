// Defensive reading of Orchestrator's JSON: fields the project does not read are ignored, a field
// it reads that is missing or of another type is an unexpected-response error naming the field
// path and the route, so a version change shows up as one precise message and not as `undefined`
// travelling into a decision.
import { OrchestratorError } from './errors.ts';

export type Json = Record<string, unknown>;

/** Where a value sits: the route it came from and its path inside the body. */
export interface At {
  route: string;
  path: string;
}

function child(at: At, name: string): At {
  return { route: at.route, path: at.path === '' ? name : `${at.path}.${name}` };
}

function bad(at: At, what: string): OrchestratorError {
  const field = at.path === '' ? '(body)' : at.path;
  return new OrchestratorError('unexpected-response', at.route, `${field} ${what}`, { field });
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

export function asObject(v: unknown, at: At): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(at, `is ${typeName(v)}, expected an object`);
  return v as Json;
}

export function asString(v: unknown, at: At): string {
  if (typeof v !== 'string') throw bad(at, `is ${typeName(v)}, expected a string`);
  return v;
}

export function asArray<T>(v: unknown, at: At, each: (item: unknown, at: At) => T): T[] {
  if (!Array.isArray(v)) throw bad(at, `is ${typeName(v)}, expected an array`);
  return v.map((item, i) => each(item, { route: at.route, path: `${at.path}[${i}]` }));
}

function field(o: Json, name: string, at: At): [unknown, At] {
  const here = child(at, name);
  if (!(name in o)) throw bad(here, 'is missing');
  return [o[name], here];
}

export function str(o: Json, name: string, at: At): string {
  return asString(...field(o, name, at));
}

export function num(o: Json, name: string, at: At): number {
  const [v, here] = field(o, name, at);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(here, `is ${typeName(v)}, expected a number`);
  return v;
}

export function bool(o: Json, name: string, at: At): boolean {
  const [v, here] = field(o, name, at);
  if (typeof v !== 'boolean') throw bad(here, `is ${typeName(v)}, expected a boolean`);
  return v;
}

export function obj(o: Json, name: string, at: At): [Json, At] {
  const [v, here] = field(o, name, at);
  return [asObject(v, here), here];
}

export function list<T>(o: Json, name: string, at: At, each: (item: unknown, at: At) => T): T[] {
  const [v, here] = field(o, name, at);
  return asArray(v, here, each);
}

/** Go's sql.NullInt64 as Orchestrator serialises it: `{Int64, Valid}`; null when not Valid. */
export function nullInt(o: Json, name: string, at: At): number | null {
  const [v, here] = obj(o, name, at);
  return bool(v, 'Valid', here) ? num(v, 'Int64', here) : null;
}

/** An RFC3339 timestamp (LastSeenTimestamp, RecoveryStartTimestamp, AcknowledgedAt); `""` is null. */
export function time(o: Json, name: string, at: At): Date | null {
  const v = str(o, name, at);
  if (v === '') return null;
  const d = new Date(v);
  if (!/^\d{4}-\d\d-\d\dT/.test(v) || Number.isNaN(d.getTime())) throw bad(child(at, name), `is "${v}", expected an RFC3339 time`);
  return d;
}
