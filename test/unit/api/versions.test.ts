import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MYSQL_VERSION_ALIASES } from '../../../src/api/versions.ts';
import { resolveVersion } from '../../../src/controllers/shared/resolve-version.ts';
import { flavourFromVersionSpec } from '../../../src/mysql/flavour.ts';

test('every alias, and the version the cluster writes to MY_MYSQL_VERSION for it, reads as the flavour the cluster resolved', () => {
  for (const alias of Object.keys(MYSQL_VERSION_ALIASES)) {
    const resolved = resolveVersion(alias);
    assert.ok(resolved.ok, alias);
    const { family, major, minor, patch, text } = resolved.version;
    assert.deepEqual(flavourFromVersionSpec(alias), { family, major, minor, patch }, alias);
    assert.deepEqual(flavourFromVersionSpec(text), { family, major, minor, patch }, text);
  }
});
