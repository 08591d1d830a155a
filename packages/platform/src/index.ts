// The public API of @inventario/platform, listed by role. A name not listed here
// is internal to the package; packages/platform/README.md describes each group.

// Configuration: environment parsing, the shared variables and each gRPC service's settings (contract §8).
export {
  ConfigError,
  bffCredentialOf,
  envSchemas,
  natsCredentialsEnv,
  natsCredentialsOf,
  natsCredentialsTogether,
  parseEnv,
} from './config';
export {
  eventStreamEnv,
  eventStreamOf,
  loadServiceConfig,
  loadServiceConfigWith,
  serviceConfigSchema,
  type ServiceConfig,
} from './service-config';
export { tracingEnv } from './tracing';

// Database: connection, URL handling, error classification and migrations (contract §7.8, §8).
export {
  createDb,
  describeMysqlUrl,
  dropDatabase,
  ensureDatabase,
  executePrepared,
  isDuplicateEntry,
  isLockConflict,
  isStatementTimeout,
  isTransientDbError,
  MigrationsMissingError,
  parseMysqlHosts,
  parseMysqlUrl,
  withDbErrors,
  type Knex,
  type Migration,
  type MysqlHost,
} from './db';
export { runMigrationJob } from './migration-job';

// Domain errors and their gRPC status form (contract §3.2, §7.3).
export {
  AlreadyExistsError,
  DomainError,
  FailedPreconditionError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidArgumentError,
  LockConflictError,
  NotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnavailableError,
  VersionMismatchError,
  DEPENDENCIA_NO_DISPONIBLE,
  type FieldViolation,
} from './errors';
export {
  currentVersionOf,
  errorDataOf,
  errorReasonOf,
  FIELD_VIOLATIONS_KEY,
  fieldViolationsOf,
  grpcCodeName,
} from './grpc/status';

// Input rules shared by the BFF and the services (contract §2.5, §7.2).
export { checkPositiveId, ID_MENSAJES, MAX_UNSIGNED_INT, requirePositiveId, requirePositiveIds } from './positive-id';
export {
  caracteres,
  FIELD_MENSAJES,
  isWellFormedText,
  MAX_COMENTARIO,
  MAX_DESCRIPCION_BYTES,
  MAX_INT32,
  MAX_NUMBER_TEXT,
  MAX_TEXTO,
  PRECIO,
} from './field-rules';
export { integerFromNumberText, precioFromNumberText, type Checked } from './number-text';
export {
  anulable,
  entero,
  fromChecked,
  idNumero,
  nombre,
  NUMBER_TEXT,
  opcionalNoNulo,
  parseChanges,
  parseFields,
  precio,
  PROTO_NUMBER,
  requerido,
  texto,
  textoCorto,
  textoHasta,
  textoLibre,
  validateFields,
  violationsOf,
  type NumberReader,
} from './field-schemas';
export { parseUpdateMask, type UpdateMaskSpec } from './grpc/update-mask';

// Write transactions and idempotency keys (contract §9.2).
export { WRITE_RETRY_ATTEMPTS, WRITE_RETRY_WITHIN_MS, writeTransaction } from './write-transaction';
export {
  claimResumableIdempotencyKey,
  idempotencyKeyOf,
  createIdempotencyTable,
  dropIdempotencyTable,
  IDEMPOTENCY_KEY_MENSAJE,
  isIdempotencyKey,
  jsonResultCodec,
  recordIdempotentResult,
  type IdempotencyKey,
  type ResultCodec,
} from './idempotency';

// Events: subjects, envelope, data forms and the transactional outbox (contract §5, §10.4).
export {
  BODEGA_CAMPOS,
  buildEnvelope,
  changedFields,
  EVENT_SOURCE,
  EVENT_TYPES,
  eventAudit,
  envelopeMismatch,
  eventSubject,
  eventTypeOfSubject,
  PRODUCTO_CAMPOS,
  type BodegaCampo,
  type BodegaEventData,
  type DeletedEventData,
  type EventData,
  type EventEnvelope,
  type EventType,
  type MovimientoData,
  type MovimientoRegistradoData,
  type Operacion,
  type ProductoCampo,
  type ProductoEventData,
  type StockUmbralData,
  type ReservaDescubiertaData,
  type ReservaLineaData,
} from './events';
export {
  countPendingEvents,
  createOutboxRelay,
  createOutboxTables,
  dropOutboxTables,
  enqueueEvent,
  enqueueEvents,
  jetStreamPublisher,
  outboxInsert,
  type OutboxEvent,
  type OutboxRelay,
  type PublishFn,
} from './outbox';

// What a service deleted of its own records: the owner's confirmation of a deletion (contract §7.6).
export { createDeletionRecord, DELETIONS_TABLE, dropDeletionRecord, wasDeleted } from './deletion-record';

// NATS and the reconciliation consumers (contract §5.1, §7.6).
export {
  connectNats,
  ensureConsumer,
  ensureStream,
  isPermissionViolation,
  StreamNotProvisionedError,
  type DurableConfig,
  type EnsureStreamOutcome,
  type NatsConnection,
  type StreamLimits,
} from './nats';
export { createServiceEvents, type EventsContext, type OutboxFaults, type ServiceEvents } from './service-events';
export {
  runGrpcService,
  serveGrpcAfterMigrations,
  startServiceBase,
  type GrpcServiceApp,
  type GrpcServiceStartOptions,
  type ServiceBase,
} from './grpc-service';
export {
  RECONCILIATION_ACK_WAIT_MS,
  RECONCILIATION_MAX_DELIVER,
  startReconciliationConsumer,
  type ReconciliationConsumer,
  type ReconciliationEventData,
} from './reconciliation-consumer';

// gRPC handlers, metadata, pagination and record lookups (contract §7.2, §7.4, §4.6).
export {
  idempotentBy,
  REPLAYED_METADATA_KEY,
  unary,
  USUARIO_BIN_METADATA_KEY,
  USUARIO_METADATA_KEY,
  type CallContext,
} from './grpc/handlers';
export {
  DEFAULT_PAGE_SIZE,
  decodeNivelPageToken,
  decodePageToken,
  encodeNivelPageToken,
  encodePageToken,
  itemSizeBound,
  listPageOf,
  MAX_PAGE_SIZE,
  PAGE_BYTE_BUDGET,
  pageSizeOf,
} from './grpc/pagination';
export { boundedPrefix, jsonBytes, PRODUCTO_SAMPLE_LIMITS } from './bounded-list';
export { createRecordLookup, type RecordLookup } from './grpc/record-lookup';
export {
  autenticacionDeConfig,
  AUTHORIZATION_METADATA_KEY,
  createAutenticacionDeServicio,
  createIdentidadParaServicios,
  fijarCredencial,
  metadataDeServicio,
  principalConfigOf,
  principalEnv,
  principalEnvRefinement,
  type AutenticacionDeServicio,
  type IdentidadParaServicios,
  type PrincipalConfig,
  type PrincipalVerificado,
} from './grpc/principal-de-llamada';

// Metrics: registries, the /metrics server and the series each kind of process exports (contract §1, §9.3).
export { createServiceRegistry } from './metrics/registry';
export { createOutboxMetrics, startOutboxSampler, type OutboxMetrics } from './metrics/outbox-metrics';
export { startMetricsServer, type MetricsServer } from './metrics/metrics-server';
export { startSampler } from './metrics/sampler';
export {
  BREAKER_EVENTS,
  BREAKER_STATE_VALUES,
  createCircuitBreakerMetrics,
  type CircuitBreakerMetrics,
} from './metrics/breaker-metrics';
export { createGrpcClientMetrics, grpcClientMetricsInterceptor, type GrpcMetrics } from './metrics/grpc-metrics';
export { createHttpMetrics, httpMetricsMiddleware, type HttpMetrics } from './metrics/http-metrics';
export {
  createJetStreamConsumerMetrics,
  createJetStreamStreamMetrics,
  startConsumerSampler,
  startStreamSampler,
  type JetStreamConsumerMetrics,
  type JetStreamStreamMetrics,
} from './metrics/jetstream-metrics';

// Tracing: the SDK of a process, spans and W3C trace context across HTTP, gRPC and NATS (contract §5.5, §7.4).
export { startTracing, type Tracing } from './tracing';
export { eventTraceHeaders, inSpan } from './tracing-context';
export { grpcClientTracing } from './tracing-grpc';
export { httpServerTracing } from './tracing-http';
export { inConsumeSpan } from './tracing-nats';

// Lifecycle: a process's main (configuration or exit, grpc-js logs, stop requests, the ready
// message), a gRPC service's start-up pieces, retries, health and shutdown (contract §7.5).
export {
  announceStarted,
  exitAfterFailedStart,
  listenForStop,
  loadConfigOrExit,
  READY_MESSAGE_TYPE,
  readyMessage,
  routeGrpcLogs,
  runCommandMain,
  runProcess,
  type ProcessConfig,
  type StartedApp,
  type StopRequests,
} from './process';
export { applyMigrationsAtStart, connectNatsUnlessAborted, createStartupGuard, retrying } from './start-up';
export { startServiceGrpcServer, type ServiceGrpcServer } from './grpc/service-server';
export { startServingHealth, type ServingHealth } from './health';
export { startIdempotencyPruner } from './idempotency';
export { backoffDelayMs } from './backoff';
export { createShutdown, grpcServingShutdownSteps, stopOnce, type ShutdownStep } from './shutdown';

// Logging and redaction of credentials (contract §8.1).
export { createLogger, type Logger } from './logger';
export { redactUrlCredentials } from './redact';

// Time: the public timestamp form (contract §2.1).
export { formatLocalUtc, nowToSecond } from './time';
export {
  LAUNCHER_RECORD_FILE,
  readLauncherRecord,
  removeLauncherRecord,
  writeLauncherRecord,
  type LauncherRecord,
} from './launcher-record';
