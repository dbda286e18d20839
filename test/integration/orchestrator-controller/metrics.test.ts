// The orchestrator controller's clusters-by-Ready gauge on the operator's /metrics page, as an
// alert on "a cluster not Ready" would read it: the cluster counted under True once Ready, under
// Unknown while Orchestrator is unreachable, and back. (The failover counter and the hook-to-labels
// histogram are checked by the SIGKILL scenario of orchestrator-controller.test.ts, the hook's
// call counter by test/integration/failover-hook/.)
import { test } from 'node:test';
import { eventually } from '../../support/wait.ts';
import { orcLab, type OrcLab } from './orc-lab.ts';

/** The gauge's samples, `{ready="True"} 1` style, without those at 0. */
async function clustersByReady(lab: OrcLab): Promise<string[]> {
  const lines = (await lab.metrics()).split('\n').filter((l) => l.startsWith('mysql_operator_clusters{'));
  return lines.map((l) => l.slice('mysql_operator_clusters'.length)).filter((l) => !l.endsWith(' 0')).sort();
}

function waitGauge(lab: OrcLab, want: string[]): Promise<true> {
  return eventually(`mysql_operator_clusters ${want.join(', ')}`, async () => {
    const got = await clustersByReady(lab);
    if (JSON.stringify(got) === JSON.stringify(want)) return true;
    throw new Error(`last: ${got.join(', ')}`);
  }, 60_000);
}

test('clusters are counted by their Ready condition: True when Ready, Unknown while Orchestrator is down', async (t) => {
  const lab = await orcLab(t);
  await waitGauge(lab, ['{ready="True"} 1']);
  await lab.orchestrator.cut();
  await waitGauge(lab, ['{ready="Unknown"} 1']);
  await lab.orchestrator.restore();
  await waitGauge(lab, ['{ready="True"} 1']);
});
