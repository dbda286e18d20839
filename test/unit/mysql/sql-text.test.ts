import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, fromDriverError, MysqlError } from '../../../src/mysql/errors.ts';
import { account, quoteIdentifier, quoteString, render, scrubSecrets, secret, stmt, verbatim } from '../../../src/mysql/sql-text.ts';

test('string literals double quotes and escape control characters, safe with and without NO_BACKSLASH_ESCAPES', () => {
  assert.equal(quoteString("it's"), "'it''s'");
  assert.equal(quoteString('a\\b'), "'a\\\\b'");
  assert.equal(quoteString('l1\nl2\r\0\x1a'), "'l1\\nl2\\r\\0\\Z'");
  assert.equal(quoteString('ünï'), "'ünï'");
});

test('identifiers are backquoted with inner backquotes doubled; empty names are refused', () => {
  assert.equal(quoteIdentifier('my`db'), '`my``db`');
  assert.throws(() => quoteIdentifier(''), /invalid SQL identifier/);
});

test('accounts keep plain names bare as the anchor writes them, and quote anything else', () => {
  assert.equal(account('sys_operator', '%'), "sys_operator@'%'");
  assert.equal(account('app-user', '127.0.0.1'), "'app-user'@'127.0.0.1'");
  assert.equal(account('123', '%'), "'123'@'%'");
});

test('render inlines values; placeholder count must match; verbatim text keeps its question marks', () => {
  assert.equal(render(stmt('SELECT ?, ?, ?, ?, ?', 'a', 3, null, true, secret('pw'))), "SELECT 'a', 3, NULL, 1, 'pw'");
  assert.equal(render(stmt('SET x = ?', { raw: 'DEFAULT' })), 'SET x = DEFAULT');
  assert.throws(() => render(stmt('SELECT ?')), /more placeholders/);
  assert.throws(() => render(stmt('SELECT 1', 2)), /more values/);
  assert.throws(() => render(stmt('SELECT ?', Number.NaN)), /cannot render/);
  assert.equal(render(verbatim("SELECT 'why?'")), "SELECT 'why?'");
  assert.equal(
    render(stmt(`CREATE USER ${account("a?b'c", '%')} IDENTIFIED BY ?`, secret('x'))),
    "CREATE USER 'a?b''c'@'%' IDENTIFIED BY 'x'",
  );
  assert.equal(render(stmt('SELECT `q?`, "d?", ?', 1)), 'SELECT `q?`, "d?", 1');
});

test('secrets never serialise and are scrubbed from server messages, raw and escaped', () => {
  const s = stmt('CHANGE MASTER TO MASTER_PASSWORD = ?', secret("pa'ss"));
  assert.equal(JSON.stringify(s), '{"sql":"CHANGE MASTER TO MASTER_PASSWORD = ?","params":["<secret>"]}');
  assert.equal(scrubSecrets("syntax error near 'pa''ss' and pa'ss", s), "syntax error near '<secret>' and <secret>");
});

test('driver errors become typed MysqlErrors without the rendered SQL', () => {
  assert.equal(classify('ECONNREFUSED', undefined), 'unreachable');
  assert.equal(classify('ETIMEDOUT', undefined), 'timeout');
  assert.equal(classify('ER_ACCESS_DENIED_ERROR', 1045), 'access-denied');
  assert.equal(classify('ER_SPECIFIC_ACCESS_DENIED_ERROR', 1227), 'access-denied');
  assert.equal(classify('ER_OPTION_PREVENTS_STATEMENT', 1290), 'read-only');
  assert.equal(classify('ER_SLAVE_MUST_STOP', 1198), 'replication');
  assert.equal(classify('ER_PARSE_ERROR', 1064), 'query');
  const s = stmt('CHANGE MASTER TO MASTER_PASSWORD = ?', secret('hunter2'));
  const e = fromDriverError(
    { code: 'ER_PARSE_ERROR', errno: 1064, message: "near 'hunter2'", sql: "CHANGE ... 'hunter2'" },
    'mysql h:3306',
    s,
  );
  assert.ok(e instanceof MysqlError);
  assert.equal(e.kind, 'query');
  assert.equal(e.errno, 1064);
  assert.equal(e.message, 'mysql h:3306 running "CHANGE MASTER TO MASTER_PASSWORD = ?": near \'<secret>\'');
  assert.doesNotMatch(JSON.stringify(e) + String(e.stack), /hunter2/);
  assert.equal(fromDriverError(new Error("Can't add new command when connection is in closed state"), 'x').kind, 'unreachable');
});
