// End to end on the composed sandbox (docs/sandbox.md): a 3-node MariaDB cluster heals itself. A
// replica's mysqld killed comes back configured and caught up; a replica deleted with its PVC
// clones again from a healthy replica; the operator killed at random moments meanwhile converges
// with no acknowledged write lost; no log of the run holds a password. Flavour: MariaDB (the local
// mariadbd plays every MySQL image, DESIGN.md §5). One sandbox for the file: the scenarios run
// one after the other on the same cluster, each ending Ready with equal checksums.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONTAINER } from '../../src/api/constants.ts';
import { names, podOrdinal } from '../../src/api/names.ts';
import { clusterView } from '../../sandbox/cluster-view.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { applyMariaDBExample, sandboxSkip, sqlThroughService, type ExampleCluster } from '../support/sandbox.ts';
import {
  ackedWritesOnMaster, checksumsEqual, clusterSecretValues, getPod, killInPod, operatorChaos, restartCount, secretsInLogs, sqlOnPod,
  startWriter, waitAllReady, type Writer,
} from '../support/sandbox-faults.ts';
import { eventually } from '../support/wait.ts';

const TABLE = 'e2e.heal';
const READY_MS = 400_000;

describe('a 3-node MariaDB cluster on the sandbox heals itself', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-heal-'));
  const started = Date.now();
  const say = (line: string) => console.log(`[+${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
  let sb: Sandbox;
  let c: ExampleCluster;
  let writer: Writer;
  let chaos: ReturnType<typeof operatorChaos>;

  const ready = async (what: string) => {
    const master = await waitAllReady(sb, c, 3, READY_MS);
    say(`${what}: every pod ready, cluster Ready, master ${master}`);
  };
  const caughtUp = async (what: string) => {
    await ready(what);
    await checksumsEqual(sb, c, TABLE, writer, what);
  };
  const aReplica = async (): Promise<string> => {
    const view = await clusterView(sb.client, c.namespace, c.name);
    return view.pods.map((p) => p.name).find((p) => p !== view.master)!;
  };

  before(async () => {
    sb = await startSandbox({ workDir, backoff: { baseMs: 1000, maxMs: 10_000 } });
    await sb.ready;
    say('sandbox ready');
    c = await applyMariaDBExample(sb, 3, 'default', randomBytes(12).toString('hex'));
    await ready('3 nodes');
    await sqlThroughService(sb, c, names.masterService(c.name), `CREATE DATABASE IF NOT EXISTS e2e; CREATE TABLE ${TABLE} (id INT PRIMARY KEY, v VARCHAR(20))`);
    writer = startWriter(sb, c, TABLE, 200);
    chaos = operatorChaos(sb, { maxDelayMs: 20_000, log: say });
  });
  after(async () => {
    await writer?.stop();
    await sb?.stop();
  });

  it('a replica whose mysqld is killed restarts, is configured again and catches up', async () => {
    const replica = await aReplica();
    const before = restartCount(await getPod(sb, c.namespace, replica), CONTAINER.mysql);
    chaos.killSoon();
    assert.ok(await killInPod(sb, c.namespace, replica, 'mariadbd') > 0, `a mariadbd ran in ${replica}`);
    say(`mariadbd of ${replica} killed`);
    chaos.killSoon();
    await eventually(`the kubelet restarting ${replica}'s mysql container`,
      async () => restartCount(await getPod(sb, c.namespace, replica), CONTAINER.mysql) > before, 120_000);
    chaos.killSoon();
    await caughtUp(`${replica} after its mysqld was killed`);
    const [row] = await sqlOnPod(sb, c, replica, 'SELECT @@read_only AS ro');
    assert.equal(Number(row?.ro), 1, `${replica} is read-only`);
  });

  it('a replica deleted with its PVC clones again from a healthy replica and replicates', async () => {
    const replica = await aReplica();
    const pvc = names.pvc(c.name, podOrdinal(replica));
    const oldPod = (await getPod(sb, c.namespace, replica)).metadata!.uid;
    const oldPvc = (await sb.client.get<{ metadata: { uid?: string } }>({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: c.namespace, name: pvc })).metadata.uid;
    chaos.killSoon();
    // The PVC first: its protection keeps it while the pod uses it, and it goes with the pod.
    for (const args of [['delete', 'pvc', pvc], ['delete', 'pod', replica]]) {
      const r = await sb.kubectl(['-n', c.namespace, ...args, '--wait=false']);
      assert.ok(r.ok, r.out);
    }
    say(`${replica} and ${pvc} deleted`);
    chaos.killSoon();
    await eventually(`${replica} and ${pvc} made again`, async () => {
      const pod = await getPod(sb, c.namespace, replica);
      const claim = await sb.client.get<{ metadata: { uid?: string } }>({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: c.namespace, name: pvc });
      return pod.metadata!.uid !== oldPod && claim.metadata.uid !== oldPvc;
    }, 180_000);
    await caughtUp(`${replica} after it was deleted with its PVC`);
    const init = await sb.kubectl(['-n', c.namespace, 'logs', replica, '-c', CONTAINER.init]);
    assert.match(init.out, /cloning from the replicas/, `the init container of the new ${replica} cloned from a healthy replica:\n${init.out}`);
  });

  it('converges after the operator was killed at random moments, with no acknowledged write lost', async () => {
    chaos.killSoon();
    chaos.killSoon();
    const kills = await chaos.settled();
    say(`operator killed ${kills} times`);
    assert.ok(kills >= 5, `the operator was killed ${kills} times`);
    await writer.stop();
    say(`writer: ${writer.acked.length} rows acknowledged, ${writer.failures()} writes failed`);
    await caughtUp('after the operator kills');
    await ackedWritesOnMaster(sb, c, TABLE, writer);
  });

  it('no log of the run holds a password (cluster Secret, operated Secret)', async () => {
    const secrets = await clusterSecretValues(sb, c);
    assert.ok(secrets.size >= 3, `found the passwords to look for: ${[...secrets.keys()].join(', ')}`);
    assert.deepEqual(await secretsInLogs(sb, workDir, secrets), []);
  });
});
