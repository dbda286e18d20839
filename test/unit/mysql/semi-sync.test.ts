// Semi-sync statements per flavour (src/mysql/semi-sync.ts); MariaDB also runs live in
// test/integration/mysql/semi-sync.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  flavourFromVersionSpec,
  ioThreadStatements,
  parseSemiSyncState,
  render,
  semiSyncChanges,
  type Flavour,
  type SemiSyncState,
  type SemiSyncWanted,
} from '../../../src/mysql/index.ts';

function f(spec: string): Flavour {
  const v = flavourFromVersionSpec(spec);
  assert.ok(v, spec);
  return v;
}

const OFF: SemiSyncState = {
  pluginsInstalled: { master: false, replica: false },
  masterEnabled: false,
  replicaEnabled: false,
  waitPoint: 'AFTER_COMMIT',
  timeoutMs: 10000n,
  acks: 1,
  masterActive: false,
  waitSessions: 0,
  clients: 0,
  replicaActive: false,
};
const MASTER: SemiSyncWanted = { master: true, replica: false, acks: 2, timeoutMs: undefined };
const sql = (fl: Flavour, state: SemiSyncState, wanted = MASTER) => semiSyncChanges(fl, state, wanted).statements.map(render);

test('MariaDB: built in, master_* names, AFTER_SYNC set explicitly, the longest timeout, no ack count, settings before enabling', () => {
  assert.deepEqual(sql(f('mariadb-10.11'), { ...OFF, acks: undefined }), [
    "SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'",
    'SET GLOBAL rpl_semi_sync_master_timeout = 9223372036854775807',
    'SET GLOBAL rpl_semi_sync_master_enabled = ON',
  ]);
});

test('MySQL 8.0.26+ and 8.4: source/replica plugins and names, the ack count; 5.7 and 8.0 before 8.0.26: master/slave', () => {
  for (const v of ['8.0.32', '8.4']) {
    assert.deepEqual(
      sql(f(v), OFF),
      [
        "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'",
        "INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'",
        "SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_SYNC'",
        'SET GLOBAL rpl_semi_sync_source_timeout = 4294967295',
        'SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 2',
        'SET GLOBAL rpl_semi_sync_source_enabled = ON',
      ],
      v,
    );
  }
  assert.deepEqual(
    sql(
      f('5.7'),
      { ...OFF, pluginsInstalled: { master: true, replica: true } },
      { master: false, replica: true, acks: 1, timeoutMs: 5000 },
    ),
    [
      "SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'",
      'SET GLOBAL rpl_semi_sync_master_timeout = 5000',
      'SET GLOBAL rpl_semi_sync_slave_enabled = ON',
    ],
    'a replica gets the master parameters too, for a promotion by Orchestrator',
  );
  assert.deepEqual(
    sql(f('mariadb-10.11'), OFF, { master: false, replica: false, acks: 1, timeoutMs: undefined }),
    [],
    'async touches no parameter',
  );
  assert.deepEqual(sql(f('8.0.20'), OFF).slice(0, 2), [
    "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'",
    "INSTALL PLUGIN rpl_semi_sync_slave SONAME 'semisync_slave.so'",
  ]);
});

test('a server that matches gets nothing; only a replica-side change restarts the IO thread; a fallback timeout is passed', () => {
  const mariadb = f('mariadb-10.11');
  const master: SemiSyncState = { ...OFF, masterEnabled: true, waitPoint: 'AFTER_SYNC', timeoutMs: 9223372036854775807n, acks: undefined };
  assert.deepEqual(semiSyncChanges(mariadb, master, MASTER), { statements: [], restartIoThread: false });
  const demoted = semiSyncChanges(mariadb, master, { master: false, replica: true, acks: 1, timeoutMs: undefined });
  assert.deepEqual(demoted.statements.map(render), [
    'SET GLOBAL rpl_semi_sync_master_enabled = OFF',
    'SET GLOBAL rpl_semi_sync_slave_enabled = ON',
  ]);
  assert.equal(demoted.restartIoThread, true);
  assert.deepEqual(sql(mariadb, master, { ...MASTER, timeoutMs: 30_000 }), ['SET GLOBAL rpl_semi_sync_master_timeout = 30000']);
  assert.deepEqual(
    sql(mariadb, { ...OFF, acks: undefined }, { ...MASTER, master: 'keep' }),
    ["SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'", 'SET GLOBAL rpl_semi_sync_master_timeout = 9223372036854775807'],
    'keep: the parameters, not the switch',
  );
  assert.throws(() => semiSyncChanges(mariadb, OFF, { ...MASTER, acks: 0 }), /positive integer/);
  assert.deepEqual(Object.values(ioThreadStatements(f('8.4'))).map(render), ['STOP REPLICA IO_THREAD', 'START REPLICA IO_THREAD']);
  assert.deepEqual(Object.values(ioThreadStatements(mariadb)).map(render), ['STOP SLAVE IO_THREAD', 'START SLAVE IO_THREAD']);
});

test('the state reads both spellings (source/replica and master/slave) into one', () => {
  const v = (Variable_name: string, Value: string) => ({ Variable_name, Value });
  const s = parseSemiSyncState(
    f('8.4'),
    [
      v('rpl_semi_sync_source_enabled', 'ON'),
      v('rpl_semi_sync_replica_enabled', 'OFF'),
      v('rpl_semi_sync_source_wait_point', 'AFTER_SYNC'),
      v('rpl_semi_sync_source_timeout', '4294967295'),
      v('rpl_semi_sync_source_wait_for_replica_count', '1'),
    ],
    [v('Rpl_semi_sync_source_status', 'ON'), v('Rpl_semi_sync_source_wait_sessions', '3'), v('Rpl_semi_sync_source_clients', '2')],
    ['rpl_semi_sync_source'],
  );
  assert.deepEqual(s, {
    pluginsInstalled: { master: true, replica: false },
    masterEnabled: true,
    replicaEnabled: false,
    waitPoint: 'AFTER_SYNC',
    timeoutMs: 4294967295n,
    acks: 1,
    masterActive: true,
    waitSessions: 3,
    clients: 2,
    replicaActive: false,
  });
});
