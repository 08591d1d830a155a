import {
  InterceptingCall,
  status,
  type handleUnaryCall,
  type Interceptor,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * gRPC RED metrics in the names of go-grpc-prometheus, which Grafana
 * dashboards and alerts for gRPC already expect: `grpc_service` is the fully
 * qualified service, `grpc_method` the method as in the proto
 * (`GetProducto`), `grpc_code` the status name (`OK`, `NOT_FOUND`...).
 */

type HandledLabels = 'grpc_service' | 'grpc_method' | 'grpc_code';
type MethodLabels = 'grpc_service' | 'grpc_method';

/** One side (server or client) of the gRPC metrics. */
export interface GrpcMetrics {
  handled: Counter<HandledLabels>;
  handling: Histogram<MethodLabels>;
}

/**
 * The codes our services answer (the domain errors, INTERNAL, and what
 * deadlines and shutdown produce); their series exist from the start, so a
 * ratio or an alert sees 0 rather than "no data".
 */
const KNOWN_CODES = [
  status.OK,
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.ALREADY_EXISTS,
  status.FAILED_PRECONDITION,
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.CANCELLED,
  status.INTERNAL,
];

/** `OK`, `NOT_FOUND`... (grpc-js's status enum maps numbers back to names). */
export function grpcCodeName(code: number): string {
  return status[code] ?? String(code);
}

/** `/inventario.v1.ProductoService/GetProducto` -> service and method labels. */
function methodLabels(path: string): Record<MethodLabels, string> {
  const [, service = '', method = ''] = /^\/([^/]*)\/([^/]*)$/.exec(path) ?? [];
  return { grpc_service: service, grpc_method: method };
}

function createGrpcMetrics(registry: Registry, side: 'server' | 'client', definitions: readonly ServiceDefinition[]): GrpcMetrics {
  const what = side === 'server' ? 'handled by this server' : 'made by this client';
  const metrics: GrpcMetrics = {
    handled: new Counter({
      name: `grpc_${side}_handled_total`,
      help: `gRPC calls ${what}, by method and status code.`,
      labelNames: ['grpc_service', 'grpc_method', 'grpc_code'] as const,
      registers: [registry],
    }),
    handling: new Histogram({
      name: `grpc_${side}_handling_seconds`,
      help: `Duration of gRPC calls ${what}, until the status, by method.`,
      labelNames: ['grpc_service', 'grpc_method'] as const,
      registers: [registry],
    }),
  };
  for (const definition of definitions) {
    for (const { path } of Object.values(definition)) {
      const labels = methodLabels(path);
      metrics.handling.zero(labels);
      for (const code of KNOWN_CODES) metrics.handled.labels({ ...labels, grpc_code: grpcCodeName(code) }).inc(0);
    }
  }
  return metrics;
}

/** Server-side metrics of the given services (producto-svc, bodega-svc). */
export function createGrpcServerMetrics(registry: Registry, definitions: readonly ServiceDefinition[]): GrpcMetrics {
  return createGrpcMetrics(registry, 'server', definitions);
}

/** Client-side metrics of calls to the given services (the BFF). */
export function createGrpcClientMetrics(registry: Registry, definitions: readonly ServiceDefinition[]): GrpcMetrics {
  return createGrpcMetrics(registry, 'client', definitions);
}

/**
 * Wraps every (unary) handler of a service implementation so each call is
 * timed and counted by the status it ends with, whatever answered it (the
 * handler, or a gate in front of it such as "still migrating").
 */
export function instrumentGrpcService(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  metrics: GrpcMetrics,
): UntypedServiceImplementation {
  return Object.fromEntries(
    Object.entries(implementation).map(([key, handler]) => {
      const labels = methodLabels(definition[key]?.path ?? `/unknown/${key}`);
      const unary = handler as handleUnaryCall<unknown, unknown>;
      const measured: handleUnaryCall<unknown, unknown> = (call, callback) => {
        const end = metrics.handling.startTimer(labels);
        const counted: sendUnaryData<unknown> = (err, ...rest) => {
          end();
          metrics.handled.inc({ ...labels, grpc_code: grpcCodeName(err?.code ?? status.OK) });
          callback(err, ...rest);
        };
        unary(call, counted);
      };
      return [key, measured];
    }),
  );
}

/**
 * A grpc-js client interceptor that times and counts each call by the status
 * it ends with (a deadline is DEADLINE_EXCEEDED, a refused connection
 * UNAVAILABLE). Calls an open circuit breaker refuses never start, so they
 * are counted by the breaker's metrics, not here.
 */
export function grpcClientMetricsInterceptor(metrics: GrpcMetrics): Interceptor {
  return (options, nextCall) => {
    const labels = methodLabels(options.method_definition.path);
    const end = metrics.handling.startTimer(labels);
    return new InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        next(metadata, {
          onReceiveStatus(received, nextStatus) {
            end();
            metrics.handled.inc({ ...labels, grpc_code: grpcCodeName(received.code) });
            nextStatus(received);
          },
        });
      },
    });
  };
}
