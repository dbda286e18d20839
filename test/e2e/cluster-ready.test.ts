// End to end on the composed sandbox (sandbox/index.ts): the chart's operator and Orchestrator run
// as pods, the example MariaDB cluster at 3 nodes becomes real replicating servers behind
// Services, and stopping the sandbox leaves nothing on the machine. Flavour: MariaDB (the local
// mariadbd plays every MySQL image, docs/architecture.md §5). One sandbox for the whole file.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_GROUP_VERSION, KIND_MYSQL_CLUSTER, LABEL_ROLE, NODE_CONDITION, ROLE } from '../../src/api/constants.ts';
import { names, podFqdn } from '../../src/api/names.ts';
import { waitForClusterReady, type ClusterView } from '../../sandbox/cluster-view.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import {
  applyMariaDBExample,
  sandboxLeftovers,
  printSandboxOnFailure,
  sandboxSkip,
  sqlThroughService,
  type ExampleCluster,
} from '../support/sandbox.ts';
import { eventually } from '../support/wait.ts';

describe('the example MariaDB cluster at 3 nodes on the sandbox', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-e2e-'));
  let sb: Sandbox;
  let c: ExampleCluster;
  let view: ClusterView;

  before(async () => {
    sb = await startSandbox({ workDir });
    await sb.ready;
    c = await applyMariaDBExample(sb, 3);
  });
  after(() => sb?.stop());
  printSandboxOnFailure(() => sb);

  it('becomes Ready, and its status and labels name one master, the others replicas', async () => {
    view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: 400_000 });
    assert.equal(view.pods.length, 3);
    assert.deepEqual(
      view.pods.map((p) => p.ready),
      ['4/4', '4/4', '4/4'],
      'every container of every pod is ready',
    );
    const master = view.master!;
    assert.deepEqual(
      view.pods.filter((p) => p.name !== master).map((p) => p.role),
      [ROLE.replica, ROLE.replica],
    );
    const cluster = await sb.client.get<
      { status: { nodes: { name: string; conditions: { type: string; status: string }[] }[] } } & { metadata: object }
    >({ apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_CLUSTER, namespace: c.namespace, name: c.name });
    const masters = cluster.status.nodes.filter((n) => n.conditions.some((x) => x.type === NODE_CONDITION.master && x.status === 'True'));
    assert.deepEqual(
      masters.map((n) => n.name),
      [podFqdn(master, c.namespace)],
      'status.nodes names the labelled master',
    );
    const labelled = await sb.kubectl(['get', 'pods', '-n', c.namespace, '-l', `${LABEL_ROLE}=${ROLE.master}`, '-o', 'name']);
    assert.equal(labelled.out.trim(), `pod/${master}`, 'kubectl finds the master by its label');
    console.log(`flavour: MariaDB; Orchestrator: ${await sb.orchestratorRunsAs()}`);
  });

  it('serves a row written through <c>-mysql-master from <c>-mysql-replicas', async () => {
    await sqlThroughService(
      sb,
      c,
      names.masterService(c.name),
      "CREATE DATABASE IF NOT EXISTS e2e; CREATE TABLE e2e.t (id INT PRIMARY KEY, v VARCHAR(20)); INSERT INTO e2e.t VALUES (1, 'through-master')",
    );
    // Each read is a new connection: the proxy picks a replica per connection, so every replica gets asked.
    for (let i = 0; i < 4; i++) {
      await eventually('the row read through the replicas Service', async () => {
        const rows = await sqlThroughService(sb, c, names.replicasService(c.name), 'SELECT v, @@read_only AS ro FROM e2e.t WHERE id = 1');
        return rows[0]?.v === 'through-master' && Number(rows[0]?.ro) === 1;
      });
    }
  });

  it('stops leaving no network namespace, link, mount, process or file', async () => {
    const bridge = sb.network.addresses.bridge;
    await sb.stop();
    assert.deepEqual(sandboxLeftovers(workDir, bridge), []);
  });
});
