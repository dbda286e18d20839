import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { flavourFromVersionSpec, renderInitFile, type Flavour, type InitFileInput, type SystemCredentials } from '../../../src/mysql/index.ts';

const POD_FILES = '/work/shared/fixtures/anchor-v0.6.3/pod-files/etc/mysql/conf.d';
const ANCHOR_GTID = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5';

// The placeholders the anchor fixture was rendered with.
const ANCHOR_USERS: SystemCredentials = {
  operator: { user: 'sys_operator', password: 'PlaceholderOper018' },
  orchestrator: { user: 'orchestrator', password: 'PlaceOrc10' },
  replication: { user: 'sys_replication', password: 'PlaceholderRepl018' },
  exporter: { user: 'sys_exporter', password: 'PlaceholderExpo018' },
  heartbeat: { user: 'sys_heartbeat', password: 'PlaceHbt10' },
};

function flavour(spec: string): Flavour {
  const f = flavourFromVersionSpec(spec);
  assert.ok(f, spec);
  return f;
}

function input(over: Partial<InitFileInput> = {}): InitFileInput {
  return {
    flavour: flavour('5.7.35'),
    users: ANCHOR_USERS,
    statusTableMissing: false,
    backupGtid: null,
    restoredFromBucket: false,
    extraSql: [],
    ...over,
  };
}

test('MySQL 5.7 init-file after a clone equals the anchor pod file byte for byte', () => {
  const want = readFileSync(`${POD_FILES}/operator-init.sql`, 'utf8');
  assert.equal(renderInitFile(input({ statusTableMissing: true, backupGtid: ANCHOR_GTID })), want);
});

test('MySQL 5.7 init-file on a later restart equals the anchor restart variant byte for byte', () => {
  const want = readFileSync(`${POD_FILES}/operator-init.sql.variant-restart`, 'utf8');
  assert.equal(renderInitFile(input({ statusTableMissing: false, backupGtid: ANCHOR_GTID })), want);
});
