{{/*
Deployment, Service and headless Service of one gRPC service (producto-svc, bodega-svc, identidad-svc):
(dict "root" $ "component" "producto-svc" "values" .Values.productoSvc "databaseKey" "producto-database-url").
Probes: native gRPC (grpc.health.v1, service "") for startup and
readiness: NOT_SERVING until migrations are applied, while the database
does not answer, and from the first step of shutdown. Liveness is a TCP
check of the gRPC port instead: a database outage must take pods out of
rotation, not restart them.
*/}}
{{- define "inventario.grpcService" -}}
{{- $root := .root -}}
{{- $v := .values -}}
{{- if and (not $root.Values.migrations.migrateOnStart) (not $root.Values.migrations.enabled) }}{{ fail "migrations.migrateOnStart=false needs migrations.enabled=true: nothing else would apply the migrations" }}{{ end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .component }}
  labels:
    {{- include "inventario.labels" . | nindent 4 }}
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "inventario.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "inventario.labels" . | nindent 8 }}
      annotations:
        {{- include "inventario.configChecksums" $root | nindent 8 }}
    spec:
      {{- include "inventario.podSpecCommon" $root | nindent 6 }}
      # SHUTDOWN_TIMEOUT_MS (25 s) bounds the service's own shutdown sequence.
      terminationGracePeriodSeconds: 30
      containers:
        - name: {{ .component }}
          image: {{ include "inventario.image" (dict "root" $root "image" $v.image) }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          ports:
            - name: grpc
              containerPort: {{ $v.grpcPort }}
            - name: metrics
              containerPort: {{ $v.metricsPort }}
          env:
            - name: GRPC_PORT
              value: {{ $v.grpcPort | quote }}
            - name: METRICS_PORT
              value: {{ $v.metricsPort | quote }}
            # false: no DDL at start, only a check that the migration Job applied every migration.
            - name: MIGRATE_ON_START
              value: {{ $root.Values.migrations.migrateOnStart | quote }}
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: {{ .databaseKey }}
            - name: NATS_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: nats-url
            # The service's own NATS user: it may publish only its own subjects (values.yaml nats.config.merge).
            - name: NATS_USER
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: {{ .natsUserKey }}
            - name: NATS_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: {{ .natsPasswordKey }}
            {{- if .bodegaSvcAddr }}
            # producto-svc's reconciliation asks bodega-svc whether a deleted warehouse is really gone.
            - name: BODEGA_SVC_ADDR
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: BODEGA_SVC_ADDR }
            {{- end }}
            {{- if .productoSvcAddr }}
            # bodega-svc's reconciliation asks producto-svc whether a deleted product is really gone.
            - name: PRODUCTO_SVC_ADDR
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: PRODUCTO_SVC_ADDR }
            {{- end }}
            {{- if .serviceTokenKey }}
            # Who may call (docs/contract.md §12.9): the BFF's signed principal, verified with identidad-svc's keys, or
            # an internal caller's own token, verified by identidad-svc; REQUIRE_PRINCIPAL refuses a call with neither.
            - name: IDENTIDAD_SVC_ADDR
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: IDENTIDAD_SVC_ADDR }
            - name: REQUIRE_PRINCIPAL
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: REQUIRE_PRINCIPAL }
            - name: PRINCIPAL_TOKEN_CACHE_MS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: PRINCIPAL_TOKEN_CACHE_MS }
            # This service's own API token (a service account's, made by identidad-svc from tokens-de-servicio) for
            # the calls it makes for itself; needed while REQUIRE_PRINCIPAL is on (values.yaml principal).
            - name: SERVICE_TOKEN
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: {{ .serviceTokenKey }}
                  optional: true
            {{- end }}
            {{- if .identidad }}
            # identidad-svc signs principals with this Ed25519 key (the services verify with its public half).
            - name: PRINCIPAL_SIGNING_KEY
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: identidad-principal-signing-key
            # The first ADMIN, created at start while no active ADMIN exists (the shared credential until now).
            - name: BFF_USER
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: bff-user
            - name: BFF_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: bff-password
            - name: PRINCIPAL_TTL_SECONDS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: PRINCIPAL_TTL_SECONDS }
            - name: VIGENCIA_MAX_DIAS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: VIGENCIA_MAX_DIAS }
            - name: AUDITORIA_ANCLA_INTERVAL_MS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: AUDITORIA_ANCLA_INTERVAL_MS }
            # The internal callers' service accounts and tokens, made at start (docs/contract.md §12.9).
            - name: TOKENS_DE_SERVICIO
              valueFrom:
                secretKeyRef:
                  name: {{ include "inventario.secretName" $root }}
                  key: tokens-de-servicio
                  optional: true
            {{- end }}
            {{- if .existenciasVerificacion }}
            # bodega-svc checks its stock against the ledger on this period (the gauge behind InventarioExistenciasInconsistentes).
            - name: EXISTENCIAS_VERIFICACION_INTERVAL_MS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: EXISTENCIAS_VERIFICACION_INTERVAL_MS }
            {{- end }}
            - name: NATS_STREAM
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: NATS_STREAM }
            - name: NATS_SUBJECT_PREFIX
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: NATS_SUBJECT_PREFIX }
            - name: NATS_STREAM_MAX_AGE_HOURS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: NATS_STREAM_MAX_AGE_HOURS }
            - name: NATS_STREAM_MAX_BYTES
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: NATS_STREAM_MAX_BYTES }
            - name: NATS_STREAM_REPLICAS
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: NATS_STREAM_REPLICAS }
            - name: EVENT_TYPE_NAMESPACE
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: EVENT_TYPE_NAMESPACE }
            - name: LOG_LEVEL
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: LOG_LEVEL }
            - name: OTEL_EXPORTER_OTLP_ENDPOINT
              valueFrom:
                configMapKeyRef: { name: inventario-config, key: OTEL_EXPORTER_OTLP_ENDPOINT }
          startupProbe:
            grpc:
              port: {{ $v.grpcPort }}
            periodSeconds: 5
            # Up to 5 min for the database and migrations at first start.
            failureThreshold: 60
          readinessProbe:
            grpc:
              port: {{ $v.grpcPort }}
            periodSeconds: 5
            failureThreshold: 2
          livenessProbe:
            tcpSocket:
              port: grpc
            periodSeconds: 10
            failureThreshold: 3
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "inventario.tmpMount" $root | nindent 12 }}
      volumes:
        {{- include "inventario.tmpVolume" $root | nindent 8 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .component }}
  labels:
    {{- include "inventario.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "inventario.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ $v.grpcPort }}
      targetPort: grpc
      appProtocol: grpc
    - name: metrics
      port: {{ $v.metricsPort }}
      targetPort: metrics
---
# One DNS answer per ready pod: the BFF's channel (dns:///{{ .component }}-headless)
# balances calls round-robin over every replica, instead of one HTTP/2
# connection through the ClusterIP to one replica.
apiVersion: v1
kind: Service
metadata:
  name: {{ .component }}-headless
  labels:
    {{- include "inventario.labels" . | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "inventario.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ $v.grpcPort }}
      targetPort: grpc
      appProtocol: grpc
{{- end -}}
