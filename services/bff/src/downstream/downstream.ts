import { Client, credentials, type ChannelOptions } from '@grpc/grpc-js';
import {
  createCircuitBreakerMetrics,
  createGrpcClientMetrics,
  type CircuitBreakerMetrics,
  type GrpcMetrics,
  type Logger,
} from '@inventario/platform';
import {
  BodegaServiceClient,
  BodegaServiceService,
  ExistenciaServiceClient,
  ExistenciaServiceService,
  IdentidadServiceClient,
  IdentidadServiceService,
  ProductoServiceClient,
  ProductoServiceService,
  ReservaServiceClient,
  ReservaServiceService,
} from '@inventario/proto';
import { Counter, Registry } from 'prom-client';
import type { Config } from '../config';
import { createBodegaClient, type BodegaClient } from './bodega-client';
import { createBreaker, type Breaker } from './breaker';
import { createExistenciaClient, type ExistenciaClient } from './existencia-client';
import { createHealthChecker, type HealthChecker, type HealthTarget } from './health-checker';
import { createIdentidadClient, type IdentidadClient } from './identidad-client';
import { createProductoClient, type ProductoClient } from './producto-client';
import { createReservaClient, type ReservaClient } from './reserva-client';
import { createUnaryCall } from './unary-call';

/** Everything the BFF calls, created once per process. */
export interface Downstream {
  productos: ProductoClient;
  bodegas: BodegaClient;
  /** bodega-svc's stock levels and ledger. */
  existencias: ExistenciaClient;
  /** identidad-svc, when IDENTIDAD_SVC_ADDR is set (issue 26). */
  identidad?: IdentidadClient;
  /** bodega-svc's reservations (docs/contract.md §13). */
  reservas: ReservaClient;
  health: HealthChecker;
  /** Stops the breakers and closes both channels (in-flight calls end with CANCELLED). */
  close(): void;
}

/** The metrics of every outbound call: gRPC client RED metrics and the breakers'. */
export interface DownstreamMetrics {
  grpcClient: GrpcMetrics;
  breakers: CircuitBreakerMetrics;
  /** Keyed writes answered from their record, and writes refused by a version or key conflict. */
  safeWrites: Counter<'outcome'>;
}

/** The outcomes bff_safe_write_outcomes_total counts. */
export const SAFE_WRITE_OUTCOMES = [
  'replayed',
  'version_mismatch',
  'idempotency_key_in_use',
  'idempotency_key_reused',
] as const;

/** The downstream metrics on `registry`, every known series at 0 (identidad-svc's when the BFF calls it). */
export function createDownstreamMetrics(registry: Registry, withIdentidad = false): DownstreamMetrics {
  const services = [ProductoServiceService, BodegaServiceService, ExistenciaServiceService, ReservaServiceService];
  return {
    grpcClient: createGrpcClientMetrics(registry, withIdentidad ? [...services, IdentidadServiceService] : services),
    breakers: createCircuitBreakerMetrics(
      registry,
      withIdentidad ? ['producto-svc', 'bodega-svc', 'identidad-svc'] : ['producto-svc', 'bodega-svc'],
    ),
    safeWrites: createSafeWriteMetric(registry),
  };
}

function createSafeWriteMetric(registry: Registry): Counter<'outcome'> {
  const counter = new Counter({
    name: 'bff_safe_write_outcomes_total',
    help:
      'Downstream writes answered from their idempotency record (replayed; a forced warehouse delete makes two), ' +
      'or writes refused: ' +
      'version_mismatch (HTTP 412), idempotency_key_in_use (409), idempotency_key_reused (422)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of SAFE_WRITE_OUTCOMES) counter.inc({ outcome }, 0);
  return counter;
}

const CHANNEL_OPTIONS: ChannelOptions = {
  // grpc-js backs off reconnecting up to 120 s by default; capped so a
  // service that comes back is used again within seconds, without restarting the BFF.
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 5000,
  // grpc-js' default, said out loud: what one answer may cost the BFF. The
  // services end a list page at about 1 MiB whatever page_size asked for
  // (PAGE_BYTE_BUDGET), so 1000 products with 64 KiB descriptions come as
  // many short pages, not as one 66 MB message.
  'grpc.max_receive_message_length': 4 * 1024 * 1024,
  // Channelz bookkeeping (per-call counters and traces) costs CPU on every call and nothing here reads it.
  'grpc.enable_channelz': 0,
  // One connection to every address the target resolves to, calls spread
  // round-robin over the ready ones: behind a headless Service
  // (dns:///producto-svc-headless:50051) that is every replica. An address
  // whose connection drops (its pod stopping: GOAWAY) leaves the rotation at
  // once and the name is resolved again. A plain `127.0.0.1:50051` is one
  // address: one connection, as before.
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  // This config, not one from a DNS TXT record (no TXT lookups either).
  'grpc.service_config_disable_resolution': 1,
  // grpc-js resolves again when a connection drops, at most this often (default 30 s).
  'grpc.dns_min_time_between_resolutions_ms': 5000,
};

/**
 * CHANNEL_OPTIONS with keepalive pings: a replica that vanished without
 * closing its connection (frozen, its node gone, a silent network drop)
 * answers no ping, so its connection is dropped within time + timeout and
 * it leaves the rotation; a new connection to it is READY only once it
 * answers HTTP/2 SETTINGS. Without pings its calls would time out until
 * the breaker opened for every replica. Pings go on idle connections too,
 * so a dead one is found before a call is sent on it. grpc-js servers
 * accept pings at any rate (no ping strikes), so ours permit these.
 */
function channelOptions(keepalive: Config['keepalive']): ChannelOptions {
  if (keepalive.timeMs === 0) return CHANNEL_OPTIONS;
  return {
    ...CHANNEL_OPTIONS,
    'grpc.keepalive_time_ms': keepalive.timeMs,
    'grpc.keepalive_timeout_ms': keepalive.timeoutMs,
    'grpc.keepalive_permit_without_calls': 1,
  };
}

/**
 * One channel per downstream service (calls and health checks share it), a
 * breaker per service, and the typed clients on top. All outbound traffic of
 * the BFF starts here. Without `metrics` (the seed command) they are
 * recorded on a registry nobody serves. One wiring list, so which channel and breaker each client and health
 * check shares reads in one place.
 */
export function createDownstream(
  config: Config,
  logger: Logger,
  metrics = createDownstreamMetrics(new Registry()),
): Downstream {
  const retryAfterSeconds = Math.max(1, Math.ceil(config.breaker.resetMs / 1000));
  const insecure = credentials.createInsecure();

  const options = channelOptions(config.keepalive);
  const productoGrpc = new ProductoServiceClient(config.productoSvcAddr, insecure, options);
  const bodegaGrpc = new BodegaServiceClient(config.bodegaSvcAddr, insecure, options);
  // bodega-svc serves both services: one channel, so one breaker and one set of connections judge its health.
  const existenciaGrpc = new ExistenciaServiceClient(config.bodegaSvcAddr, insecure, {
    channelOverride: bodegaGrpc.getChannel(),
  });
  const reservaGrpc = new ReservaServiceClient(config.bodegaSvcAddr, insecure, {
    channelOverride: bodegaGrpc.getChannel(),
  });
  const productoBreaker: Breaker = createBreaker('producto-svc', config.breaker, logger, metrics.breakers);
  const bodegaBreaker: Breaker = createBreaker('bodega-svc', config.breaker, logger, metrics.breakers);
  const call = (servicio: string, breaker: Breaker) =>
    createUnaryCall({
      servicio,
      breaker,
      deadlineMs: config.grpcDeadlineMs,
      retryAfterSeconds,
      metrics: metrics.grpcClient,
      safeWrites: metrics.safeWrites,
    });

  // identidad-svc has a channel and breaker of its own: a slow login must not open the stock services' breakers.
  const identidadGrpc = config.identidadSvcAddr
    ? new IdentidadServiceClient(config.identidadSvcAddr, insecure, options)
    : undefined;
  const identidadBreaker = identidadGrpc
    ? createBreaker('identidad-svc', config.breaker, logger, metrics.breakers)
    : undefined;
  const identidadHealth: HealthTarget[] =
    identidadGrpc && identidadBreaker && config.identidadSvcAddr
      ? [
          {
            name: 'identidadSvc',
            client: new Client(config.identidadSvcAddr, insecure, { channelOverride: identidadGrpc.getChannel() }),
            service: 'inventario.v1.IdentidadService',
            breaker: identidadBreaker,
          },
        ]
      : [];

  const health = createHealthChecker(
    [
      {
        name: 'productoSvc',
        client: new Client(config.productoSvcAddr, insecure, { channelOverride: productoGrpc.getChannel() }),
        service: 'inventario.v1.ProductoService',
        breaker: productoBreaker,
      },
      {
        name: 'bodegaSvc',
        client: new Client(config.bodegaSvcAddr, insecure, { channelOverride: bodegaGrpc.getChannel() }),
        service: 'inventario.v1.BodegaService',
        breaker: bodegaBreaker,
      },
      ...identidadHealth,
    ],
    config.healthCheckTimeoutMs,
  );

  const bodegaCall = call('bodega-svc', bodegaBreaker);
  return {
    productos: createProductoClient(productoGrpc, call('producto-svc', productoBreaker), config.grpcDeadlineMs),
    bodegas: createBodegaClient(bodegaGrpc, bodegaCall),
    existencias: createExistenciaClient(existenciaGrpc, bodegaCall),
    reservas: createReservaClient(reservaGrpc, bodegaCall),
    identidad:
      identidadGrpc && identidadBreaker
        ? createIdentidadClient(identidadGrpc, call('identidad-svc', identidadBreaker))
        : undefined,
    health,
    close() {
      productoBreaker.shutdown();
      bodegaBreaker.shutdown();
      identidadBreaker?.shutdown();
      productoGrpc.close();
      bodegaGrpc.close();
      identidadGrpc?.close();
    },
  };
}
