// An operator upgrade restarts no pod of an existing cluster (issue 22): the objects a cluster got
// from an earlier version (test/fixtures/upgrade/, frozen) give back the same pod template, and so
// no StatefulSet update that would roll its pods.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { parse } from 'yaml';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { decideDesired } from '../../../src/controllers/cluster/decide-desired.ts';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { validateCluster } from '../../../src/controllers/cluster/validate-cluster.ts';
import { ROOT_SECRET, wire } from './builders.ts';

interface Baseline {
  cluster: MysqlCluster;
  configMapData: Record<string, string>;
  secretData: Record<string, string>;
  statefulSet: V1StatefulSet;
}

const OPTIONS = clusterOptions({ orcTopologyUser: 'orchestrator', orcTopologyPassword: 'OrcTopology10' });
const DIR = new URL('../../fixtures/upgrade/', import.meta.url);

for (const name of ['mariadb-10.11', 'mysql-8.0']) {
  test(`a ${name} cluster made on 2026-11-28 keeps its pod template under today's operator`, () => {
    const before = parse(readFileSync(new URL(`${name}.yaml`, DIR), 'utf8')) as Baseline;
    const v = validateCluster(before.cluster, ROOT_SECRET, OPTIONS);
    assert.ok(v.ok, 'the stored cluster is valid');
    const desired = decideDesired(
      {
        cluster: before.cluster,
        version: v.version,
        images: v.images,
        rootPasswordKey: v.rootPasswordKey,
        opts: OPTIONS,
        existingSecretData: before.secretData,
        generatePassword: () => assert.fail('an existing cluster needs no new password'),
      },
      { statefulSet: before.statefulSet, configMapData: before.configMapData, secretData: before.secretData },
    );
    assert.deepEqual(wire(desired.statefulSet.spec?.template), before.statefulSet.spec?.template);
    assert.deepEqual(desired.configMap.data, before.configMapData, 'the same my.cnf and scripts');
  });
}
