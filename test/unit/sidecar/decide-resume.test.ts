// Whether the init-file keeps `configured` and resumes replication: only a MariaDB replica whose
// data directory was not replaced in this run, has its status table and a master.info naming a
// master that answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideResume, sourceFromMasterInfo, type ResumeFacts } from '../../../src/sidecar/decide-resume.ts';

const MASTER = { host: 'c-mysql-0.mysql.default', port: 3306 };

function facts(over: Partial<ResumeFacts> = {}): ResumeFacts {
  return {
    family: 'mariadb',
    clonedThisRun: false,
    statusTableExists: true,
    masterInfoExists: true,
    masterInfoSource: MASTER,
    sourceRole: { answered: true, readOnly: false, replicatesFrom: null },
    ...over,
  };
}

test('an intact replica whose master answers, writable and replicating from no one, resumes', () => {
  assert.deepEqual(decideResume(facts()), { action: 'resume', source: MASTER });
});

test('the master is probed only once everything the data directory says allows resuming', () => {
  assert.deepEqual(decideResume(facts({ sourceRole: undefined })), { action: 'probe', source: MASTER });
  for (const over of [
    { clonedThisRun: true },
    { statusTableExists: false },
    { family: 'mysql' as const },
    { masterInfoExists: false, masterInfoSource: null },
    { masterInfoSource: null },
  ]) {
    assert.equal(decideResume(facts({ ...over, sourceRole: undefined })).action, 'reset', JSON.stringify(over));
  }
});

test('condition (a): a clone or restore in this run, or no status table, resets', () => {
  assert.deepEqual(decideResume(facts({ clonedThisRun: true })), {
    action: 'reset',
    reason: 'the data directory was cloned or restored in this run',
  });
  assert.deepEqual(decideResume(facts({ statusTableExists: false })), {
    action: 'reset',
    reason: 'the sys_operator.status table is not in the data directory',
  });
});

test('condition (b): MySQL flavours, no master.info or one without a master reset', () => {
  assert.deepEqual(decideResume(facts({ family: 'mysql' })), { action: 'reset', reason: 'mysql keeps replication settings in tables' });
  assert.deepEqual(decideResume(facts({ masterInfoExists: false, masterInfoSource: null })), {
    action: 'reset',
    reason: 'no master.info: not a replica',
  });
  assert.deepEqual(decideResume(facts({ masterInfoSource: null })), { action: 'reset', reason: 'master.info names no master' });
});

test('condition (c): a master that does not answer resets', () => {
  assert.deepEqual(decideResume(facts({ sourceRole: { answered: false, message: 'connect ECONNREFUSED' } })), {
    action: 'reset',
    reason: 'the master c-mysql-0.mysql.default:3306 does not answer: connect ECONNREFUSED',
  });
});

// Issue 21: replication resumes at start only towards the current master; a server master.info
// still names after a failover or during a takeover is left to the operator, which asks Orchestrator.
test('condition (d): a server that is not the current master any more (read-only, or replicating) resets', () => {
  assert.deepEqual(decideResume(facts({ sourceRole: { answered: true, readOnly: true, replicatesFrom: null } })), {
    action: 'reset',
    reason: 'c-mysql-0.mysql.default:3306 named by master.info is not the current master: it is read-only',
  });
  assert.deepEqual(
    decideResume(facts({ sourceRole: { answered: true, readOnly: true, replicatesFrom: 'c-mysql-1.mysql.default:3306' } })),
    {
      action: 'reset',
      reason:
        'c-mysql-0.mysql.default:3306 named by master.info is not the current master: it replicates from c-mysql-1.mysql.default:3306',
    },
  );
});

// MariaDB 10.11's layout, as a replica of the test harness wrote it.
const MASTER_INFO = [
  '33',
  'mysql-bin.000002',
  '4',
  'c-mysql-0.mysql.default',
  'sys_replication',
  'repl-secret-1',
  '3306',
  '10',
  '0',
  '',
  '',
  '',
  '',
  '',
  '0',
  '30.000',
  '',
  '0',
  '',
  '0',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  'using_gtid=2',
  'do_domain_ids=0',
  'ignore_domain_ids=0',
  'END_MARKER',
  '',
].join('\n');

test('master.info: host from line 4, port from line 7, never the password', () => {
  const source = sourceFromMasterInfo(MASTER_INFO);
  assert.deepEqual(source, MASTER);
  assert.ok(!JSON.stringify(source).includes('repl-secret-1'));
  const lines = MASTER_INFO.split('\n');
  const edit = (i: number, v: string) => lines.map((l, j) => (j === i ? v : l)).join('\n');
  assert.equal(sourceFromMasterInfo(edit(3, '')), null, 'empty host');
  assert.equal(sourceFromMasterInfo(edit(6, '')), null, 'no port');
  assert.equal(sourceFromMasterInfo(edit(6, '70000')), null, 'not a port');
  assert.equal(sourceFromMasterInfo('3\n\n4\n'), null, 'truncated');
  assert.equal(sourceFromMasterInfo(''), null);
});
