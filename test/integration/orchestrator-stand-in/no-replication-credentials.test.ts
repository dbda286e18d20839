// The stand-in's graceful takeovers when it can read no replication credentials, against three
// real MariaDB 10.11 servers, compared with what 3.2.6 did in the same steps
// (test/fixtures/orchestrator/no-replication-credentials/, README "sixth set"): with no
// ReplicationCredentialsQuery (the chart's configuration) and with the chart's former query once
// its rows are gone, the -auto takeover promotes and then answers 500 "Replication not running",
// the demoted master replicating from the successor with no user; the plain one answers 200 and
// leaves it stopped with no user. Repointed siblings keep their own user.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { MariaDBServer } from '../../support/mariadb.ts';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { ALIAS, startStandInLab } from '../../support/orchestrator-stand-in.ts';
import { eventually } from '../../support/wait.ts';

const RECORDED = new URL('../../fixtures/orchestrator/no-replication-credentials/', import.meta.url);
const recorded = (file: string) => JSON.parse(readFileSync(new URL(file, RECORDED), 'utf8'));
const FORMER_CHART_QUERY =
  "SELECT (SELECT value FROM sys_operator.status WHERE name='replication_user'), " +
  "(SELECT value FROM sys_operator.status WHERE name='replication_password')";

/** The columns the recording kept, with the source named by role. */
async function slaveStatus(s: MariaDBServer, source: MariaDBServer): Promise<Record<string, unknown>> {
  const [row] = await s.sql('SHOW SLAVE STATUS');
  assert.ok(row, `${s.name} is a replica`);
  return {
    Master_Host: row.Master_Host === source.host ? 'SOURCE' : row.Master_Host,
    ...Object.fromEntries(
      ['Master_User', 'Slave_IO_Running', 'Slave_SQL_Running', 'Last_IO_Errno', 'Last_IO_Error', 'Using_Gtid'].map((k) => [k, row[k]]),
    ),
  };
}

const asRecorded = (o: Record<string, unknown>): Record<string, unknown> => ({ ...o, Master_Host: 'SOURCE' });

for (const [variant, query] of [
  ['no ReplicationCredentialsQuery', ''],
  ["the chart's former query without its rows", FORMER_CHART_QUERY],
] as const) {
  test(`graceful takeovers with no readable replication credentials (${variant}) leave the demoted master as 3.2.6 does`, async (t) => {
    const { servers, get } = await startStandInLab(t, `no-creds-${query === '' ? 'a' : 'b'}`, {
      config: { ReplicationCredentialsQuery: query },
    });
    const [s0, s1, s2] = servers;

    const auto = await get(`/api/graceful-master-takeover-auto/${ALIAS}/${s1.host}/${s1.port}`);
    const want = recorded('graceful-master-takeover-auto.json');
    assert.equal(auto.status, 500);
    assert.equal(auto.body.Code, want.Code);
    assert.equal(auto.body.Message, want.Message);
    assert.equal(auto.body.Details?.IsSuccessful, want.Details.IsSuccessful);
    assert.equal(auto.body.Details?.SuccessorKey?.Hostname, s1.host);
    const after = recorded('demoted-master_after-auto.json');
    assert.deepEqual(await slaveStatus(s0, s1), asRecorded(after.atAnswer));
    assert.equal((await s0.sql('SELECT @@read_only AS ro'))[0]?.ro, 1);
    // The sibling moved below the successor kept its own user.
    assert.equal((await s2.sql('SHOW SLAVE STATUS'))[0]?.Master_User, TEST_SYSTEM_USERS.replication.user);

    // The credentials by hand, as the node controller gives them: it replicates where it was put.
    const r = TEST_SYSTEM_USERS.replication;
    await s0.sql(`STOP SLAVE; CHANGE MASTER TO MASTER_USER='${r.user}', MASTER_PASSWORD='${r.password}'; START SLAVE`);
    await eventually('the demoted master replicating', async () => {
      const st = await slaveStatus(s0, s1);
      return st.Slave_IO_Running === 'Yes' && st.Slave_SQL_Running === 'Yes';
    });
    assert.deepEqual(await slaveStatus(s0, s1), asRecorded(recorded('demoted-master_after-credentials-by-hand.json')));
    await get(`/api/end-downtime/${s0.host}/${s0.port}`);
    await eventually('the stand-in to see it replicate', async () => {
      const i = (await get(`/api/instance/${s0.host}/${s0.port}`)).body;
      return i.MasterKey?.Hostname === s1.host && i.Slave_IO_Running === true;
    });

    const plain = await get(`/api/graceful-master-takeover/${ALIAS}/${s0.host}/${s0.port}`);
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.equal(plain.body.Message, recorded('graceful-master-takeover.json').Message);
    assert.deepEqual(await slaveStatus(s1, s0), asRecorded(recorded('demoted-master_after-plain.json').atAnswer));
  });
}
