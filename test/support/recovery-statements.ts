// The statements a DeadMaster recovery sends to the dead master's replicas, reduced to steps per
// role (the promoted candidate, its sibling), so the stand-in's general log can be compared with
// 3.2.6's (test/fixtures/orchestrator/recovery-mariadb/<case>_statements.txt). Pure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOOKS } from './orchestrator-stand-in.ts';

export const RECOVERY_MARIADB = join(HOOKS, '..', 'recovery-mariadb');

/** One statement from a server's general log: when (ISO, UTC), on which server (host), its text. */
export interface LoggedStatement {
  at: string;
  server: string;
  text: string;
}

export type RecoveryStep = 'stop' | 'change-master' | 'reset' | 'writable' | 'start';

/**
 * The step a statement is, or null for the rest (reads, semi-sync settings, 3.2.6's
 * `change master to master_host='_'` before its `reset slave all`, super_read_only).
 */
export function stepOf(text: string): RecoveryStep | null {
  const t = text.trim().toLowerCase();
  if (/^stop (slave|replica)\s*$/.test(t)) return 'stop';
  if (/^change master to master_host='_'/.test(t)) return null;
  if (/^change (master|replication source) to\b/.test(t)) return 'change-master';
  if (/^reset (slave|replica)\b/.test(t)) return 'reset';
  if (/^set global read_only\s*=\s*(0|off)\b/.test(t)) return 'writable';
  if (/^start (slave|replica)\s*$/.test(t)) return 'start';
  return null;
}

export interface RecoverySteps {
  candidate: RecoveryStep[];
  sibling: RecoveryStep[];
  /** The first step on every replica is a STOP, and all of them come before any replica's second step. */
  allStoppedFirst: boolean;
}

/** Steps per role, in time order; `candidate` is the promoted (or refused) replica's host. */
export function recoverySteps(statements: readonly LoggedStatement[], candidate: string): RecoverySteps {
  const steps = [...statements]
    .sort((a, b) => a.at.localeCompare(b.at))
    .map((s) => ({ ...s, step: stepOf(s.text) }))
    .filter((s): s is LoggedStatement & { step: RecoveryStep } => s.step !== null);
  const servers = [...new Set(steps.map((s) => s.server))];
  const firsts = servers.map((srv) => steps.findIndex((s) => s.server === srv));
  const seconds = servers.map((srv) => steps.findIndex((s, i) => s.server === srv && i > steps.findIndex((x) => x.server === srv)));
  const lastFirst = Math.max(...firsts);
  const firstSecond = Math.min(...seconds.filter((i) => i >= 0));
  return {
    candidate: steps.filter((s) => s.server === candidate).map((s) => s.step),
    sibling: steps.filter((s) => s.server !== candidate).map((s) => s.step),
    allStoppedFirst: servers.length >= 2 && firsts.every((i) => steps[i]?.step === 'stop') && lastFirst < firstSecond,
  };
}

/** `<case>_statements.txt` of the recording: TAB-separated time, server, thread, command, text. */
export function recordedStatements(kase: string): LoggedStatement[] {
  return readFileSync(join(RECOVERY_MARIADB, `${kase}_statements.txt`), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split('\t'))
    .filter((f) => f[3] === 'Query')
    .map((f) => ({ at: f[0] ?? '', server: f[1] ?? '', text: f[4] ?? '' }));
}

/** The recovery's successor (or, failed, the replica the sibling was moved below) in a recording. */
export function recordedCandidate(kase: string): string {
  const moved = recordedStatements(kase).find((s) => /^change master to master_host='(?!_)/.test(s.text));
  const host = moved?.text.match(/master_host='([^']+)'/)?.[1];
  if (!host) throw new Error(`${kase}: no sibling moved in the recording`);
  return host;
}
