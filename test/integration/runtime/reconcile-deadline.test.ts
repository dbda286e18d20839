// A reconcile's deadline (--reconcile-timeout) in the Manager: a reconcile whose API call hangs
// has that call aborted through its context's client, is logged and counted, and is retried with
// backoff until it succeeds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerSpec } from '../../../src/runtime/controller.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';
import { runManager, testConfig } from './helpers.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

describe('reconcile deadline', () => {
  it('aborts the API call of a reconcile past its deadline, logs and counts it, and retries the key with backoff', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    if (!env.server) return t.skip('needs fault injection (not on a real cluster)');
    const outcomes: Array<{ signalAborted: boolean; error?: string }> = [];
    const spec: ControllerSpec = {
      name: 'deadline',
      for: CM,
      backoff: { baseMs: 10 },
      async reconcile(req, ctx) {
        if (req.name !== 'primary') return;
        try {
          await ctx.client.get({ ...CM, namespace: req.namespace, name: 'target' });
          outcomes.push({ signalAborted: ctx.signal.aborted });
        } catch (err) {
          outcomes.push({ signalAborted: ctx.signal.aborted, error: (err as Error).message });
          throw err;
        }
      },
    };
    const config = testConfig(['--namespace', env.namespace, '--reconcile-timeout', '300ms'], { LEADER_ELECT: 'false' });
    const { manager, client, lines } = await runManager(t, env.kubeConfig, spec, config, { informer: { relistPeriodMs: 0 } });
    await client.create({ ...CM, metadata: { name: 'target', namespace: env.namespace } });
    // The first read of `target` hangs ten deadlines.
    env.server.faults.delayNext({ verb: 'get', resource: 'configmaps', name: 'target' }, { ms: 3000 });
    await client.create({ ...CM, metadata: { name: 'primary', namespace: env.namespace } });

    await eventually('a retry that succeeds', () => outcomes.some((o) => o.error === undefined));
    const [first] = outcomes;
    assert.ok(first?.error, 'the hanging call failed instead of waiting for the server');
    assert.match(first.error, /aborted/);
    assert.equal(first.signalAborted, true, "the reconcile's signal aborted at the deadline");
    const metrics = await (await fetch(`http://127.0.0.1:${manager.httpAddress?.port}/metrics`)).text();
    assert.match(metrics, /controller_reconcile_timeouts_total\{controller="deadline"\} [1-9]/);
    assert.ok(
      lines.some((l) => l.includes('reconcile passed its deadline') && l.includes(`${env.namespace}/primary`)),
      'the timeout is logged with its object',
    );
  });
});
