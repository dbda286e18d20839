// What the 3.2.6 recordings of a DeadMaster recovery with two MariaDB replicas say, reduced by
// test/support/recovery-statements.ts: the shape the stand-in's integration test compares with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordedCandidate, recordedStatements, recoverySteps, stepOf } from '../../support/recovery-statements.ts';

describe('3.2.6 DeadMaster recovery statements (recovery-mariadb)', () => {
  it('classifies the statements of both servers', () => {
    assert.equal(stepOf('stop slave'), 'stop');
    assert.equal(stepOf('STOP SLAVE'), 'stop');
    assert.equal(stepOf("change master to master_host='_'"), null);
    assert.equal(stepOf("change master to master_host='127.0.0.43', master_port=3306"), 'change-master');
    assert.equal(stepOf("CHANGE MASTER TO MASTER_HOST='10.0.0.1', MASTER_PORT=3306, MASTER_USE_GTID=slave_pos"), 'change-master');
    assert.equal(stepOf('reset slave /*!50603 all */'), 'reset');
    assert.equal(stepOf('set global read_only = 0'), 'writable');
    assert.equal(stepOf('SET GLOBAL read_only = 1'), null);
    assert.equal(stepOf('set global super_read_only = 0'), null);
    assert.equal(stepOf('start slave'), 'start');
    assert.equal(stepOf('START SLAVE SQL_THREAD'), null);
  });

  for (const kase of ['a1', 'a2', 'a3', 'b4']) {
    it(`${kase}: both replicas stopped first, then the sibling moved and the candidate promoted`, () => {
      assert.deepEqual(recoverySteps(recordedStatements(kase), recordedCandidate(kase)), {
        candidate: ['stop', 'stop', 'reset', 'writable'],
        sibling: ['stop', 'stop', 'change-master', 'start'],
        allStoppedFirst: true,
      });
    });
  }

  for (const kase of ['b2', 'b5']) {
    it(`${kase}: a refused candidate is stopped and left so; the sibling is moved below it all the same`, () => {
      assert.deepEqual(recoverySteps(recordedStatements(kase), recordedCandidate(kase)), {
        candidate: ['stop'],
        sibling: ['stop', 'stop', 'change-master', 'start'],
        allStoppedFirst: true,
      });
    });
  }
});
