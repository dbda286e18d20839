// What the database controller takes from the command line and environment.
import { booleanSetting, type SettingTable } from '../../runtime/settings.ts';
import type { ProvisionOptions } from '../shared/provision.ts';

export const DATABASE_SETTINGS: SettingTable<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  allowCrossNamespace: booleanSetting({
    flag: 'allow-cross-namespace-database',
    env: 'ALLOW_CROSS_NAMESPACE_DATABASE',
    help: 'a MysqlDatabase may name a MysqlCluster of another namespace',
    default: 'false',
  }),
};
