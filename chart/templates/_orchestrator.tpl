{{/* Orchestrator: names, its raft members and its configuration. */}}

{{/* The Service of Orchestrator's API: the anchor's name, so --orchestrator-uri's default holds. */}}
{{- define "orchestrator.serviceName" -}}
{{- include "mysql-operator.fullname" . }}
{{- end }}

{{/* The StatefulSet, and its headless Service that gives each raft member a stable name. */}}
{{- define "orchestrator.fullname" -}}
{{- printf "%s-orc" (include "mysql-operator.fullname" . | trunc 59 | trimSuffix "-") }}
{{- end }}

{{- define "orchestrator.secretName" -}}
{{- .Values.orchestrator.secretName | default (include "orchestrator.fullname" .) }}
{{- end }}

{{- define "orchestrator.apiURL" -}}
{{- if eq (int .Values.orchestrator.service.port) 80 }}
{{- printf "http://%s.%s/api" (include "orchestrator.serviceName" .) .Release.Namespace }}
{{- else }}
{{- printf "http://%s.%s:%d/api" (include "orchestrator.serviceName" .) .Release.Namespace (int .Values.orchestrator.service.port) }}
{{- end }}
{{- end }}

{{/* Each member's stable DNS name: <statefulset>-<i>.<headless service>.<namespace>. */}}
{{- define "orchestrator.raftNodes" -}}
{{- $nodes := list }}
{{- range $i := until (int .Values.orchestrator.replicas) }}
{{- $nodes = append $nodes (printf "%s-%d.%s.%s" (include "orchestrator.fullname" $) $i (include "orchestrator.fullname" $) $.Release.Namespace) }}
{{- end }}
{{- toJson $nodes }}
{{- end }}

{{/* Paths inside Orchestrator's pod. */}}
{{- define "orchestrator.confDir" -}}/etc/orchestrator{{- end }}
{{- define "orchestrator.templateDir" -}}/usr/local/share/orchestrator/templates{{- end }}
{{- define "orchestrator.dataDir" -}}/var/lib/orchestrator{{- end }}

{{/*
The failover hooks: the command lines of files/failover-hooks.json, generated from
src/controllers/orchestrator/hook-request.ts (hookProcessesConfig) by `npm run gen`, with the
operator's URL and the mounted secret file of this release put in. They come after the lines
the values' config gives the same keys.
*/}}
{{- define "orchestrator.failoverHooks" -}}
{{- .Files.Get "files/failover-hooks.json" | replace "@OPERATOR_URL@" (include "mysql-operator.operatorURL" .) | replace "@SECRET_FILE@" (printf "%s/secret" (include "mysql-operator.failoverHookDir" .)) }}
{{- end }}

{{/*
orchestrator.conf.json: the values' config, then the keys the chart manages. @POD_NAME@ and
@POD_IP@ are put in per pod by the init container (Orchestrator reads no environment).
*/}}
{{- define "orchestrator.config" -}}
{{- $conf := deepCopy .Values.orchestrator.config }}
{{- if and $conf.FailMasterPromotionIfSQLThreadNotUpToDate $conf.DelayMasterPromotionIfSQLThreadNotUpToDate }}
{{- fail "orchestrator.config: FailMasterPromotionIfSQLThreadNotUpToDate and DelayMasterPromotionIfSQLThreadNotUpToDate cannot both be true (Orchestrator refuses to start); set DelayMasterPromotionIfSQLThreadNotUpToDate: false to keep the Fail variant" }}
{{- end }}
{{- $member := printf "@POD_NAME@.%s.%s" (include "orchestrator.fullname" .) .Release.Namespace }}
{{- $_ := set $conf "ListenAddress" ":3000" }}
{{- $_ := set $conf "MySQLTopologyCredentialsConfigFile" (printf "%s/orc-topology.cnf" (include "orchestrator.confDir" .)) }}
{{- $_ := set $conf "BackendDB" "sqlite" }}
{{- $_ := set $conf "SQLite3DataFile" (printf "%s/orc.db" (include "orchestrator.dataDir" .)) }}
{{- $_ := set $conf "RaftEnabled" true }}
{{- $_ := set $conf "RaftDataDir" (include "orchestrator.dataDir" .) }}
{{- $_ := set $conf "DefaultRaftPort" 10008 }}
{{- $_ := set $conf "RaftBind" "@POD_IP@" }}
{{- $_ := set $conf "RaftAdvertise" $member }}
{{- $_ := set $conf "HTTPAdvertise" (printf "http://%s:3000" $member) }}
{{- $_ := set $conf "RaftNodes" (include "orchestrator.raftNodes" . | fromJsonArray) }}
{{- range $key, $commands := include "orchestrator.failoverHooks" . | fromJson }}
{{- $_ := set $conf $key (concat (get $conf $key | default list) $commands) }}
{{- end }}
{{- toPrettyJson $conf }}
{{- end }}
