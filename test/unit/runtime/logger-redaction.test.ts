import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, redact, redactString } from '../../../src/runtime/logger.ts';
import { redactedTail } from '../../../src/runtime/redact.ts';

function capture(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

const SECRETS = ['r00tPa55', 'cmVwbFBhc3M=', 'dsnS3cret', 'idByS3cret', 'masterS3cret', 'envS3cret', 'tok3nValue', 'stringDataS3cret'];

describe('logger redaction', () => {
  it('never writes secret values: Secret objects, DSNs, SQL, errors, env-style text', async () => {
    const out = capture();
    const log = createLogger({ stream: out.stream, level: 'debug' });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'my-db-secret', namespace: 'default' },
      data: { ROOT_PASSWORD: 'cjAwdFBhNTU=', REPLICATION_PASSWORD: 'cmVwbFBhc3M=' },
      stringData: { USER: 'stringDataS3cret' },
    };
    log.info('read secret', { object: secret });
    log.info('connecting to mysql://root:dsnS3cret@my-db-mysql-0.mysql.default:3306/?timeout=5s', { cluster: 'my-db' });
    log.error('reconcile failed', {
      error: new Error("CREATE USER 'app'@'%' IDENTIFIED BY 'idByS3cret' failed: access denied"),
      sql: "CHANGE MASTER TO MASTER_HOST='h', MASTER_USER='sys_replication', MASTER_PASSWORD='masterS3cret'",
    });
    log.warn('init env ROOT_PASSWORD=r00tPa55 USER=app', { password: 'r00tPa55', authToken: 'tok3nValue' });
    log
      .child({ controller: 'cluster' })
      .debug('env', { env: { BACKUP_PASSWORD: 'envS3cret' }, header: 'Authorization: Bearer tok3nValue' });
    const lines = out.lines();
    assert.equal(lines.length, 5);
    for (const line of lines) {
      JSON.parse(line); // every line is one JSON object
      for (const s of SECRETS) assert.ok(!line.includes(s), `secret ${s} leaked in ${line}`);
    }
    const first = JSON.parse(lines[0] ?? '{}') as { object: { metadata: { name: string }; data: Record<string, string> } };
    assert.equal(first.object.metadata.name, 'my-db-secret', 'non-secret fields stay readable');
    assert.deepEqual(
      Object.keys(first.object.data).sort(),
      ['REPLICATION_PASSWORD', 'ROOT_PASSWORD'],
      'secret keys stay visible, values do not',
    );
    const second = JSON.parse(lines[1] ?? '{}') as { message: string; cluster: string };
    assert.match(second.message, /mysql:\/\/root:\*\*\*@my-db-mysql-0/);
    assert.equal(second.cluster, 'my-db');
  });

  it('masks items of a SecretList, which carry no kind of their own', () => {
    const list = { kind: 'SecretList', apiVersion: 'v1', items: [{ metadata: { name: 's' }, data: { X: 'c2VjcmV0' } }] };
    assert.ok(!JSON.stringify(redact(list)).includes('c2VjcmV0'));
  });

  it('does not change its input', () => {
    const obj = { password: 'p', nested: { url: 'https://u:p@h/' } };
    redact(obj);
    assert.deepEqual(obj, { password: 'p', nested: { url: 'https://u:p@h/' } });
  });

  it('masks SQL password clauses in any quoting and keeps the rest of the statement', () => {
    assert.equal(
      redactString(`ALTER USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY "pw1"`),
      `ALTER USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY '***'`,
    );
    assert.ok(!redactString("SET PASSWORD FOR 'u'@'%' = PASSWORD('pw2')").includes('pw2'));
    assert.ok(!redactString('CHANGE MASTER TO MASTER_PASSWORD = "pw3", MASTER_HOST="h"').includes('pw3'));
    assert.ok(redactString('CHANGE MASTER TO MASTER_PASSWORD = "pw3", MASTER_HOST="h"').includes('MASTER_HOST="h"'));
  });

  it('masks pwd, passwd, secret, token and key= values, and URL user info without a password', () => {
    const cases: Array<[string, string]> = [
      ['MYSQL_PWD=Pw1-x mariadb -e "SELECT 1"', 'MYSQL_PWD=*** mariadb -e "SELECT 1"'],
      ['--pwd=Pw2-x', '--pwd=***'],
      ['passwd: Pw3-x', 'passwd: ***'],
      ['client_secret=Pw4-x&scope=a', 'client_secret=***&scope=a'],
      ['x-auth-token: Pw5-x', 'x-auth-token: ***'],
      ['aws_secret_access_key=Pw6-x access_key_id=AKID', 'aws_secret_access_key=*** access_key_id=AKID'],
      ['--access-key=Pw7-x, done', '--access-key=***, done'],
      ['fetch https://Pw8-x@git.example/repo failed', 'fetch https://***@git.example/repo failed'],
    ];
    for (const [text, want] of cases) assert.equal(redactString(text), want);
    // `key` in prose is not a secret's name: only `...key=value` is masked.
    assert.equal(
      redactString('Secret s has no key ROOT_PASSWORD (key: spec.password.key)'),
      'Secret s has no key ROOT_PASSWORD (key: spec.password.key)',
    );
  });

  it('quotes a tail redacted whole, from a line start: a cut never separates a key from its value', () => {
    const text = `${'a'.repeat(50)}\npassword=${'s'.repeat(40)}\nlast words, token=Tk-1`;
    const tail = redactedTail(text, 30);
    assert.equal(tail, 'last words, token=***');
    assert.equal(redactedTail('short password=p1', 100), 'short password=***');
  });

  it('leaves text without secrets unchanged', () => {
    const text = 'pod my-db-mysql-0 is now role=master (http://orchestrator:3000/api/cluster)';
    assert.equal(redactString(text), text);
  });
});
