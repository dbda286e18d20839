// The stand-in answers every (route, outcome) the Orchestrator client can meet as the recorded
// Orchestrator 3.2.6 did: the same HTTP status and content type, the same body shape (keys and
// value types, recursively), and the same Message text once the values that differ between the
// recording's lab and this one are masked (timestamps, instance keys, the alias asked, a hook's
// own output). The (route, outcome) list and the recordings come from test/support/orchestrator-routes.ts,
// which derives the routes from the client.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ALIAS, startStandInLab, type StandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';
import { coverage, recordedBody, type Covered, type Params } from '../../support/orchestrator-routes.ts';
import type { JsonObject } from '../../support/json.ts';

const UNKNOWN_ALIAS = 'nosuch.ns';
const UNREACHABLE = { host: '127.0.0.99', port: 3306 };

/** Keys and value types, recursively; null stands for any value (a field null in one state is set in another). */
function shapeDiffs(want: unknown, got: unknown, at: string, out: string[]): void {
  if (want === null || got === null) return;
  if (Array.isArray(want) || Array.isArray(got)) {
    if (!Array.isArray(want) || !Array.isArray(got))
      return void out.push(
        `${at}: ${Array.isArray(want) ? 'array' : typeof want} recorded, ${Array.isArray(got) ? 'array' : typeof got} served`,
      );
    if (want.length > 0 && got.length > 0) shapeDiffs(want[0], got[0], `${at}[0]`, out);
    return;
  }
  if (typeof want !== typeof got) return void out.push(`${at}: ${typeof want} recorded, ${typeof got} served`);
  if (typeof want !== 'object') return;
  const w = want as Record<string, unknown>;
  const g = got as Record<string, unknown>;
  for (const k of Object.keys(w)) if (!(k in g)) out.push(`${at}.${k}: missing`);
  for (const k of Object.keys(g)) if (!(k in w)) out.push(`${at}.${k}: not recorded`);
  for (const k of Object.keys(w)) if (k in g) shapeDiffs(w[k], g[k], `${at}.${k}`, out);
}

/** Orchestrator's Message without what differs between two labs. */
function masked(message: string, alias: string | undefined): string {
  let m = message
    .replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ERROR /, '<time> ERROR ')
    .replace(/\(exit status (\d+)\) [\s\S]*$/, '(exit status $1) <hook output>')
    .replace(/[\w.-]+:\d+/g, '<instance>');
  if (alias) m = m.replaceAll(alias, '<alias>');
  return m;
}

interface Served {
  status: number;
  contentType: string;
  body: unknown;
}

async function ask(lab: StandInLab, path: string): Promise<Served> {
  const res = await fetch(`${lab.standIn.url}${path}`);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* a plain-text answer is compared as text */
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}

/** The path of the route with the lab's values. */
function pathOf(template: string, p: Params): string {
  const values: Record<string, string> = {
    alias: p.alias,
    host: p.host,
    port: String(p.port),
    comment: p.comment,
    owner: p.owner,
    reason: p.reason,
    seconds: `${p.seconds}s`,
  };
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

/** A direct, replicating replica of the cluster's master: a takeover's designated one. */
async function designated(lab: StandInLab): Promise<{ host: string; port: number }> {
  // After a takeover the demoted master replicates from the next poll on.
  return eventually(
    'a replicating replica of the master',
    async () => {
      const master = (await ask(lab, `/api/master/${ALIAS}`)).body as { Key: { Hostname: string; Port: number } };
      const members = (await ask(lab, `/api/cluster/alias/${ALIAS}`)).body as Array<JsonObject>;
      // A plain takeover leaves the demoted master stopped below the new one; the operator starts it
      // (docs/node-controller.md), and so does the test before the next takeover, whose -auto form
      // may pick it: the topology is settled first, every replica of the master replicating.
      const below = members.filter((i) => i.MasterKey.Hostname === master.Key.Hostname);
      const stopped = below.filter((i) => !(i.Slave_IO_Running && i.Slave_SQL_Running));
      for (const i of stopped) await (await lab.servers.find((s) => s.host === i.Key.Hostname)?.node())?.startReplication();
      const r = below[0];
      if (r && stopped.length === 0) return { host: r.Key.Hostname as string, port: r.Key.Port as number };
      // Thrown, not returned: a timeout then says what the stand-in showed last.
      const seen = members.map(
        (i) =>
          `${i.Key.Hostname} under ${i.MasterKey.Hostname || '-'} io=${i.Slave_IO_Running} sql=${i.Slave_SQL_Running} valid=${i.IsLastCheckValid} ${i.LastIOError || ''}${i.LastSQLError || ''}`,
      );
      const recoveries = ((await ask(lab, '/api/audit-recovery')).body as Array<JsonObject>).map(
        (r) => `${r.AnalysisEntry?.Analysis} on ${r.AnalysisEntry?.AnalyzedInstanceKey?.Hostname}: successful=${r.IsSuccessful}`,
      );
      throw new Error(`master ${master.Key.Hostname}; ${seen.join('; ')}; recoveries: ${recoveries.join('; ') || 'none'}`);
    },
    120_000,
  );
}

/**
 * The lab's values for one (route, outcome), and what has to be set up around the request. The
 * known server of each route is one whose change the case undoes (or that changes nothing).
 */
async function casePlan(lab: StandInLab, c: Covered): Promise<{ params: Params; before?: () => void; after?: () => Promise<void> }> {
  const [s0, , s2] = lab.servers;
  const params: Params = { alias: ALIAS, host: s2.host, port: s2.port, comment: 'test', owner: 'o', reason: 'r', seconds: 10 };
  const takeover = c.route.method === 'gracefulMasterTakeover' || c.route.method === 'gracefulMasterTakeoverAuto';
  if (c.route.method === 'instance') Object.assign(params, { host: s0.host, port: s0.port });
  if (takeover) Object.assign(params, await designated(lab));
  if (c.outcome === 'unknown-cluster') params.alias = UNKNOWN_ALIAS;
  if (c.outcome === 'unknown-instance' || c.outcome === 'mysql-unreachable') Object.assign(params, UNREACHABLE);
  if (c.outcome === 'refused' && c.route.method === 'ackRecoveries') params.comment = '';
  const plan: { params: Params; before?: () => void; after?: () => Promise<void> } = { params };
  const exitFile = join(lab.ctl, 'PreGracefulTakeoverProcesses.exit');
  if (c.outcome === 'refused' && takeover) {
    plan.before = () => writeFileSync(exitFile, '1');
    plan.after = async () => rmSync(exitFile, { force: true });
  }
  if (c.outcome === 'success' && c.route.method === 'forget')
    plan.after = async () => void (await ask(lab, `/api/discover/${s2.host}/${s2.port}`));
  if (c.outcome === 'success' && c.route.method === 'setWriteable')
    plan.after = async () => void (await ask(lab, `/api/set-read-only/${s2.host}/${s2.port}`));
  if (c.outcome === 'success' && c.route.method === 'beginDowntime')
    plan.after = async () => void (await ask(lab, `/api/end-downtime/${s2.host}/${s2.port}`));
  return plan;
}

/** Takeovers move the master: they go last, refusals before the one that succeeds. */
const order = (c: Covered): number => (c.route.method.startsWith('gracefulMasterTakeover') ? (c.outcome === 'success' ? 2 : 1) : 0);

test('the stand-in answers every (route, outcome) the client can meet as Orchestrator 3.2.6 did', async (t) => {
  const lab = await startStandInLab(t, 'answers');
  const cases = (await coverage()).filter((c) => c.recorded.length > 0).sort((a, b) => order(a) - order(b));
  const wrong: string[] = [];
  for (const c of cases) {
    const { recording, params: recordedParams } = c.recorded[0]!;
    const plan = await casePlan(lab, c);
    const path = pathOf(c.route.template, plan.params);
    plan.before?.();
    let served: Served;
    try {
      served = await ask(lab, path);
    } finally {
      await plan.after?.();
    }
    const recordedText = recordedBody(recording);
    let recorded: unknown = recordedText;
    try {
      recorded = JSON.parse(recordedText);
    } catch {
      /* plain text */
    }
    const diffs: string[] = [];
    if (served.status !== recording.status) diffs.push(`HTTP ${served.status}, recorded ${recording.status}`);
    if (served.contentType !== recording.contentType) diffs.push(`content-type ${served.contentType}, recorded ${recording.contentType}`);
    const envelope = (b: unknown): b is { Code: unknown; Message: string; Details: unknown } =>
      typeof b === 'object' && b !== null && 'Code' in b && 'Message' in b;
    if (envelope(recorded) && envelope(served.body)) {
      if (served.body.Code !== recorded.Code) diffs.push(`Code ${String(served.body.Code)}, recorded ${String(recorded.Code)}`);
      const want = masked(recorded.Message, recordedParams.alias);
      const got = masked(served.body.Message, plan.params.alias);
      if (got !== want) diffs.push(`Message ${JSON.stringify(got)}, recorded ${JSON.stringify(want)}`);
      shapeDiffs(recorded.Details, served.body.Details, 'Details', diffs);
    } else {
      shapeDiffs(recorded, served.body, 'body', diffs);
    }
    if (diffs.length > 0) wrong.push(`${c.route.template} → ${c.outcome} (GET ${path}; recorded ${recording.file}): ${diffs.join('; ')}`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(cases.length >= 30, `only ${cases.length} cases`);
});
