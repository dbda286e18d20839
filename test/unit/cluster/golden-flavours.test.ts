// Golden files per server flavour: my.cnf and the StatefulSet of the same cluster spec.
// Regenerate after an intended change with `npm run golden` and review the diff.
import { test } from 'node:test';
import { stringify } from 'yaml';
import { assertGolden } from '../../support/golden.ts';
import { cluster, GOLDEN_DIR, render, wire } from './builders.ts';

const FLAVOURS = ['5.7', '8.0', '8.4', 'mariadb-10.6', 'mariadb-10.11', 'mariadb-11.4'];

for (const version of FLAVOURS) {
  const c = cluster({
    replicas: 3,
    mysqlVersion: version,
    mysqlConf: { 'max-connections': 1000, 'innodb-flush-log-at-trx-commit': '1' },
    podSpec: { resources: { requests: { cpu: '500m', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } } },
    volumeSpec: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } },
  });
  const desired = render(c, undefined, { 'mysql.presslabs.org/config-hash': '<HASH>' });

  test(`my.cnf for ${version} matches its golden file`, () => {
    assertGolden(`${GOLDEN_DIR}flavours/${version}.my.cnf`, desired.configMap.data!['my.cnf']!);
  });

  test(`StatefulSet for ${version} matches its golden file`, () => {
    assertGolden(`${GOLDEN_DIR}flavours/${version}.statefulset.yaml`, stringify(wire(desired.statefulSet)));
  });
}
