// The option files `clone-and-init` writes into /etc/mysql, rendered exactly as the anchor's
// sidecar wrote them (test/fixtures/anchor-v0.6.3/pod-files/). Pure.
import type { Credentials, Endpoint } from './config.ts';
import { renderIni } from './ini.ts';

/** conf.d/10-identity.cnf: who this server is to its peers and to Orchestrator. */
export function renderIdentityCnf(serverId: number, reportHost: string): string {
  return renderIni([
    {
      name: 'mysqld',
      entries: [
        ['server-id', serverId],
        ['report-host', reportHost],
      ],
    },
  ]);
}

/** conf.d/10-init-file.cnf: makes mysqld run the operator's init-file at every start. */
export function renderInitFileCnf(initFilePath: string): string {
  return renderIni([{ name: 'mysqld', entries: [['init-file', initFilePath]] }]);
}

/**
 * xtrabackup.cnf (ours): the backup tools' local account in the [xtrabackup] group, which
 * xtrabackup and mariabackup both read for their connection options; `/xbackup` names it as
 * --defaults-extra-file, so the password is on no command line.
 */
export function renderBackupToolConf(cred: Credentials): string {
  return renderIni([
    {
      name: 'xtrabackup',
      entries: [
        ['user', cred.user],
        ['password', cred.password],
      ],
    },
  ]);
}

/** client.conf (operator user: probes, preStop, pt-kill) and heartbeat.conf (sys_heartbeat). */
export function renderClientConf(cred: Credentials, mysql: Endpoint): string {
  return renderIni([
    {
      name: 'client',
      entries: [
        ['host', mysql.host],
        ['port', mysql.port],
        ['user', cred.user],
        ['password', cred.password],
      ],
    },
  ]);
}
