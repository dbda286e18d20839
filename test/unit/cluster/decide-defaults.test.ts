import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANNOTATION_DEFAULTS } from '../../../src/api/index.ts';
import { mustMarkLossless } from '../../../src/controllers/cluster/decide-defaults.ts';
import { hasLosslessDefaults, replicationSettings } from '../../../src/controllers/shared/replication-mode.ts';
import { cluster } from './builders.ts';

test('a cluster with none of its objects is new and marked lossless; an existing StatefulSet or ConfigMap is adopted and never marked', () => {
  assert.equal(mustMarkLossless({ annotations: undefined, statefulSetExists: false, configMapExists: false, hasStatus: false }), true);
  assert.equal(mustMarkLossless({ annotations: {}, statefulSetExists: true, configMapExists: true, hasStatus: true }), false, 'adopted');
  assert.equal(
    mustMarkLossless({ annotations: {}, statefulSetExists: false, configMapExists: true, hasStatus: false }),
    false,
    'a ConfigMap alone: not new',
  );
  assert.equal(
    mustMarkLossless({ annotations: {}, statefulSetExists: false, configMapExists: false, hasStatus: true }),
    false,
    'a status written by the anchor: not new',
  );
  assert.equal(
    mustMarkLossless({
      annotations: { [ANNOTATION_DEFAULTS]: 'lossless' },
      statefulSetExists: false,
      configMapExists: false,
      hasStatus: false,
    }),
    false,
    'already marked',
  );
  assert.equal(
    mustMarkLossless({
      annotations: { [ANNOTATION_DEFAULTS]: 'anchor' },
      statefulSetExists: false,
      configMapExists: false,
      hasStatus: false,
    }),
    false,
    "the owner's own choice is kept",
  );
});

test('replication: semiSync by default only for lossless clusters of 2+ nodes; the spec always wins', () => {
  const marked = (spec: Parameters<typeof cluster>[0]) => {
    const c = cluster(spec);
    c.metadata = { ...c.metadata, annotations: { [ANNOTATION_DEFAULTS]: 'lossless' } };
    return c;
  };
  assert.equal(hasLosslessDefaults(cluster({ replicas: 3 })), false);
  assert.deepEqual(replicationSettings(cluster({ replicas: 3 })), { mode: 'async', acks: 1, fallbackMs: undefined, from: 'anchorDefault' });
  assert.deepEqual(replicationSettings(marked({ replicas: 2 })), {
    mode: 'semiSync',
    acks: 1,
    fallbackMs: undefined,
    from: 'losslessDefault',
  });
  assert.equal(replicationSettings(marked({ replicas: 1 })).mode, 'async', 'nothing could acknowledge');
  assert.equal(replicationSettings(marked({ replicas: 3, replication: { mode: 'async' } })).mode, 'async');
  assert.deepEqual(
    replicationSettings(cluster({ replicas: 3, replication: { mode: 'semiSync', semiSyncAcks: 2, semiSyncFallbackSeconds: 30 } })),
    {
      mode: 'semiSync',
      acks: 2,
      fallbackMs: 30_000,
      from: 'spec',
    },
  );
});
