{{/* The image of every container. */}}
{{- define "sart.image" -}}
image: {{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}
{{- with .Values.image.pullPolicy }}
imagePullPolicy: {{ . }}
{{- end }}
{{- end }}

{{/* cni and dual: pod networking. */}}
{{- define "sart.cni" -}}
{{- if not (has .Values.mode (list "lb" "cni" "dual")) -}}
{{- fail (printf "mode must be lb, cni or dual, not %q" .Values.mode) -}}
{{- end -}}
{{- if ne .Values.mode "lb" }}true{{ end -}}
{{- end }}

{{/* The log flags of both sartd commands. */}}
{{- define "sart.logArgs" -}}
{{- if not (has .Values.log.format (list "plain" "json")) -}}
{{- fail (printf "log.format must be plain or json, not %q" .Values.log.format) -}}
{{- end -}}
- --format
- {{ .Values.log.format }}
{{- if ne .Values.log.level "info" }}
- --level
- {{ .Values.log.level }}
{{- end }}
{{- end }}

{{- define "sart.netconf" -}}
{{- .Values.cni.netconf | default (.Files.Get "files/netconf.json") -}}
{{- end }}

{{- define "sart.agentConfig" -}}
{{- .Values.cni.agentConfig | default (.Files.Get "files/agent.json") -}}
{{- end }}

{{/* clientConfig.caBundle, only when given by value (cert-manager and the certgen Job set it themselves). */}}
{{- define "sart.caBundle" -}}
{{- if and (not .Values.webhook.certManager.enabled) .Values.webhook.caBundle }}
      caBundle: {{ .Values.webhook.caBundle | quote }}
{{- end }}
{{- end }}

{{- define "sart.webhookAnnotations" -}}
{{- if .Values.webhook.certManager.enabled }}
  annotations:
    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/sart-webhook-server-cert
{{- end }}
{{- end }}
