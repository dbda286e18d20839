// Secrets as tests write them: `data` is base64 on the wire, and the operated Secret of servers
// started with `systemUsers: true` names the passwords those servers were given.
import { OPERATED_SECRET_KEY as K } from '../../src/api/constants.ts';
import { TEST_SYSTEM_USERS as U } from './mariadb.ts';

/** A Secret's `data` for plain `values`. */
export function secretData(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
}

/** The `<c>-mysql-operated` Secret's values (not encoded) for servers started with `systemUsers: true`. */
export const TEST_OPERATED_SECRET: Readonly<Record<string, string>> = {
  [K.operatorUser]: U.operator.user,
  [K.operatorPassword]: U.operator.password,
  [K.replicationUser]: U.replication.user,
  [K.replicationPassword]: U.replication.password,
  [K.metricsExporterUser]: U.exporter.user,
  [K.metricsExporterPassword]: U.exporter.password,
  [K.orcTopologyUser]: U.orchestrator.user,
  [K.orcTopologyPassword]: U.orchestrator.password,
};
