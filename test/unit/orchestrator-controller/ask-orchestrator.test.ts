// askOrchestrator over a client object whose answers the test gives (the OrchestratorClient
// interface, not a module mock): the whole view or none, and a stable message.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { askOrchestrator } from '../../../src/controllers/orchestrator-controller/gather.ts';
import { OrchestratorError, type OrchestratorClient } from '../../../src/orchestrator/index.ts';
import { ALIAS, instance, key } from './builders.ts';

const error = (kind: OrchestratorError['kind'], route: string) =>
  new OrchestratorError(kind, route, kind === 'unknown-cluster' ? 'Unable to determine cluster name' : 'connect ECONNREFUSED');
const fail = (kind: OrchestratorError['kind'], route: string) => async (): Promise<never> => {
  throw error(kind, route);
};

function client(over: Partial<OrchestratorClient>): OrchestratorClient {
  const unused = async (): Promise<never> => assert.fail('not called by askOrchestrator');
  return {
    discover: unused,
    forget: unused,
    clustersInfo: unused,
    ackRecoveries: unused,
    beginDowntime: unused,
    endDowntime: unused,
    setReadOnly: unused,
    setWriteable: unused,
    gracefulMasterTakeover: unused,
    gracefulMasterTakeoverAuto: unused,
    master: async () => instance(0, null),
    clusterByAlias: async () => [instance(0, null), instance(1, 0)],
    instance: fail('unknown-instance', 'GET /instance/x'),
    replicationAnalysis: async () => [],
    recoveries: async () => [],
    ...over,
  };
}

const pods = [key(0), key(1), key(2)];
const signal = new AbortController().signal;

describe('askOrchestrator', () => {
  it('adds the instance of each pod the cluster does not list; one Orchestrator does not know is left out', async () => {
    const old = instance(2, null, { clusterAlias: 'other' });
    const state = await askOrchestrator(
      client({ instance: async (k) => (k.host === key(2).host ? old : assert.fail('listed')) }),
      ALIAS,
      pods,
      signal,
    );
    assert.deepEqual(state.kind === 'reachable' && state.instances.map((i) => i.key.host), [key(0).host, key(1).host, key(2).host]);
    const none = await askOrchestrator(client({}), ALIAS, pods, signal);
    assert.equal(none.kind === 'reachable' && none.instances.length, 2);
  });

  it('reads an unknown cluster as no cluster yet', async () => {
    const state = await askOrchestrator(
      client({ master: fail('unknown-cluster', 'GET /master/a'), clusterByAlias: fail('unknown-cluster', 'GET /cluster/alias/a') }),
      ALIAS,
      pods,
      signal,
    );
    assert.deepEqual(state.kind === 'reachable' && [state.master, state.instances.length], [null, 0]);
  });

  it("makes any other failure the whole view's, with the message of the first route in a fixed order, not the first to fail", async () => {
    let failMaster!: () => void;
    const master = new Promise<never>((_, reject) => (failMaster = () => reject(error('unreachable', 'GET /master/a'))));
    const state = await askOrchestrator(
      client({
        master: () => master,
        // The recoveries fail first; the master's answer fails after.
        recoveries: async () => {
          setImmediate(failMaster);
          throw error('unreachable', 'GET /audit-recovery/alias/a');
        },
      }),
      ALIAS,
      pods,
      signal,
    );
    assert.deepEqual(state, { kind: 'unreachable', message: 'orchestrator GET /master/a: connect ECONNREFUSED' });
  });
});
