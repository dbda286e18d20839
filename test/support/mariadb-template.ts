// A freshly installed MariaDB data directory, made once and copied for each test server:
// mariadb-install-db takes about 2 s of wall time (mostly fsync), a copy of its 26 MB about 0.07 s.
// Nothing in the installed directory names its path, its host or a server id, so a copy is what the
// install would have written. `npm test` (scripts/test.ts) makes one for the whole run and names it
// in TEST_MARIADB_TEMPLATE; a test file run alone makes its own once per process.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export const TEMPLATE_ENV = 'TEST_MARIADB_TEMPLATE';

/** Runs mariadb-install-db into `datadir` (which must not exist yet), with `tmp` as its tmpdir. */
export function installDataDir(datadir: string, tmp: string): void {
  const install = spawnSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      '--user=root',
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
      '--innodb-log-file-size=8M',
      `--tmpdir=${tmp}`,
    ],
    { encoding: 'utf8' },
  );
  if (install.status !== 0) {
    rmSync(datadir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${install.stdout}\n${install.stderr}`);
  }
}

/** True where mariadb-install-db can run (the tests that need MariaDB skip or fail elsewhere). */
export function canInstall(): boolean {
  return spawnSync('mariadb-install-db', ['--help'], { stdio: 'ignore' }).status === 0;
}
