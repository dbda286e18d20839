// The sidecar's HTTP protocol (DESIGN.md §4), shared by the server and the clone client. The
// names are the anchor's, so anchor and successor pods can clone from each other mid-migration.
export const HEALTH_PATH = '/health';
export const XBACKUP_PATH = '/xbackup';
export const BACKUP_STATUS_TRAILER = 'X-Backup-Status';
export const BACKUP_SUCCESS = 'Success';
export const BACKUP_FAILED = 'Failed';
