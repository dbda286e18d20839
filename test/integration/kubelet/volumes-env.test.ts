// A pod as the sandbox kubelet runs it, checked from inside its containers: the init container
// runs first, every volume kind is at its container path with the specified files and modes, the
// env is resolved from every kind of source, the hostname and /etc/hosts are the pod's, a
// configMap volume follows its object, and the host saw no change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../support/wait.ts';
import { getPod, withKubelet, NODE, shellPod, SHELL_IMAGE, SKIP_REAL } from './harness.ts';

/** What a container must not change on the host; `tmpFile`: the name the containers write in their /tmp. */
function hostSnapshot(tmpFile: string): string {
  const list = (d: string) => (existsSync(d) ? readdirSync(d).sort().join(',') : '-');
  return JSON.stringify({
    hosts: readFileSync('/etc/hosts', 'utf8'),
    hostname: hostname(),
    etcMysql: list('/etc/mysql'),
    varLibMysql: list('/var/lib/mysql'),
    opt: list('/opt'),
    tmp: existsSync(join('/tmp', tmpFile)),
  });
}

// The script of the main container: one `key=value` line per fact, written where the test reads it.
const REPORT = String.raw`
r=/report/facts
echo written > "/tmp/from-container-$POD_NAMESPACE"
{
  echo "hostname=$(hostname)"
  echo "HOSTNAME=$HOSTNAME"
  echo "greeting=$GREETING"
  echo "args=$1"
  echo "secret=$FROM_SECRET"
  echo "optional=$(printenv MISSING_OPTIONAL || echo unset)"
  echo "cm=$FROM_CONFIGMAP"
  echo "prefixed=$CFG_color"
  echo "pod=$POD_NAME/$POD_NAMESPACE/$NODE/$POD_IP/$APP_LABEL"
  echo "memoryMi=$MEMORY_MI"
  echo "cpu=$CPU_LIMIT"
  echo "init=$(cat /workdir/init-marker)"
  echo "pvc=$(cat /var/lib/mysql/seed)"
  echo "host=$(cat /hostdir/seed)"
  echo "cmfile=$(cat /cm/greeting.txt)"
  echo "cmmode=$(stat -L -c %a /cm/greeting.txt)"
  echo "cmkeys=$(ls /cm | tr '\n' ' ')"
  echo "secretfile=$(cat /secret/pass)"
  echo "secretmode=$(stat -L -c %a /secret/pass)"
  echo "downward=$(cat /downward/name)|$(cat /downward/labels)"
  echo "projected=$(cat /projected/s/pass),$(cat /projected/c/color),$(cat /projected/ns)"
  echo "subpath=$(cat /etc/mysql/kubelet-test/extra.cnf | tr '\n' ' ')"
  echo "newdir=$(ls -d /opt/kubelet-test-data)"
  echo "etchosts=$(cat /etc/hosts | tr '\n' '|')"
  echo "tmp=$(ls -A /tmp | tr '\n' ' ')$(stat -c %a /tmp)"
} > $r.tmp
mv $r.tmp $r
echo written > /var/lib/mysql/from-container
echo "main started"
while true; do cat /cm/greeting.txt > /report/cm-now.tmp; mv /report/cm-now.tmp /report/cm-now; sleep 0.1; done
`;

test('a pod runs init then its containers with every volume and env kind, and the host sees no change', { skip: SKIP_REAL }, (t) =>
  withKubelet(t, {}, async (env) => {
    const { client, namespace: ns } = env;
    const tmpFile = `from-container-${ns}`;
    const before = hostSnapshot(tmpFile);
    const report = join(env.scratch, 'report');
    const hostDir = join(env.scratch, 'hostdir');
    const pvDir = join(env.scratch, 'pv');
    for (const d of [report, hostDir, pvDir]) mkdirSync(d);
    writeFileSync(join(hostDir, 'seed'), 'from-hostpath');
    writeFileSync(join(pvDir, 'seed'), 'from-pv');

    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: ns },
      stringData: { pass: 's3cr3t', user: 'app' },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: ns },
      data: { greeting: 'hello', color: 'blue', 'extra.cnf': '[mysqld]\nx=1' },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `pv-${ns}` },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: pvDir } },
    });
    t.after(() =>
      client.delete({ apiVersion: 'v1', kind: 'PersistentVolume', name: `pv-${ns}` }).then(
        () => undefined,
        () => undefined,
      ),
    );
    await client.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: ns },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: `pv-${ns}` },
    });

    const mounts = [
      { name: 'work', mountPath: '/workdir' },
      { name: 'report', mountPath: '/report' },
      { name: 'data', mountPath: '/var/lib/mysql' },
      { name: 'host', mountPath: '/hostdir' },
      { name: 'cm', mountPath: '/cm' },
      { name: 'secret', mountPath: '/secret' },
      { name: 'downward', mountPath: '/downward' },
      { name: 'projected', mountPath: '/projected' },
      { name: 'cm-all', mountPath: '/etc/mysql/kubelet-test/extra.cnf', subPath: 'extra.cnf' },
      { name: 'new', mountPath: '/opt/kubelet-test-data' },
    ];
    await client.create(
      shellPod(
        ns,
        'everything',
        {
          initContainers: [
            {
              name: 'init',
              image: SHELL_IMAGE,
              args: ['-c', 'echo init-ran > /workdir/init-marker; echo "init done"'],
              volumeMounts: [{ name: 'work', mountPath: '/workdir' }],
            },
          ],
          containers: [
            {
              name: 'main',
              image: SHELL_IMAGE,
              command: ['/bin/sh', '-c', REPORT, 'sh'],
              args: ['$(GREETING) world'],
              envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }],
              env: [
                { name: 'NAME', value: 'kubelet' },
                { name: 'GREETING', value: 'hi $(NAME), $$(NAME) stays' },
                { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'pass' } } },
                { name: 'MISSING_OPTIONAL', valueFrom: { secretKeyRef: { name: 'nope', key: 'x', optional: true } } },
                { name: 'FROM_CONFIGMAP', valueFrom: { configMapKeyRef: { name: 'settings', key: 'color' } } },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'APP_LABEL', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
                { name: 'MEMORY_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
                { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
              ],
              resources: { limits: { memory: '64Mi', cpu: '1500m' } },
              volumeMounts: mounts,
            },
            // Once main has written in its /tmp, what this container's /tmp holds.
            {
              name: 'second',
              image: SHELL_IMAGE,
              volumeMounts: [{ name: 'report', mountPath: '/report' }],
              args: [
                '-c',
                'until [ -e /report/facts ]; do sleep 0.1; done; echo mine > /tmp/second; ls -A /tmp > /report/second-tmp.tmp; mv /report/second-tmp.tmp /report/second-tmp; echo second running; exec sleep 1000',
              ],
            },
          ],
          volumes: [
            { name: 'work', emptyDir: {} },
            { name: 'report', hostPath: { path: report } },
            { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
            { name: 'host', hostPath: { path: hostDir } },
            { name: 'cm', configMap: { name: 'settings', items: [{ key: 'greeting', path: 'greeting.txt' }], defaultMode: 0o640 } },
            { name: 'cm-all', configMap: { name: 'settings' } },
            { name: 'secret', secret: { secretName: 'creds', items: [{ key: 'pass', path: 'pass', mode: 0o400 }] } },
            {
              name: 'downward',
              downwardAPI: {
                items: [
                  { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
                  { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                ],
              },
            },
            {
              name: 'projected',
              projected: {
                sources: [
                  { secret: { name: 'creds', items: [{ key: 'pass', path: 's/pass' }] } },
                  { configMap: { name: 'settings', items: [{ key: 'color', path: 'c/color' }] } },
                  { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
                ],
              },
            },
            { name: 'new', emptyDir: {} },
          ],
        },
        { app: 'demo' },
      ),
    );

    const facts = await eventually('the main container to write its report', () => {
      const text = readFileSync(join(report, 'facts'), 'utf8');
      return Object.fromEntries(
        text
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
    });
    const uid = (await getPod(client, ns, 'everything'))!.metadata!.uid!;
    assert.deepEqual(facts, {
      hostname: 'everything',
      HOSTNAME: 'everything',
      greeting: 'hi kubelet, $(NAME) stays',
      args: 'hi kubelet, $(NAME) stays world',
      secret: 's3cr3t',
      optional: 'unset',
      cm: 'blue',
      prefixed: 'blue',
      pod: `everything/${ns}/${NODE}/127.0.0.1/demo`,
      memoryMi: '64',
      cpu: '2',
      init: 'init-ran',
      pvc: 'from-pv',
      host: 'from-hostpath',
      cmfile: 'hello',
      cmmode: '640',
      cmkeys: 'greeting.txt ',
      secretfile: 's3cr3t',
      secretmode: '400',
      downward: 'everything|app="demo"',
      projected: `s3cr3t,blue,${ns}`,
      subpath: '[mysqld] x=1',
      newdir: '/opt/kubelet-test-data',
      etchosts: env.hostsFiles.get(uid)!.replace(/\n/g, '|'),
      // A /tmp of its own, as an image gives it: empty but for what it wrote, sticky and world-writable.
      tmp: `${tmpFile} 1777`,
    });
    const secondTmp = await eventually("the second container's /tmp listing", () => readFileSync(join(report, 'second-tmp'), 'utf8'));
    assert.equal(secondTmp, 'second\n', 'each container has its own /tmp');
    assert.equal(
      readFileSync(join(pvDir, 'from-container'), 'utf8'),
      'written\n',
      'the PV directory holds what the container wrote at /var/lib/mysql',
    );

    const running = await eventually('the pod to be Running and Ready', async () => {
      const p = await getPod(client, ns, 'everything');
      return p?.status?.phase === 'Running' && p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && p;
    });
    assert.equal(running.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode, 0);
    assert.equal(running.status?.initContainerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
    assert.deepEqual(
      running.status?.containerStatuses?.map((c) => [c.name, Boolean(c.state?.running), c.ready, c.started]),
      [
        ['main', true, true, true],
        ['second', true, true, true],
      ],
    );
    assert.equal(running.status?.podIP, '127.0.0.1');
    assert.equal(running.status?.hostIP, '127.0.0.1');
    assert.ok(running.status?.startTime);

    // configMap volumes follow their object.
    await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'settings' }, { data: { greeting: 'updated' } });
    await eventually(
      'the configMap volume to show the new value inside the container',
      () => readFileSync(join(report, 'cm-now'), 'utf8').trim() === 'updated',
    );

    assert.equal(hostSnapshot(tmpFile), before, "the host's /etc/hosts, hostname, /etc/mysql, /var/lib/mysql, /opt and /tmp are unchanged");
    const node = (await client.get({ apiVersion: 'v1', kind: 'Node', name: NODE })) as {
      status?: { conditions?: Array<{ type: string; status: string }> };
    };
    assert.equal(node.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    // No mount of the pod's is visible outside its containers.
    assert.equal(execFileSync('findmnt', ['-rn', '-o', 'TARGET'], { encoding: 'utf8' }).includes('kubelet-test'), false);
  }),
);
