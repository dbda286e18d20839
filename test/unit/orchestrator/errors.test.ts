// The kinds the client gives Orchestrator's error messages, read from the recorded answers of
// Orchestrator 3.2.6 (test/fixtures/orchestrator/): a new cluster's alias is unknown until its first
// instance is discovered, and the alias routes word that differently from the hint routes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { cleanMessage, kindOfMessage } from '../../../src/orchestrator/errors.ts';

const FIXTURES = new URL('../../fixtures/orchestrator/', import.meta.url);

interface Row {
  file: string;
  path: string;
  status: number;
}

const rows = JSON.parse(readFileSync(new URL('index.json', FIXTURES), 'utf8')) as Row[];
const messageOf = (file: string): string => {
  const body = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as { Code: string; Message: string };
  assert.equal(body.Code, 'ERROR', file);
  return body.Message;
};

test('"No cluster found for alias", as 3.2.6 answers the alias routes for an alias it does not know, is an unknown cluster', () => {
  const recorded = rows.filter((r) => r.status === 500 && /^No cluster found for alias /.test(messageOf(r.file)));
  // cluster/alias, cluster-info/alias and ack-recovery/cluster/alias were recorded answering so.
  assert.deepEqual(recorded.map((r) => r.path.split('/').slice(2, -1).join('/')).sort(), [
    'ack-recovery/cluster/alias',
    'cluster-info/alias',
    'cluster/alias',
  ]);
  for (const r of recorded) assert.equal(kindOfMessage(messageOf(r.file)), 'unknown-cluster', `${r.file}: ${messageOf(r.file)}`);
});

test('the hint routes\' "Unable to determine cluster name", logged with a timestamp, is an unknown cluster too', () => {
  for (const file of [
    'error_master_unknown-alias.json',
    'error_graceful-master-takeover-auto_unknown-cluster.json',
    'error_cluster_unknown.json',
  ]) {
    const m = messageOf(file);
    assert.match(m, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ERROR Unable to determine cluster name/, file);
    assert.equal(kindOfMessage(m), 'unknown-cluster', file);
    assert.match(cleanMessage(m), /^Unable to determine cluster name\. clusterHint=/, file);
  }
});

test('every recorded error message has the kind its meaning says', () => {
  const want: Record<string, string> = {
    'error_instance_unknown_127.0.0.99_3306.json': 'unknown-instance',
    'error_forget_unknown_127.0.0.99_3306.json': 'unknown-instance',
    'error_discover_unreachable_127.0.0.99_3306.json': 'mysql-unreachable',
    'error_set-read-only_unknown.json': 'mysql-unreachable',
    'error_ack-recovery_missing-comment.json': 'failed',
    'error_begin-downtime_bad-duration.json': 'failed',
    'error_instance_bad-port.json': 'failed',
  };
  for (const [file, kind] of Object.entries(want)) assert.equal(kindOfMessage(messageOf(file)), kind, file);
});
