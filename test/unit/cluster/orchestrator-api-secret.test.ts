// The pods' pre-stop hook and Orchestrator's API credentials (docs/security.md, "Orchestrator's
// API"): the script keeps the anchor's bytes and its curl reads `$CURL_HOME/.curlrc`, the Secret
// `<c>-mysql-orc-api` mounted in the mysql container; an adopted template (the anchor's probes) is
// left as it is, so adopted pods do not roll.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { curlrcText } from '../../../src/controllers/cluster/render-orchestrator-api-secret.ts';
import { renderPreShutdownScript } from '../../../src/controllers/cluster/render-pre-shutdown-script.ts';
import { ANNOTATION_CONFIG_HASH } from '../../../src/api/constants.ts';
import { cluster, render } from './builders.ts';

const CREDS = { user: 'orc-operator', password: 'pw"with\\odd' };
const OURS = { [ANNOTATION_CONFIG_HASH]: 'h' };

function rendered(
  opts: { probes?: 'fast' | 'anchor'; creds?: boolean; spec?: Parameters<typeof cluster>[0]; failoverBeforeShutdown?: boolean } = {},
) {
  return render(
    cluster(opts.spec ?? {}, { name: 'my-db', namespace: 'ns' }),
    clusterOptions({ failoverBeforeShutdown: opts.failoverBeforeShutdown ?? true }),
    OURS,
    {},
    undefined,
    opts.probes ?? 'fast',
    opts.creds === false ? {} : { orchestratorCredentials: CREDS },
  );
}

const mysqlOf = (d: ReturnType<typeof rendered>) => d.statefulSet.spec!.template.spec!.containers.find((c) => c.name === 'mysql')!;
const curlVolume = (d: ReturnType<typeof rendered>) =>
  d.statefulSet.spec!.template.spec!.volumes!.find((v) => v.name === 'orchestrator-api');

test('curl\'s config line: the credentials quoted, \\ and " escaped, a line break refused', () => {
  assert.equal(curlrcText(CREDS), 'user = "orc-operator:pw\\"with\\\\odd"\n');
  assert.throws(() => curlrcText({ user: 'u', password: 'a\nb' }), /line break/);
});

test('with credentials, the mysql container reads them through CURL_HOME from the mounted Secret, and the script is unchanged', () => {
  const d = rendered();
  const secret = d.orchestratorApiSecret!;
  assert.equal(secret.metadata!.name, 'my-db-mysql-orc-api');
  assert.equal(secret.metadata!.ownerReferences![0]!.name, 'my-db');
  assert.equal(Buffer.from(secret.data!.curlrc!, 'base64').toString(), curlrcText(CREDS));
  const mysql = mysqlOf(d);
  assert.deepEqual(
    mysql.env!.find((e) => e.name === 'CURL_HOME'),
    { name: 'CURL_HOME', value: '/etc/mysql/orchestrator-api' },
  );
  assert.deepEqual(
    mysql.volumeMounts!.find((m) => m.name === 'orchestrator-api'),
    { name: 'orchestrator-api', mountPath: '/etc/mysql/orchestrator-api', readOnly: true },
  );
  assert.deepEqual(curlVolume(d), {
    name: 'orchestrator-api',
    secret: { secretName: 'my-db-mysql-orc-api', items: [{ key: 'curlrc', path: '.curlrc' }] },
  });
  assert.ok(!JSON.stringify(d.statefulSet).includes(CREDS.password), 'no credential in the StatefulSet');
  assert.equal(d.configMap.data!['pre-shutdown-ha.sh'], renderPreShutdownScript());
  assert.equal(rendered({ creds: false }).configMap.data!['pre-shutdown-ha.sh'], renderPreShutdownScript());
});

test("an adopted template (the anchor's probes), a user lifecycle, no pre-stop hook or no credentials: nothing mounted", () => {
  for (const d of [
    rendered({ probes: 'anchor' }),
    rendered({ spec: { podSpec: { mysqlLifecycle: { preStop: { exec: { command: ['true'] } } } } } }),
    rendered({ failoverBeforeShutdown: false }),
    rendered({ creds: false }),
  ]) {
    assert.equal(
      mysqlOf(d).env!.some((e) => e.name === 'CURL_HOME'),
      false,
    );
    assert.equal(curlVolume(d), undefined);
    assert.equal(
      mysqlOf(d).volumeMounts!.some((m) => m.name === 'orchestrator-api'),
      false,
    );
  }
  // The Secret is kept up to date even where the template does not mount it yet (the next rollout will).
  assert.ok(rendered({ probes: 'anchor' }).orchestratorApiSecret);
  assert.equal(rendered({ creds: false }).orchestratorApiSecret, undefined);
});
