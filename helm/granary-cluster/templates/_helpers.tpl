{{/* The GranaryCluster's name: clusterName, else the release name; a DNS label short enough for pod names. */}}
{{- define "granary-cluster.name" -}}
{{- .Values.clusterName | default .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "granary-cluster.labels" -}}
app.kubernetes.io/name: granary
app.kubernetes.io/instance: {{ include "granary-cluster.name" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: granary
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* A role's pod placement and size: the keys are the same for proxies and targets. */}}
{{- define "granary-cluster.placement" -}}
{{- with .resources }}
resources:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
