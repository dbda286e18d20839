{{/* Names, labels and the values several templates share. */}}

{{- define "mysql-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; the anchor's rule, so its Service names (and --orchestrator-uri) stay. */}}
{{- define "mysql-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mysql-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mysql-operator.labels" -}}
helm.sh/chart: {{ include "mysql-operator.chart" . }}
app.kubernetes.io/name: {{ include "mysql-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector of the operator's pods. */}}
{{- define "mysql-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mysql-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* Selector of Orchestrator's pods. */}}
{{- define "orchestrator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mysql-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: orchestrator
{{- end }}

{{/* Labels every MySQL pod of every cluster carries (the operator's and the anchor's): Orchestrator's policy lets them in. */}}
{{- define "mysql-operator.mysqlPodLabels" -}}
app.kubernetes.io/name: mysql
app.kubernetes.io/managed-by: mysql.presslabs.org
{{- end }}

{{/* A label template (its name in .template) as the operator's flags take it: name=value,... in key order. */}}
{{- define "mysql-operator.labelPairs" -}}
{{- $pairs := list }}
{{- range $k, $v := (include .template .context | fromYaml) }}
{{- $pairs = append $pairs (printf "%s=%s" $k $v) }}
{{- end }}
{{- join "," $pairs }}
{{- end }}

{{- define "mysql-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mysql-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* An image from {repository, tag}, the tag defaulting to the chart's appVersion. */}}
{{- define "mysql-operator.image" -}}
{{- printf "%s:%s" .image.repository (.image.tag | default .appVersion) }}
{{- end }}

{{/* The operator's HTTP server (metrics, probes, the failover hook): the Service Orchestrator calls. */}}
{{- define "mysql-operator.operatorServiceName" -}}
{{- printf "%s-operator" (include "mysql-operator.fullname" . | trunc 54 | trimSuffix "-") }}
{{- end }}

{{- define "mysql-operator.operatorURL" -}}
{{- printf "http://%s.%s:%v" (include "mysql-operator.operatorServiceName" .) .Release.Namespace .Values.serviceMonitor.servicePort }}
{{- end }}

{{- define "mysql-operator.failoverHookSecretName" -}}
{{- .Values.failoverHook.secretName | default (printf "%s-failover-hook" (include "mysql-operator.fullname" . | trunc 49 | trimSuffix "-")) }}
{{- end }}

{{/* Where both pods mount the failover hook Secret. */}}
{{- define "mysql-operator.failoverHookDir" -}}
/etc/mysql-operator/failover-hook
{{- end }}

{{/*
A Secret key the chart generates once: the value the release's Secret already holds (kept across
upgrades; `helm template` has no cluster, so it renders a new one), else a random one.
*/}}
{{- define "mysql-operator.keptSecretValue" -}}
{{- $existing := lookup "v1" "Secret" .namespace .name }}
{{- if and $existing (index ($existing.data | default dict) .key) }}
{{- index $existing.data .key | b64dec }}
{{- else }}
{{- randAlphaNum .length }}
{{- end }}
{{- end }}

{{/* The failover hook Secret as a volume, the same in the operator's and Orchestrator's pods. */}}
{{- define "mysql-operator.failoverHookVolume" -}}
- name: failover-hook
  secret:
    secretName: {{ include "mysql-operator.failoverHookSecretName" . }}
    items:
      - key: secret
        path: secret
{{- end }}

{{/* Orchestrator's MySQL account from its Secret (the anchor's keys), for the operator and Orchestrator. */}}
{{- define "orchestrator.topologyEnv" -}}
- name: ORC_TOPOLOGY_USER
  valueFrom:
    secretKeyRef:
      name: {{ include "orchestrator.secretName" . }}
      key: TOPOLOGY_USER
- name: ORC_TOPOLOGY_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "orchestrator.secretName" . }}
      key: TOPOLOGY_PASSWORD
{{- end }}

{{/* Scheduling of a pod from {nodeSelector, affinity, tolerations}. */}}
{{- define "mysql-operator.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
