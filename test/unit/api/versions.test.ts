import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MYSQL_VERSION_ALIASES } from '../../../src/api/versions.ts';
import { resolveVersion } from '../../../src/controllers/cluster/resolve-version.ts';
import { flavourFromVersionSpec } from '../../../src/mysql/flavour.ts';

test('every alias means the same version to the cluster controller and to the MySQL layer', () => {
  for (const alias of Object.keys(MYSQL_VERSION_ALIASES)) {
    const resolved = resolveVersion(alias);
    assert.ok(resolved.ok, alias);
    const { family, major, minor, patch } = resolved.version;
    assert.deepEqual(flavourFromVersionSpec(alias), { family, major, minor, patch }, alias);
  }
});

test('what the cluster puts in MY_MYSQL_VERSION reads back as the flavour it resolved', () => {
  for (const alias of Object.keys(MYSQL_VERSION_ALIASES)) {
    const resolved = resolveVersion(alias);
    assert.ok(resolved.ok, alias);
    const { family, major, minor, patch, text } = resolved.version;
    assert.deepEqual(flavourFromVersionSpec(text), { family, major, minor, patch }, text);
  }
});
