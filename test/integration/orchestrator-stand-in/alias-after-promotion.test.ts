// The cluster alias follows a promotion at once, as Orchestrator 3.2.6 moves it before the Post*
// hooks (recorded graceful-takeover-auto_timeline.txt: /api/master names the successor 44 ms after
// PostMasterFailover; RecoverDeadMaster sets the alias first). A controller that reacts to the
// PostMasterFailover hook by asking /api/master must already get the new master, even while the
// demoted one, read-only, is not yet repointed and still the root of a cluster of its own.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { ALIAS, startStandInLab } from '../../support/orchestrator-stand-in.ts';

it('answers /api/master with the successor while the PostMasterFailover hook of a graceful takeover runs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'alias-move-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The stand-in's URL is known once it runs: the hook reads it from a file.
  const probe = `curl -s "$(cat '${dir}/url')/api/master/${ALIAS}" > '${dir}/master-during-hook.json'`;
  const lab = await startStandInLab(t, 'alias-move', { extraHooks: { PostMasterFailoverProcesses: [probe] } });
  writeFileSync(join(dir, 'url'), lab.standIn.url);

  const takeover = await lab.get(`/api/graceful-master-takeover-auto/${ALIAS}`);
  assert.equal(takeover.body.Code, 'OK', JSON.stringify(takeover.body));
  const successor = (await lab.get(`/api/master/${ALIAS}`)).body.Key.Hostname;
  assert.notEqual(successor, lab.servers[0].host, 'a replica was promoted');
  // Hooks are synchronous: the takeover's answer came after the probe wrote its file.
  const during = JSON.parse(readFileSync(join(dir, 'master-during-hook.json'), 'utf8')) as { Key: { Hostname: string } };
  assert.equal(during.Key.Hostname, successor);
});
