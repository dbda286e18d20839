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

{{/* The Secret of the API's credentials (keys `user`, `password`), and where the operator mounts it. */}}
{{- define "orchestrator.apiSecretName" -}}
{{- .Values.orchestrator.api.secretName | default (printf "%s-api" (include "orchestrator.fullname" . | trunc 59 | trimSuffix "-")) }}
{{- end }}
{{- define "orchestrator.apiCredentialsDir" -}}/etc/mysql-operator/orchestrator-api{{- end }}

{{/* The API's credentials from that Secret, for the init container that writes them into the config. */}}
{{- define "orchestrator.apiEnv" -}}
- name: ORC_HTTP_AUTH_USER
  valueFrom:
    secretKeyRef:
      name: {{ include "orchestrator.apiSecretName" . }}
      key: user
- name: ORC_HTTP_AUTH_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "orchestrator.apiSecretName" . }}
      key: password
{{- end }}

{{/*
A probe of Orchestrator's API, which answers no path without credentials (3.2.6, recorded):
with multi, as the user `readonly`, whose password Orchestrator does not check, so the header
holds no secret; with basic, curl with the credentials file render-config.sh wrote.
*/}}
{{- define "orchestrator.probeAction" -}}
{{- if eq .root.Values.orchestrator.api.authenticationMethod "multi" }}
httpGet:
  path: {{ .path }}
  port: http
  httpHeaders:
    - name: Authorization
      value: Basic {{ "readonly:probe" | b64enc }}
{{- else }}
exec:
  command: [curl, -fsS, -o, /dev/null, -K, {{ include "orchestrator.confDir" .root }}/probe.curlrc, "http://127.0.0.1:3000{{ .path }}"]
{{- end }}
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
src/controllers/orchestrator-controller/hook-request.ts (hookProcessesConfig) by `npm run gen`, with the
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
{{- /* The API's credentials are put in by the init container from the Secret (render-config.sh). */}}
{{- $_ := set $conf "AuthenticationMethod" .Values.orchestrator.api.authenticationMethod }}
{{- $_ := set $conf "HTTPAuthUser" "@HTTP_AUTH_USER@" }}
{{- $_ := set $conf "HTTPAuthPassword" "@HTTP_AUTH_PASSWORD@" }}
{{- range $key, $commands := include "orchestrator.failoverHooks" . | fromJson }}
{{- $_ := set $conf $key (concat (get $conf $key | default list) $commands) }}
{{- end }}
{{- toPrettyJson $conf }}
{{- end }}
