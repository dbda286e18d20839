// The sidecar binary's command line: usage, configuration errors, refused arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { podEnv, SIDECAR_MAIN } from './support.ts';

function sidecar(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [SIDECAR_MAIN, ...args], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

test('no or an unknown command prints the usage and exits 2', () => {
  for (const args of [[], ['frobnicate']]) {
    const r = sidecar(args, podEnv());
    assert.equal(r.code, 2);
    assert.match(r.out, /usage: sidecar <command>[\s\S]*clone-and-init[\s\S]*config-and-serve \(or run\)/);
  }
});

test('take-backup-to refuses a missing URL (exit 2, usage) and a storage it cannot write (exit 1, naming the scheme)', () => {
  const usage = sidecar(['take-backup-to', '127.0.0.1'], podEnv());
  assert.equal(usage.code, 2);
  assert.match(usage.out, /take-backup-to takes 2 arguments, got 1/);
  const http = sidecar(['take-backup-to', '127.0.0.1:1', 'http://b/x.xbackup.gz'], podEnv());
  assert.equal(http.code, 1);
  assert.match(http.out, /http:\/\/ backups are not supported yet/);
});

test("take-backup-to with gs:// or azure:// and the Secret's keys missing or malformed: exit 1 naming the key, never its value", () => {
  const key = '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkq';
  const gs = sidecar(['take-backup-to', '127.0.0.1:1', 'gs://backups/x.xbackup.gz'], podEnv({ GCS_SERVICE_ACCOUNT_JSON_KEY: key }));
  assert.equal(gs.code, 1);
  assert.match(gs.out, /GCS_SERVICE_ACCOUNT_JSON_KEY is not valid JSON/);
  assert.ok(!gs.out.includes('MIIEvQIBADANBgkq'), gs.out);
  const azure = sidecar(['take-backup-to', '127.0.0.1:1', 'azure://backups/x.xbackup.gz'], podEnv({ AZUREBLOB_ACCOUNT: 'mystore' }));
  assert.equal(azure.code, 1);
  assert.match(azure.out, /AZUREBLOB_KEY is missing/);
});

test('a missing variable fails the command with exit 1 and names the variable, not the secrets', () => {
  const env = podEnv({ MY_POD_NAME: undefined, REPLICATION_PASSWORD: undefined });
  const r = sidecar(['clone-and-init'], env);
  assert.equal(r.code, 1);
  assert.match(r.out, /MY_POD_NAME is not set/);
  assert.match(r.out, /REPLICATION_PASSWORD is not set/);
  assert.ok(!r.out.includes(env.OPERATOR_PASSWORD!), 'no password in the error');
  const serve = sidecar(['run'], podEnv({ BACKUP_USER: undefined }));
  assert.equal(serve.code, 1);
  assert.match(serve.out, /BACKUP_USER is not set/);
});

test('an unknown flag or argument exits 2 naming it, before anything runs', () => {
  const r = sidecar(['clone-and-init', '--datadir=/var/lib/mysql'], podEnv());
  assert.equal(r.code, 2);
  assert.match(r.out, /^clone-and-init: unknown flag '--datadir'/);
  assert.match(r.out, /usage: sidecar <command>/);
  const hb = sidecar(['pt-heartbeat', '--update', '--monitor'], podEnv());
  assert.equal(hb.code, 2);
  assert.match(hb.out, /^pt-heartbeat: unsupported option '--monitor'/);
});
