// The pre-stop hook of the mysql container: when the pod being stopped is the master and has
// replicas, ask Orchestrator for a graceful takeover first. Kept byte-identical to the anchor's
// script (tabs included): its bytes are ConfigMap content, and a changed ConfigMap rolls the pods
// of an adopted cluster. It reads the mysql container's variables of the pod contract.
import { CONF_FILE, confPath, ENV } from '../../api/pod-contract.ts';

const API = ENV.orchHttpApi;
const ALIAS = ENV.orchClusterAlias;

export function renderPreShutdownScript(clientConf: string = confPath(CONF_FILE.client)): string {
  return `#!/bin/bash
set -ex

current=$(date "+%Y-%m-%d %H:%M:%S")
echo "[\${current}]preStop is ongoing"
read_only_status=$(mysql --defaults-file=${clientConf} -NB -e 'SELECT @@read_only')
replica_status=$(mysql --defaults-file=${clientConf} -NB -e 'show slave status\\G')
# orchestrator will isolate old master during failover
has_replica_hosts=$(mysql --defaults-file=${clientConf} -NB -e 'show slave hosts\\G')
replica_status_count=$(echo -n "$replica_status" | wc -l )
has_replica_count=$(echo -n "$has_replica_hosts" | wc -l )
echo "hostname=$(hostname) readonly=\${read_only_status} show_slave_status=\${replica_status_count}"
echo "has_replica_hosts=\${has_replica_count}"
if [ \${read_only_status} -eq 0  ] && [ \${replica_status_count} -eq 0 ] && [ \${has_replica_count} -gt 0 ]
then
\t\tmasterhostname=$( curl  -s "\${${API}}/master/\${${ALIAS}}" |  awk -F":" '{print $3}' | awk -F'"' '{print $2}' )
        echo "master from orchestrator: \${masterhostname}"
        if [ "\${${ENV.fqdn}}" == "\${masterhostname}" ]
        then
                curl  -s "\${${API}}/graceful-master-takeover-auto/\${${ALIAS}}"
\t\t\t\techo "graceful-master-takeover-auto is ongoing, sleep 5 seconds in order to make sure service can work well."
\t\t\t\tsleep 5
        fi
fi
`;
}
