// What the user controller takes from the command line and environment.
import { booleanSetting, type SettingTable } from '../../runtime/settings.ts';
import type { ProvisionOptions } from '../shared/provision.ts';

export const USER_SETTINGS: SettingTable<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  allowCrossNamespace: booleanSetting({
    flag: 'allow-cross-namespace-user',
    env: 'ALLOW_CROSS_NAMESPACE_USER',
    help: 'a MysqlUser may name a MysqlCluster of another namespace (whoever can create MysqlUsers can then add accounts to any cluster)',
    default: 'false',
  }),
};
