// The pre-stop hook of the mysql container: when the pod being stopped is the master and has
// replicas, ask Orchestrator for a graceful takeover first. Kept byte-identical to the anchor's
// script (tabs included): its bytes are ConfigMap content, and a changed ConfigMap rolls the pods
// of an adopted cluster.

export const CLIENT_CONF_PATH = '/etc/mysql/client.conf';
export const PRE_SHUTDOWN_SCRIPT_KEY = 'pre-shutdown-ha.sh';

export function renderPreShutdownScript(clientConf: string = CLIENT_CONF_PATH): string {
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
\t\tmasterhostname=$( curl  -s "\${ORCH_HTTP_API}/master/\${ORCH_CLUSTER_ALIAS}" |  awk -F":" '{print $3}' | awk -F'"' '{print $2}' )
        echo "master from orchestrator: \${masterhostname}"
        if [ "\${MY_FQDN}" == "\${masterhostname}" ]
        then
                curl  -s "\${ORCH_HTTP_API}/graceful-master-takeover-auto/\${ORCH_CLUSTER_ALIAS}"
\t\t\t\techo "graceful-master-takeover-auto is ongoing, sleep 5 seconds in order to make sure service can work well."
\t\t\t\tsleep 5
        fi
fi
`;
}
