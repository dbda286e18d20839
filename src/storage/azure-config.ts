// The Azure Blob Storage client's options from the storage Secret's keys: the names the anchor's
// rclone configuration read (AZUREBLOB_ACCOUNT, AZUREBLOB_KEY; docs/compatibility.md "Storage")
// and one of ours for another endpoint. Pure, so the mapping and its errors are tested without a
// server.
import { StorageError, type StorageEnv } from './location.ts';

export interface AzureOptions {
  account: string;
  /** The account's shared key (base64, as the Azure portal shows it). */
  key: string;
  /**
   * The blob service's URL, the account's own by default (`https://<account>.blob.core.windows.net`);
   * AZUREBLOB_ENDPOINT (ours) for another cloud or an emulator, whose URL may carry the account as
   * its path (Azurite: `http://127.0.0.1:10000/devstoreaccount1`).
   */
  endpoint: string;
}

export function azureOptions(env: StorageEnv): AzureOptions {
  const nonEmpty = (k: string) => (env[k]?.trim() ? env[k]!.trim() : undefined);
  const account = nonEmpty('AZUREBLOB_ACCOUNT');
  const key = nonEmpty('AZUREBLOB_KEY');
  if (!account || !key) {
    const missing = [!account && 'AZUREBLOB_ACCOUNT', !key && 'AZUREBLOB_KEY'].filter(Boolean).join(' and ');
    throw new StorageError(
      'bad-config',
      // Worded without `credentials:`, which the log redaction reads as a secret's label (src/runtime/redact.ts).
      `azure:// needs AZUREBLOB_ACCOUNT and AZUREBLOB_KEY in the storage Secret; ${missing} ${missing.includes(' and ') ? 'are' : 'is'} missing`,
    );
  }
  if (!/^[a-z0-9]{3,24}$/.test(account)) {
    throw new StorageError(
      'bad-config',
      `AZUREBLOB_ACCOUNT '${account}' is not a storage account name (3-24 lower-case letters and digits)`,
    );
  }
  // The key is never quoted: only what is wrong with it.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0) {
    throw new StorageError(
      'bad-config',
      'AZUREBLOB_KEY is not base64 (expected the storage account access key as the Azure portal shows it)',
    );
  }
  let endpoint = nonEmpty('AZUREBLOB_ENDPOINT') ?? `https://${account}.blob.core.windows.net`;
  if (!/^https?:\/\//i.test(endpoint)) endpoint = `https://${endpoint}`;
  return { account, key, endpoint: endpoint.replace(/\/+$/, '') };
}
