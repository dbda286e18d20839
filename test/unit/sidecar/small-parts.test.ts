import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { gtidFromBinlogInfo } from '../../../src/sidecar/binlog-info.ts';
import { parseIni, renderIni } from '../../../src/sidecar/ini.ts';
import { authorized } from '../../../src/sidecar/serve.ts';
import { backupAccount, backupArgs, backupDefaults, extractArgs, toolNames } from '../../../src/sidecar/tools.ts';
import { writeSecretFile } from '../../../src/sidecar/secret-file.ts';
import { loadConfig } from '../../../src/sidecar/config.ts';
import { ALL_NEEDS, anchorPodEnv } from './env.ts';

test('GTID sets are read from MySQL and MariaDB binlog info files', () => {
  assert.equal(gtidFromBinlogInfo('mysql-bin.000001\t843\t0-1-3\n'), '0-1-3');
  assert.equal(gtidFromBinlogInfo('mysql-bin.000003\t194\tuuid-a:1-5,\nuuid-b:1-3\n'), 'uuid-a:1-5,uuid-b:1-3');
  assert.equal(gtidFromBinlogInfo('mysql-bin.000003\t194\n'), undefined);
  assert.equal(gtidFromBinlogInfo(''), undefined);
});

test('option files pad keys to the section width and quote what MySQL would misread', () => {
  const text = renderIni([
    {
      name: 'client',
      entries: [
        ['user', 'u'],
        ['password', 'a#b "c"'],
        ['skip-ssl', true],
      ],
    },
  ]);
  assert.equal(text, '[client]\nuser     = u\npassword = "a#b \\"c\\""\nskip-ssl\n\n');
  assert.equal(parseIni(text).get('client')?.get('password'), 'a#b "c"');
  assert.equal(parseIni(text).get('client')?.get('skip-ssl'), '');
});

test('basic auth accepts exactly the backup credentials', () => {
  const cred = { user: 'sys_backups', password: 'pw:with:colons' };
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  assert.equal(authorized(basic('sys_backups:pw:with:colons'), cred), true);
  assert.equal(authorized(basic('sys_backups:pw'), cred), false);
  assert.equal(authorized(basic('other:pw:with:colons'), cred), false);
  assert.equal(authorized(undefined, cred), false);
  assert.equal(authorized('Bearer x', cred), false);
  assert.equal(authorized(basic(':'), { user: '', password: '' }), false, 'no credentials configured: nobody gets in');
});

test('the backup runs the anchor arguments with the flavour tool, the status table excluded', () => {
  const maria = loadConfig(anchorPodEnv({ MY_MYSQL_VERSION: 'mariadb-10.11', XTRABACKUP_EXTRA_ARGS: '--parallel=2' }), [], ALL_NEEDS);
  assert.deepEqual(toolNames(maria.flavour), { backup: 'mariabackup', stream: 'mbstream' });
  assert.deepEqual(backupArgs(maria, '/tmp/sidecar-secret-x/backup.cnf'), [
    '--defaults-extra-file=/tmp/sidecar-secret-x/backup.cnf',
    '--backup',
    '--slave-info',
    '--stream=xbstream',
    '--tables-exclude=sys_operator.status',
    '--host=127.0.0.1',
    '--port=3306',
    '--user=sys_replication',
    '--target-dir=/tmp/xtrabackup_backupfiles/',
    '--parallel=2',
  ]);
  assert.deepEqual(toolNames(loadConfig(anchorPodEnv(), [], ALL_NEEDS).flavour), { backup: 'xtrabackup', stream: 'xbstream' });
});

test("the backup tool account's password goes into the option file, never into the arguments", () => {
  const cfg = loadConfig(anchorPodEnv(), [], ALL_NEEDS);
  const account = backupAccount(cfg, '[xtrabackup]\nuser     = sys_xtrabackup\npassword = "Repl #1 \\"x\\""\n\n');
  assert.deepEqual(account, { user: 'sys_xtrabackup', password: 'Repl #1 "x"' });
  const args = backupArgs(cfg, '/d/backup.cnf', account);
  assert.ok(args.includes('--user=sys_xtrabackup'), args.join(' '));
  // The tools take an option file only as their first argument.
  assert.equal(args[0], '--defaults-extra-file=/d/backup.cnf');
  assert.ok(!args.some((a) => a.includes('Repl #1') || a.startsWith('--password')), args.join(' '));
  const file = backupDefaults(account);
  assert.equal(file, '[xtrabackup]\npassword = "Repl #1 \\"x\\""\n\n');
  assert.equal(parseIni(file).get('xtrabackup')?.get('password'), 'Repl #1 "x"');
});

test('a secret file is 0600 in a 0700 directory of its own, and goes with it', async () => {
  const f = await writeSecretFile('backup.cnf', 'secret');
  assert.equal(await readFile(f.path, 'utf8'), 'secret');
  assert.equal((await stat(f.path)).mode & 0o777, 0o600);
  assert.equal((await stat(dirname(f.path))).mode & 0o777, 0o700);
  await f.remove();
  await assert.rejects(stat(dirname(f.path)), /ENOENT/);
  await f.remove();
});

test('the extractor runs two threads unless XBSTREAM_EXTRA_ARGS says otherwise (its value comes last, and wins)', () => {
  const plain = loadConfig(anchorPodEnv({ MY_MYSQL_VERSION: 'mariadb-10.11' }), [], ALL_NEEDS);
  assert.deepEqual(extractArgs(plain, '/d'), ['--extract', '--directory=/d', '--parallel=2']);
  const tuned = loadConfig(anchorPodEnv({ XBSTREAM_EXTRA_ARGS: '--parallel=8' }), [], ALL_NEEDS);
  assert.deepEqual(extractArgs(tuned, '/d'), ['--extract', '--directory=/d', '--parallel=2', '--parallel=8']);
});

test('heartbeat.conf is read back into connection parameters, a missing key is named', async () => {
  const { clientParams } = await import('../../../src/sidecar/heartbeat-command.ts');
  const { renderClientConf } = await import('../../../src/sidecar/render-pod-files.ts');
  const text = renderClientConf({ user: 'sys_heartbeat', password: 'p#1' }, { host: '127.0.0.1', port: 3306 });
  assert.deepEqual(clientParams(text, 'hb.conf'), { host: '127.0.0.1', port: 3306, user: 'sys_heartbeat', password: 'p#1' });
  assert.throws(() => clientParams('[client]\nhost = h\nport = 1\nuser = u\n', 'hb.conf'), /hb\.conf: \[client\] has no password/);
});

test('the sidecar logger writes one redacted JSON line per entry, below its level nothing', async () => {
  const { sidecarLogger } = await import('../../../src/sidecar/log.ts');
  const lines: string[] = [];
  const stream = { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream;
  const log = sidecarLogger({ stream, fields: { component: 'sidecar' } }).child({ step: 'clone' });
  log.info('connecting with password=hunter2', { password: 'hunter2', source: 'http://u:hunter2@h:8080' });
  log.debug('not shown');
  assert.equal(lines.length, 1);
  assert.ok(!lines[0]!.includes('hunter2'), lines[0]);
  const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(entry.level, 'info');
  assert.equal(entry.component, 'sidecar');
  assert.equal(entry.step, 'clone');
  assert.match(String(entry.timestamp), /^\d{4}-\d\d-\d\dT/);
});

test('without xtrabackup.cnf (files of an earlier sidecar) the tool logs in as the replication account; a file without a password is an error', () => {
  const cfg = loadConfig(anchorPodEnv(), [], ALL_NEEDS);
  assert.deepEqual(backupAccount(cfg, undefined), cfg.replication);
  assert.throws(() => backupAccount(cfg, '[xtrabackup]\nuser = sys_xtrabackup\n'), /no \[xtrabackup\] user and password/);
});
