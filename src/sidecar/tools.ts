// The backup tools per flavour (xtrabackup/xbstream for MySQL, mariabackup/mbstream for MariaDB)
// and their argument lists, as the anchor ran them. Pure.
import { OPERATOR_SCHEMA } from '../api/constants.ts';
import type { Credentials, SidecarConfig } from './config.ts';
import { parseIni, renderIni } from './ini.ts';

/** The table the clone must not carry over: each pod's own `configured` flag lives there. */
const EXCLUDED_TABLE = `${OPERATOR_SCHEMA}.status`;

export function toolNames(flavour: SidecarConfig['flavour']): { backup: string; stream: string } {
  return flavour.family === 'mariadb' ? { backup: 'mariabackup', stream: 'mbstream' } : { backup: 'xtrabackup', stream: 'xbstream' };
}

/**
 * The account the backup tool logs in as, from the text of the pod's xtrabackup.cnf
 * (docs/credentials.md: local to the pod, drawn at each start of its init container), or the
 * replication account (the anchor's choice) when there is no such file: a pod whose files an
 * earlier sidecar wrote, whose init-file then still granted the replication account the tool's
 * privileges. Pure.
 */
export function backupAccount(cfg: SidecarConfig, toolConf: string | undefined): Credentials {
  if (toolConf === undefined) return cfg.replication;
  const group = parseIni(toolConf).get('xtrabackup');
  const user = group?.get('user');
  const password = group?.get('password');
  if (!user || !password) throw new Error('the backup tool option file has no [xtrabackup] user and password');
  return { user, password };
}

/**
 * `--backup --stream=xbstream` of the local server, as `account` (backupAccount). The password
 * is not among them: it is in `defaultsFile` (backupDefaults, written by the caller), which both
 * tools read as an option file when it is named first.
 */
export function backupArgs(cfg: SidecarConfig, defaultsFile: string, account: Credentials = cfg.replication): string[] {
  return [
    `--defaults-extra-file=${defaultsFile}`,
    '--backup',
    '--slave-info',
    '--stream=xbstream',
    `--tables-exclude=${EXCLUDED_TABLE}`,
    `--host=${cfg.mysql.host}`,
    `--port=${cfg.mysql.port}`,
    `--user=${account.user}`,
    `--target-dir=${cfg.paths.xtrabackupTargetDir}`,
    ...cfg.xtrabackupExtraArgs,
  ];
}

/**
 * The option file of backupArgs: the account's password in the [xtrabackup] group, which
 * xtrabackup and mariabackup both read for their connection options. The anchor put it on the
 * command line, where any process of the machine could read it (the tools overwrite it in their
 * own argv only after they have parsed it).
 */
export function backupDefaults(account: Credentials): string {
  return renderIni([{ name: 'xtrabackup', entries: [['password', account.password]] }]);
}

/**
 * With one thread (the default), the extractor reads a whole chunk, then writes it, and reads
 * nothing from its stdin meanwhile, so the stream behind it (HTTP, the peer's backup tool) stalls
 * at every write. Two threads let one read the next chunk while the other writes (chunks of one
 * file stay in order: a thread holds the file's lock before it lets the next chunk be read).
 * Measured on 2 cores: the clone ~14% faster in the median (docs/sidecar.md). XBSTREAM_EXTRA_ARGS come
 * after it, so `--parallel=N` there wins (the tools take the last value).
 */
export const EXTRACT_PARALLEL = 2;

export function extractArgs(cfg: SidecarConfig, dir: string): string[] {
  return ['--extract', `--directory=${dir}`, `--parallel=${EXTRACT_PARALLEL}`, ...cfg.xbstreamExtraArgs];
}

export function prepareArgs(cfg: SidecarConfig, dir: string): string[] {
  return ['--prepare', `--target-dir=${dir}`, ...cfg.xtrabackupPrepareExtraArgs];
}
