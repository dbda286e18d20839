// A file that hands a secret to one child process instead of its command line, which every user
// of the machine can read (/proc/<pid>/cmdline, `ps`): written mode 0600 into a directory of its
// own (mkdtemp, 0700) under the temporary directory, and removed with that directory afterwards.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SecretFile {
  path: string;
  /** Removes the file and its directory; never throws. */
  remove(): Promise<void>;
}

export async function writeSecretFile(name: string, content: string): Promise<SecretFile> {
  const dir = await mkdtemp(join(tmpdir(), 'sidecar-secret-'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true }).catch(() => undefined);
  const path = join(dir, name);
  try {
    await writeFile(path, content, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    await remove();
    throw err;
  }
  return { path, remove };
}
