{{/* Chart label value: name-version. */}}
{{- define "inventario.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels of every object of one component. part-of marks Inventario's own pods:
the default-deny NetworkPolicy selects by it, leaving the MySQL/NATS subcharts' pods to their charts.
Call with (dict "root" $ "component" "bff").
*/}}
{{- define "inventario.labels" -}}
helm.sh/chart: {{ include "inventario.chart" .root }}
{{ include "inventario.selectorLabels" . }}
app.kubernetes.io/part-of: inventario
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{- define "inventario.selectorLabels" -}}
app.kubernetes.io/name: {{ .component }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* An Inventario image: (dict "root" $ "image" .Values.bff.image). */}}
{{- define "inventario.image" -}}
{{- $tag := .image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s%s:%s" .root.Values.image.registry .image.repository $tag -}}
{{- end -}}

{{/* The Secret holding credentials: yours (existingSecret) or the chart's. */}}
{{- define "inventario.secretName" -}}
{{- .Values.secrets.existingSecret | default "inventario-secrets" -}}
{{- end -}}

{{- define "inventario.natsUrl" -}}
{{- if .Values.nats.enabled -}}
{{- printf "nats://%s:4222" .Values.nats.fullnameOverride -}}
{{- else -}}
{{- required "externalNats.url is required when nats.enabled is false" .Values.externalNats.url -}}
{{- end -}}
{{- end -}}

{{/* DATABASE_URL of one service: (dict "root" $ "database" "inventario_producto" "external" .Values.externalDatabase.productoUrl "key" "externalDatabase.productoUrl"). */}}
{{- define "inventario.databaseUrl" -}}
{{- $mysql := .root.Values.mysql -}}
{{- if $mysql.enabled -}}
{{- $password := required "mysql.auth.password is required when mysql.enabled is true" $mysql.auth.password -}}
{{- /* urlquery escapes a space as "+", which the services' decodeURIComponent keeps: "%20" instead (a literal "+" is already "%2B"). */ -}}
{{- printf "mysql://%s:%s@%s:3306/%s" (urlquery $mysql.auth.username | replace "+" "%20") (urlquery $password | replace "+" "%20") $mysql.fullnameOverride .database -}}
{{- else -}}
{{- required (printf "%s is required when mysql.enabled is false (or set secrets.existingSecret)" .key) .external -}}
{{- end -}}
{{- end -}}

{{- define "inventario.smtpUrl" -}}
{{- if .Values.notifier.smtpUrl -}}
{{- .Values.notifier.smtpUrl -}}
{{- else if .Values.mailpit.enabled -}}
{{- printf "smtp://mailpit:%v" .Values.mailpit.smtpPort -}}
{{- else -}}
{{- required "notifier.smtpUrl is required unless mailpit.enabled (or set secrets.existingSecret)" .Values.notifier.smtpUrl -}}
{{- end -}}
{{- end -}}

{{/* Pod-level settings every Inventario pod shares. */}}
{{- define "inventario.podSpecCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{/* The only writable place of a read-only root filesystem. */}}
{{- define "inventario.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{- define "inventario.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* Rolls pods when the configuration or the chart's Secret changes. */}}
{{- define "inventario.configChecksums" -}}
checksum/config: {{ include (print .Template.BasePath "/config.yaml") . | sha256sum }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end -}}

{{/* NetworkPolicy egress rule to MySQL: the bundled pods, or externalDatabase CIDRs. */}}
{{- define "inventario.egressMysql" -}}
{{- if .Values.mysql.enabled -}}
- to:
    - podSelector:
        matchLabels:
          app.kubernetes.io/name: mysql
          app.kubernetes.io/instance: {{ .Release.Name }}
  ports:
    - { protocol: TCP, port: 3306 }
{{- else -}}
- to:
    {{- if not .Values.networkPolicy.externalDatabase.cidrs }}{{ fail "networkPolicy.externalDatabase.cidrs is required when mysql.enabled is false and networkPolicy.enabled is true" }}{{ end }}
    {{- range .Values.networkPolicy.externalDatabase.cidrs }}
    - ipBlock: { cidr: {{ . }} }
    {{- end }}
  ports:
    - { protocol: TCP, port: {{ .Values.networkPolicy.externalDatabase.port }} }
{{- end -}}
{{- end -}}

{{/* NetworkPolicy egress rule to NATS: the bundled pods, or externalNats CIDRs. */}}
{{- define "inventario.egressNats" -}}
{{- if .Values.nats.enabled -}}
- to:
    - podSelector:
        matchLabels:
          app.kubernetes.io/name: nats
          app.kubernetes.io/instance: {{ .Release.Name }}
  ports:
    - { protocol: TCP, port: 4222 }
{{- else -}}
- to:
    {{- if not .Values.networkPolicy.externalNats.cidrs }}{{ fail "networkPolicy.externalNats.cidrs is required when nats.enabled is false and networkPolicy.enabled is true" }}{{ end }}
    {{- range .Values.networkPolicy.externalNats.cidrs }}
    - ipBlock: { cidr: {{ . }} }
    {{- end }}
  ports:
    - { protocol: TCP, port: {{ .Values.networkPolicy.externalNats.port }} }
{{- end -}}
{{- end -}}

{{/*
TOKENS_DE_SERVICIO for identidad-svc: each declared internal caller as
nombre:ROL=token, comma-separated (empty when none is declared).
*/}}
{{- define "inventario.tokensDeServicio" -}}
{{- $t := .Values.secrets.serviceTokens -}}
{{- $entries := list -}}
{{- if $t.productoSvc }}{{ $entries = append $entries (printf "producto-svc:ADMIN=%s" $t.productoSvc) }}{{ end -}}
{{- if $t.bodegaSvc }}{{ $entries = append $entries (printf "bodega-svc:ADMIN=%s" $t.bodegaSvc) }}{{ end -}}
{{- if $t.notifier }}{{ $entries = append $entries (printf "notifier:LECTOR=%s" $t.notifier) }}{{ end -}}
{{- if $t.seed }}{{ $entries = append $entries (printf "inventario-seed:ADMIN=%s" $t.seed) }}{{ end -}}
{{- join "," $entries -}}
{{- end -}}
