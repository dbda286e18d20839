// Where a backup goes (docs/compatibility.md's URL rule) and which server it streams from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { names } from '../../../src/api/names.ts';
import { backupSecretName, resolveBackupUrl } from '../../../src/controllers/backup/backup-url.ts';
import { chooseBackupSource } from '../../../src/controllers/backup/choose-source.ts';
import { cluster, fqdn, pods } from './builders.ts';

describe('the backup URL rule', () => {
  const spec = { clusterName: 'my-db' };
  it('a URL ending in .xbackup.gz is used as is', () => {
    assert.deepEqual(
      resolveBackupUrl('b1', { ...spec, backupURL: 's3://bkt/x/mine.xbackup.gz' }, { secretName: 's', backupURL: 's3://bkt/other/' }),
      {
        ok: true,
        url: 's3://bkt/x/mine.xbackup.gz',
      },
    );
  });
  it('any other URL is a folder for <name>.xbackup.gz, with or without its slash', () => {
    assert.equal(
      (resolveBackupUrl('b1', { ...spec, backupURL: 's3://bkt/x' }, { secretName: 's' }) as { url: string }).url,
      's3://bkt/x/b1.xbackup.gz',
    );
    assert.equal(
      (resolveBackupUrl('b1', { ...spec, backupURL: 's3://bkt/x/' }, { secretName: 's' }) as { url: string }).url,
      's3://bkt/x/b1.xbackup.gz',
    );
  });
  it("an empty backupURL takes the cluster's", () => {
    assert.equal(
      (resolveBackupUrl('b1', { ...spec, backupURL: '' }, { secretName: 's', backupURL: 's3://bucket/my-db/' }) as { url: string }).url,
      's3://bucket/my-db/b1.xbackup.gz',
    );
  });
  it('no URL anywhere is refused, naming both fields', () => {
    const r = resolveBackupUrl('b1', spec, { secretName: 's' });
    assert.equal(r.ok, false);
    assert.equal((r as { reason: string }).reason, 'BackupURLMissing');
    assert.match((r as { message: string }).message, /spec\.backupURL of the MysqlBackup or spec\.backupURL of MysqlCluster my-db/);
  });
  it('an unsupported scheme is refused, naming the field it came from', () => {
    const r = resolveBackupUrl('b1', spec, { secretName: 's', backupURL: 'http://bk/x/' });
    assert.equal((r as { reason: string }).reason, 'InvalidBackupURL');
    assert.match((r as { message: string }).message, /^spec\.backupURL of MysqlCluster my-db: http:\/\/ backups are not supported yet/);
  });
  it('gs:// and azure:// folders are taken, as the anchor took them', () => {
    for (const folder of ['gs://bkt/x/', 'azure://bk1/x']) {
      const r = resolveBackupUrl('b1', spec, { secretName: 's', backupURL: folder });
      assert.equal((r as { url: string }).url, `${folder.replace(/\/$/, '')}/b1.xbackup.gz`);
    }
  });
  it("the credentials Secret: the backup's own, else the cluster's, else none", () => {
    assert.equal(backupSecretName({ ...spec, backupSecretName: 'own' }, { secretName: 's', backupSecretName: 'c' }), 'own');
    assert.equal(backupSecretName(spec, { secretName: 's', backupSecretName: 'c' }), 'c');
    assert.equal(backupSecretName(spec, { secretName: 's' }), undefined);
  });
});

describe('the backup source', () => {
  const healthy = { replicating: true };
  it('is the first replica replicating, not lagged and labelled replica/healthy', () => {
    const c = cluster({}, [{ master: true }, healthy, healthy]);
    assert.deepEqual(
      chooseBackupSource(
        c,
        pods([
          ['master', 'yes'],
          ['replica', 'yes'],
          ['replica', 'yes'],
        ]),
      ),
      { host: fqdn(1), replica: true },
    );
  });
  it('skips a lagging replica and one whose pod is labelled unhealthy', () => {
    const c = cluster({}, [{ master: true }, { replicating: true, lagged: true }, healthy, healthy]);
    const p = pods([
      ['master', 'yes'],
      ['replica', 'yes'],
      ['replica', 'no'],
      ['replica', 'yes'],
    ]);
    assert.deepEqual(chooseBackupSource(c, p), { host: fqdn(3), replica: true });
  });
  it('is the master when no replica qualifies', () => {
    const c = cluster({}, [{ master: true }, { replicating: false }]);
    assert.deepEqual(
      chooseBackupSource(
        c,
        pods([
          ['master', 'yes'],
          ['replica', 'no'],
        ]),
      ),
      { host: fqdn(0), replica: false },
    );
  });
  it('is the pod labelled master when status has no nodes, else the master Service', () => {
    assert.deepEqual(chooseBackupSource(cluster(), pods([undefined, ['master', 'yes']])), { host: fqdn(1), replica: false });
    assert.deepEqual(chooseBackupSource(cluster(), pods([])), { host: `${names.masterService('my-db')}.default`, replica: false });
  });
});

describe('the Job name', () => {
  it("is the anchor's <backup>-backup", () => {
    assert.equal(names.backupJob('my-db-auto-2026-01-01t00-00-00'), 'my-db-auto-2026-01-01t00-00-00-backup');
  });
  it('is cut with a hash when it would pass 63 characters, distinct for names sharing a prefix', () => {
    const a = names.backupJob(`${'x'.repeat(60)}-a`);
    const b = names.backupJob(`${'x'.repeat(60)}-b`);
    assert.ok(a.length <= 63 && b.length <= 63, `${a} ${b}`);
    assert.notEqual(a, b);
    assert.match(a, /^x{44}-\d+-backup$/);
  });
});
