import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterOptions } from '../../../src/controllers/cluster/options.ts';
import { resolveVersion } from '../../../src/controllers/shared/resolve-version.ts';
import { selectImages } from '../../../src/controllers/cluster/select-images.ts';

function version(v: string | undefined) {
  const r = resolveVersion(v);
  if (!r.ok) throw new Error(r.message);
  return r.version;
}

test('aliases resolve to the versions the anchor used, the empty version to 5.7', () => {
  assert.equal(version('5.7').text, '5.7.35');
  assert.equal(version('8.0').text, '8.0.32');
  assert.equal(version(undefined).text, '5.7.35');
  assert.equal(version('').text, '5.7.35');
  assert.deepEqual(version('mariadb-10.11'), { family: 'mariadb', major: 10, minor: 11, patch: 10, text: '10.11.10' });
});

test('image precedence: spec.image, then the operator map (exact, then alias), then the table', () => {
  const opts = clusterOptions({ versionImages: { '8.0.32': 'exact:1', '8.0': 'alias:1' } });
  const pick = (spec: { image?: string; mysqlVersion?: string }, o = opts) => {
    const s = selectImages(spec, version(spec.mysqlVersion), o);
    return s.ok ? s.images.mysql : s.message;
  };
  assert.equal(pick({ image: 'mine:1', mysqlVersion: '8.0' }), 'mine:1');
  assert.equal(pick({ mysqlVersion: '8.0' }), 'exact:1');
  assert.equal(pick({ mysqlVersion: '8.0' }, clusterOptions({ versionImages: { '8.0': 'alias:1' } })), 'alias:1');
  assert.equal(
    pick({ mysqlVersion: '5.7' }, clusterOptions()),
    'percona@sha256:caab4e854bd75040d07802bf1862bfef1d2b4db0acbc9c4aaf5c21c698fdd393',
  );
});

test('the sidecar image follows the server line unless spec.sidecarImage overrides it', () => {
  const opts = clusterOptions();
  const side = (v: string, sidecarImage?: string) => {
    const s = selectImages({ sidecarImage }, version(v), opts);
    return s.ok ? s.images.sidecar : '';
  };
  assert.equal(side('5.7'), opts.sidecarImage57);
  assert.equal(side('8.0'), opts.sidecarImage80);
  assert.equal(side('8.4'), opts.sidecarImage84);
  assert.equal(side('mariadb-11.4'), opts.sidecarImageMariaDB);
  assert.equal(side('8.0', 'my/sidecar:2'), 'my/sidecar:2');
});
