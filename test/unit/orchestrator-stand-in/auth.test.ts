// The stand-in's API authentication against the recorded answers of Orchestrator 3.2.6
// (test/fixtures/orchestrator/auth/): every recorded request is sent to a stand-in configured as
// the recording's Orchestrator was, over real HTTP, and must get the recorded status, content
// type and, where the answer is authentication's own (the 401, the read-only refusal), the
// recorded headers and body.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { parseConfig } from '../../../sandbox/orchestrator/config.ts';
import { startOrchestratorStandIn, type StandIn } from '../../../sandbox/orchestrator/index.ts';
import type { Json } from '../../support/json.ts';

const AUTH = new URL('../../fixtures/orchestrator/auth/', import.meta.url);
const read = (file: string): Json => JSON.parse(readFileSync(new URL(file, AUTH), 'utf8'));

interface Row {
  file: string;
  authenticationMethod: 'basic' | 'multi';
  user: string | null;
  password: string | null;
  path: string;
  status: number;
}
const rows: Row[] = read('index.json');

function config(method: string): string {
  return JSON.stringify({
    MySQLTopologyUser: 'x',
    MySQLTopologyPassword: 'y',
    ReplicationCredentialsQuery: 'SELECT 1',
    AuthenticationMethod: method,
    HTTPAuthUser: 'orc-admin',
    HTTPAuthPassword: 's3cret-pw',
  });
}

const standIns = new Map<string, StandIn>();
before(async () => {
  for (const m of ['basic', 'multi']) standIns.set(m, await startOrchestratorStandIn({ config: parseConfig(config(m)) }));
});
after(async () => {
  for (const s of standIns.values()) await s.stop();
});

for (const row of rows) {
  test(`${row.file}: ${row.authenticationMethod}, ${row.user ?? 'no credentials'} → ${row.status}`, async () => {
    const rec = read(row.file);
    const headers: Record<string, string> = {};
    if (row.user !== null) headers.authorization = `Basic ${Buffer.from(`${row.user}:${row.password}`).toString('base64')}`;
    const res = await fetch(`${standIns.get(row.authenticationMethod)!.url}${row.path}`, { headers });
    const text = await res.text();
    assert.equal(res.status, rec.status);
    assert.equal(res.headers.get('content-type')?.toLowerCase(), rec.headers['Content-Type'].toLowerCase());
    if (rec.status === 401) {
      for (const [name, value] of Object.entries(rec.headers)) assert.equal(res.headers.get(name), value, name);
      assert.equal(text, rec.bodyText);
    } else if (rec.body?.Message === 'Unauthorized') {
      assert.deepEqual(JSON.parse(text), rec.body);
    }
  });
}

test('multi and basic without HTTPAuthUser, or another method, are refused at start', () => {
  assert.throws(
    () => parseConfig(JSON.stringify({ ...JSON.parse(config('multi')), HTTPAuthUser: '' })),
    /AuthenticationMethod is multi but HTTPAuthUser is empty/,
  );
  assert.throws(() => parseConfig(config('token')), /knows AuthenticationMethod "basic" and "multi", not "token"/);
  assert.deepEqual(parseConfig(JSON.stringify({ ...JSON.parse(config('multi')), AuthenticationMethod: undefined })).authentication, {
    method: 'none',
  });
});

test('a POST or an unknown path gets the 401 before the 404', async () => {
  const url = standIns.get('multi')!.url;
  assert.equal((await fetch(`${url}/api/clusters`, { method: 'POST' })).status, 401);
  assert.equal((await fetch(`${url}/api/no-such-route`)).status, 401);
  assert.equal(
    (await fetch(`${url}/api/no-such-route`, { headers: { authorization: `Basic ${Buffer.from('readonly:x').toString('base64')}` } }))
      .status,
    404,
  );
});
