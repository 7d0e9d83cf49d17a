{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "revu.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name; the component suffix is added per object. */}}
{{- define "revu.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "revu.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "revu.labels" -}}
helm.sh/chart: {{ include "revu.chart" . }}
{{ include "revu.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "revu.selectorLabels" -}}
app.kubernetes.io/name: {{ include "revu.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "revu.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret holding the Redis URL, and its key. */}}
{{- define "revu.redisSecretName" -}}
{{- if .Values.redis.existingSecret }}
{{- .Values.redis.existingSecret }}
{{- else }}
{{- printf "%s-redis" (include "revu.fullname" .) }}
{{- end }}
{{- end }}

{{- define "revu.redisSecretKey" -}}
{{- if .Values.redis.existingSecret }}
{{- .Values.redis.existingSecretKey }}
{{- else -}}
url
{{- end }}
{{- end }}

{{/*
Settings both binaries read. Every REVU_* name in this file must be one
both binaries accept (tests/tests/suite/helm_chart.rs checks).
*/}}
{{- define "revu.redisEnv" -}}
- name: REVU_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "revu.redisSecretName" . }}
      key: {{ include "revu.redisSecretKey" . }}
{{- if .Values.redis.cluster }}
- name: REVU_REDIS_CLUSTER
  value: "true"
{{- end }}
{{- with .Values.redis.tls }}
{{- if .secretName }}
- name: REVU_REDIS_CA_CERT
  value: /etc/revu/redis-tls/ca.crt
{{- if .clientCertificate }}
- name: REVU_REDIS_CLIENT_CERT
  value: /etc/revu/redis-tls/tls.crt
- name: REVU_REDIS_CLIENT_KEY
  value: /etc/revu/redis-tls/tls.key
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.redis.passwordSecret }}
- name: REVU_REDIS_PASSWORD_FILE
  value: /etc/revu/redis-password/{{ .Values.redis.passwordSecretKey }}
{{- end }}
{{- end }}

{{/* Volumes of the Redis TLS material and password, and of the metrics
certificate, when given. */}}
{{- define "revu.redisVolumes" -}}
{{- if and .Values.metrics.enabled .Values.metrics.tls.secretName }}
- name: metrics-tls
  secret:
    secretName: {{ .Values.metrics.tls.secretName }}
{{- end }}
{{- if .Values.redis.tls.secretName }}
- name: redis-tls
  secret:
    secretName: {{ .Values.redis.tls.secretName }}
{{- end }}
{{- if .Values.redis.passwordSecret }}
- name: redis-password
  secret:
    secretName: {{ .Values.redis.passwordSecret }}
{{- end }}
{{- end }}

{{- define "revu.redisMounts" -}}
{{- if and .Values.metrics.enabled .Values.metrics.tls.secretName }}
- name: metrics-tls
  mountPath: /etc/revu/metrics-tls
  readOnly: true
{{- end }}
{{- if .Values.redis.tls.secretName }}
- name: redis-tls
  mountPath: /etc/revu/redis-tls
  readOnly: true
{{- end }}
{{- if .Values.redis.passwordSecret }}
- name: redis-password
  mountPath: /etc/revu/redis-password
  readOnly: true
{{- end }}
{{- end }}

{{/* ConfigMap entries of a component: shared settings, its own, OTEL_*, then its `env`; later ones win. */}}
{{- define "revu.configData" -}}
{{- $root := .root }}
{{- $config := dict "REVU_KEY_PREFIX" $root.Values.redis.keyPrefix "REVU_LOG_JSON" $root.Values.logJson }}
{{- if $root.Values.metrics.enabled }}
{{- $_ := set $config "REVU_METRICS_LISTEN" (printf "0.0.0.0:%v" $root.Values.metrics.port) }}
{{- if $root.Values.metrics.tls.secretName }}
{{- $_ := set $config "REVU_METRICS_TLS_CERT" "/etc/revu/metrics-tls/tls.crt" }}
{{- $_ := set $config "REVU_METRICS_TLS_KEY" "/etc/revu/metrics-tls/tls.key" }}
{{- end }}
{{- end }}
{{- $config = mustMergeOverwrite $config .own (deepCopy $root.Values.otel.env) (deepCopy .env) }}
{{- range $k, $v := $config }}
{{- /* Whole numbers arrive as float64 and would print as 1e+08. */}}
{{- if and (kindIs "float64" $v) (eq $v (floor $v)) }}
{{- $v = int64 $v }}
{{- end }}
{{ $k }}: {{ $v | toString | quote }}
{{- end }}
{{- end }}

{{/* The writable /tmp a read-only root filesystem still needs. */}}
{{- define "revu.tmpVolume" -}}
- name: tmp
  emptyDir: {}
{{- end }}

{{- define "revu.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* The scheme of HTTP probes on the metrics port. */}}
{{- define "revu.metricsScheme" -}}
{{- if .Values.metrics.tls.secretName }}HTTPS{{ else }}HTTP{{ end }}
{{- end }}
