import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LABEL_HEALTHY, LABEL_ROLE } from '../../../src/api/constants.ts';
import { demotedByLabels } from '../../../src/controllers/orchestrator-controller/fence-demoted.ts';

test('the pods a round of label patches demotes: those labelled master before and not after', () => {
  const before: Record<string, string> = { 'c-0': 'master', 'c-1': 'replica', 'c-2': 'master' };
  const patch = (pod: string, role: 'master' | 'replica') => ({ pod, labels: { [LABEL_ROLE]: role, [LABEL_HEALTHY]: 'yes' as const } });
  assert.deepEqual(
    demotedByLabels((p) => before[p], [patch('c-0', 'replica'), patch('c-1', 'master'), patch('c-2', 'master'), patch('c-3', 'replica')]),
    ['c-0'],
  );
});
