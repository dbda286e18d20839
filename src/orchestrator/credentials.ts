// Orchestrator's API credentials from a directory holding the files `user` and `password` (a
// mounted Secret, so Kubernetes updates them in place on rotation). Read at each request: a few
// bytes from a tmpfs, and a rotated password is used from the next request on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OrchestratorCredentials } from './client.ts';

export const CREDENTIALS_FILES = { user: 'user', password: 'password' } as const;

export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/** The credentials in `dir` now; a missing or empty file is an error that names the file, never a value. */
export function readCredentialsDir(dir: string): OrchestratorCredentials {
  const one = (name: string): string => {
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch (e) {
      throw new CredentialsError(
        `Orchestrator API credentials: cannot read ${join(dir, name)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    // A trailing newline is an editor's, never a password's.
    const value = text.replace(/\r?\n$/, '');
    if (value === '') throw new CredentialsError(`Orchestrator API credentials: ${join(dir, name)} is empty`);
    return value;
  };
  return { user: one(CREDENTIALS_FILES.user), password: one(CREDENTIALS_FILES.password) };
}

/** For orchestratorClient's `credentials`: none when `dir` is empty, else the directory read at each call. */
export function credentialsFrom(dir: string): (() => OrchestratorCredentials) | undefined {
  if (dir === '') return undefined;
  return () => readCredentialsDir(dir);
}
