// The s3:// backend (AWS SDK v3). Filled in by the next commit; the interface is final.
import { StorageError, type BackupStorage, type StorageEnv } from './location.ts';

export function s3Storage(_env: StorageEnv): BackupStorage {
  const notYet = async (): Promise<never> => {
    throw new StorageError('unsupported-scheme', 's3:// storage is being built (issue 14)');
  };
  return { openRead: notYet, upload: notYet, list: notYet, delete: notYet };
}
