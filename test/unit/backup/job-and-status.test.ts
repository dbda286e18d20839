// The backup Job against the anchor's (fixtures/anchor-v0.6.3/job-backup.yaml), and the status a
// finished Job gives the MysqlBackup.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import { decideStart, finishedStatus, startedStatus, statusChange, type Backup } from '../../../src/controllers/backup/decide-backup.ts';
import { jobOutcome } from '../../../src/controllers/backup/job-outcome.ts';
import { anchorCluster, anchorObject, wire } from '../cluster/builders.ts';
import { NOW, OPTS, backup, cluster, fqdn, job, jobPod, pods } from './builders.ts';

// As the sidecar's take-backup-to reports it (src/api/backup-report.ts).
const REPORT = {
  url: 's3://bucket/my-db/b.xbackup.gz',
  bytes: 123456,
  streamBytes: 999999,
  source: 'my-db-mysql-1.mysql.default',
  startTime: '2026-01-01T00:00:01.500Z',
  completionTime: '2026-01-01T00:00:03.900Z',
  durationSeconds: 2.4,
  position: { binlogFile: 'mysql-bin.000003', binlogPosition: 1234, gtid: '0-100-42' },
};

function started(d: ReturnType<typeof decideStart>) {
  assert.equal(d.action, 'start', JSON.stringify(d));
  return d as Extract<typeof d, { action: 'start' }>;
}

describe('the backup Job', () => {
  it("equals the anchor's for its sample cluster, apart from our documented additions", () => {
    const c = { ...anchorCluster(), status: { nodes: cluster({}, [{ master: true }, { replicating: true }]).status!.nodes } } as ReturnType<
      typeof cluster
    >;
    const anchorBackup = anchorObject<Backup>('mysqlbackup.yaml');
    anchorBackup.metadata!.uid = '<MYSQLBACKUP_UID>';
    const d = started(
      decideStart({
        backup: anchorBackup,
        cluster: c,
        pods: pods([
          ['master', 'yes'],
          ['replica', 'yes'],
        ]),
        opts: OPTS,
        now: NOW,
      }),
    );
    const rendered = wire(d.job) as V1Job & { spec: { template: { metadata?: unknown } } };
    // Ours: a deadline, the pods' labels (the cluster's name for its NetworkPolicy), the termination message falling back to the log.
    assert.equal(rendered.spec.activeDeadlineSeconds, 12 * 3600);
    assert.deepEqual(rendered.spec.template.metadata, {
      labels: { 'app.kubernetes.io/managed-by': 'mysql.presslabs.org', 'app.kubernetes.io/component': 'backup', cluster: 'my-db' },
    });
    assert.equal(rendered.spec.template.spec!.containers[0]!.terminationMessagePolicy, 'FallbackToLogsOnError');
    delete rendered.spec.activeDeadlineSeconds;
    delete rendered.spec.template.metadata;
    delete rendered.spec.template.spec!.containers[0]!.terminationMessagePolicy;
    assert.deepEqual(rendered, anchorObject('job-backup.yaml'));
  });

  it("carries the cluster's backup scheduling fields and the compress command when both commands are set", () => {
    const podSpec = {
      backupNodeSelector: { disk: 'fast' },
      backupPriorityClassName: 'low',
      backupTolerations: [{ key: 'k', operator: 'Exists' }],
      backupAffinity: { nodeAffinity: {} },
    };
    const c = cluster({ podSpec, backupCompressCommand: ['zstd', '-3'], backupDecompressCommand: ['zstd', '-d'] } as never, [
      { master: true },
    ]);
    const spec = started(decideStart({ backup: backup(), cluster: c, pods: pods([['master', 'yes']]), opts: OPTS, now: NOW })).job.spec!
      .template.spec!;
    assert.deepEqual(spec.nodeSelector, podSpec.backupNodeSelector);
    assert.equal(spec.priorityClassName, 'low');
    assert.deepEqual(spec.tolerations, podSpec.backupTolerations);
    assert.deepEqual(spec.affinity, podSpec.backupAffinity);
    assert.deepEqual(spec.containers[0]!.env!.at(-1), { name: 'BACKUP_COMPRESS_COMMAND', value: 'zstd -3' });
  });

  it('persists the resolved URL and Secret in spec, and asks for the cleanup finalizer under policy delete', () => {
    const d = started(
      decideStart({ backup: backup('b1', { remoteDeletePolicy: 'delete' }), cluster: cluster(), pods: pods([]), opts: OPTS, now: NOW }),
    );
    assert.deepEqual(d.specPatch, { backupURL: 's3://bucket/my-db/b1.xbackup.gz', backupSecretName: 'my-db-backup' });
    assert.deepEqual(d.finalizers, ['backups.mysql.presslabs.org/remote-storage-cleanup']);
    const again = started(
      decideStart({
        backup: backup('b1', { backupURL: d.url, backupSecretName: 'my-db-backup' }),
        cluster: cluster(),
        pods: pods([]),
        opts: OPTS,
        now: NOW,
      }),
    );
    assert.deepEqual([again.specPatch, again.finalizers], [{}, undefined]);
  });

  it('is not made without a cluster or a URL: Failed names the field', () => {
    const noCluster = decideStart({ backup: backup(), cluster: undefined, pods: pods([]), opts: OPTS, now: NOW });
    assert.equal(noCluster.action, 'refuse');
    assert.match((noCluster as { message: string }).message, /^spec\.clusterName: MysqlCluster my-db not found/);
    const noUrl = decideStart({ backup: backup(), cluster: cluster({ backupURL: '' }), pods: pods([]), opts: OPTS, now: NOW });
    const failed = (noUrl as { status: Backup['status'] }).status!.conditions!.find((c) => c.type === 'Failed')!;
    assert.deepEqual([failed.status, failed.reason], ['True', 'BackupURLMissing']);
  });
});

describe('the status from the Job', () => {
  it('a running Job: Complete False, the URL and source recorded, the replica downtimed', () => {
    const s = startedStatus(backup(), REPORT.url, fqdn(1), { ok: true }, NOW);
    assert.equal(s.completed, false);
    assert.equal(s.sourceNode, fqdn(1));
    assert.equal(s.startTime, '2026-01-01T00:00:05Z');
    assert.deepEqual(
      s.conditions!.map((c) => [c.type, c.status, c.reason]),
      [
        ['Complete', 'False', 'BackupRunning'],
        ['ReplicaDowntimed', 'True', 'DowntimeBegun'],
      ],
    );
    const unreachable = startedStatus(backup(), REPORT.url, fqdn(1), { ok: false, message: 'connect ECONNREFUSED' }, NOW);
    const dt = unreachable.conditions!.find((c) => c.type === 'ReplicaDowntimed')!;
    assert.deepEqual([dt.status, dt.reason], ['False', 'OrchestratorUnreachable']);
    assert.match(dt.message!, /was not downtimed, the backup proceeds: connect ECONNREFUSED/);
  });

  it('a completed Job: completed, Complete True with its reason, size, times, source and position from the report', () => {
    const running = backup('b', {}, startedStatus(backup(), REPORT.url, fqdn(1), { ok: true }, NOW));
    const outcome = jobOutcome(
      job({ type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }),
      [jobPod(0, JSON.stringify(REPORT))],
    );
    assert.equal(outcome.state, 'succeeded');
    const s = finishedStatus(running, outcome as Extract<typeof outcome, { state: 'succeeded' }>, true, NOW);
    assert.equal(s.completed, true);
    assert.deepEqual(
      [s.backupURL, s.sizeBytes, s.startTime, s.completionTime, s.sourceNode, s.binlogFile, s.binlogPosition, s.gtidExecuted],
      [REPORT.url, 123456, REPORT.startTime, REPORT.completionTime, fqdn(1), 'mysql-bin.000003', 1234, '0-100-42'],
    );
    assert.deepEqual(
      s.conditions!.map((c) => [c.type, c.status, c.reason]),
      [
        ['Complete', 'True', 'CompletionsReached'],
        ['Failed', 'False', 'CompletionsReached'],
        ['ReplicaDowntimed', 'False', 'DowntimeEnded'],
      ],
    );
    assert.equal(statusChange(backup('b', {}, s).status, s), undefined, 'the same status again is no write');
    const kept = finishedStatus(running, outcome as Extract<typeof outcome, { state: 'succeeded' }>, false, NOW).conditions!.find(
      (c) => c.type === 'ReplicaDowntimed',
    )!;
    assert.deepEqual([kept.status, kept.reason], ['False', 'OrchestratorUnreachable']);
    assert.match(kept.message!, /ends by itself at the backup timeout/);
  });

  it("a failed Job: Failed True, not completed, the message quoting the container's last words", () => {
    const outcome = jobOutcome(
      job({ type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }),
      [
        jobPod(1, 'first attempt', '2026-01-01T00:00:02Z'),
        jobPod(1, 'upload to s3://bucket/my-db/b.xbackup.gz failed: AccessDenied', '2026-01-01T00:00:04Z'),
      ],
    );
    const s = finishedStatus(backup(), outcome as Extract<typeof outcome, { state: 'failed' }>, true, NOW);
    assert.equal(s.completed, false);
    assert.equal(s.sizeBytes, undefined);
    const failed = s.conditions!.find((c) => c.type === 'Failed')!;
    assert.deepEqual([failed.status, failed.reason], ['True', 'BackoffLimitExceeded']);
    assert.equal(
      failed.message,
      'Job has reached the specified backoff limit; backup container: upload to s3://bucket/my-db/b.xbackup.gz failed: AccessDenied',
    );
  });

  it("a failed Job's condition quotes the container's last words redacted, even where the quote is cut", () => {
    // What mariabackup and the S3 client may print: a DSN, a command line, env-style keys.
    const lines = [
      'x'.repeat(2000),
      'mariabackup --user=sys_backups --password=Bk-Pass-1 --host=127.0.0.1',
      'MYSQL_PWD=Pwd-Pass-2 mariadb -e "SELECT 1"',
      'upload to s3://AKIDEXAMPLE:S3-Pass-3@minio:9000/bucket failed; aws_secret_access_key=S3-Pass-4 access_key=Key-5',
      'token: Tok-6',
    ];
    const outcome = jobOutcome(job({ type: 'Failed', reason: 'BackoffLimitExceeded', message: 'backoff limit; passwd=Job-Pass-7' }), [
      jobPod(1, lines.join('\n')),
    ]);
    const s = finishedStatus(backup(), outcome as Extract<typeof outcome, { state: 'failed' }>, true, NOW);
    for (const c of s.conditions!) {
      assert.doesNotMatch(c.message ?? '', /Pass-\d|Key-5|Tok-6/, c.message);
    }
    const failed = s.conditions!.find((c) => c.type === 'Failed')!;
    assert.match(failed.message!, /--password=\*\*\* --host=127\.0\.0\.1/, 'what was masked is said');
    assert.match(failed.message!, /backup container: mariabackup --user=sys_backups/, 'the quote begins at a line, not inside one');
    // A quote cut inside a line that held a secret: the cut part never shows its value.
    const cut = jobOutcome(job({ type: 'Failed' }), [jobPod(1, `${'y'.repeat(10)}password=${'z'.repeat(1100)}`)]);
    assert.doesNotMatch((cut as { message: string }).message, /zzz/);
  });

  it('a Job past its deadline is Failed (DeadlineExceeded); one still running or only FailureTarget is running', () => {
    const dead = jobOutcome(
      job({ type: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }),
      [],
    );
    assert.deepEqual([dead.state, (dead as { reason: string }).reason], ['failed', 'DeadlineExceeded']);
    assert.equal(jobOutcome(job(), []).state, 'running');
    const target = job();
    target.status!.conditions = [{ type: 'FailureTarget', status: 'True' }];
    assert.equal(jobOutcome(target, []).state, 'running');
    assert.equal(jobOutcome(undefined, []).state, 'absent');
  });

  it("the report is read from the pod that succeeded, after the container's other output", () => {
    const outcome = jobOutcome(job({ type: 'Complete' }), [
      jobPod(1, 'network hiccup', '2026-01-01T00:00:02Z'),
      jobPod(0, `progress\n${JSON.stringify(REPORT)}`),
    ]);
    assert.deepEqual((outcome as { report: unknown }).report, REPORT);
    const noReport = jobOutcome(job({ type: 'Complete' }), []);
    assert.equal((noReport as { report: unknown }).report, undefined);
  });
});
