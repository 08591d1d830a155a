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
import { grpcCodeName } from '../grpc/status';

/**
 * gRPC RED metrics in the names of go-grpc-prometheus, which Grafana
 * dashboards and alerts for gRPC already expect: `grpc_service` is the fully
 * qualified service, `grpc_method` the method as in the proto
 * (`GetProducto`), `grpc_code` the status name (`OK`, `NOT_FOUND`...).
 */

type HandledLabels = 'grpc_service' | 'grpc_method' | 'grpc_code';
type MethodLabels = 'grpc_service' | 'grpc_method';

/** The series of one method, bound once: no label parsing or label objects per call. */
export interface GrpcMethodSeries {
  /** Observes one call's duration in seconds. */
  observe(seconds: number): void;
  /** Counts one call that ended with `code`. */
  handled(code: number): void;
}

/** One side (server or client) of the gRPC metrics. */
export interface GrpcMetrics {
  handled: Counter<HandledLabels>;
  handling: Histogram<MethodLabels>;
  /** The bound series of the method at `path` (`/inventario.v1.ProductoService/GetProducto`), built once per path. */
  method(path: string): GrpcMethodSeries;
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

/** `/inventario.v1.ProductoService/GetProducto` -> service and method labels. */
function methodLabels(path: string): Record<MethodLabels, string> {
  const [, service = '', method = ''] = /^\/([^/]*)\/([^/]*)$/.exec(path) ?? [];
  return { grpc_service: service, grpc_method: method };
}

/** Binds the children of one method's series, each known code's at 0; a code first seen later is bound then. */
function bindMethod(handled: Counter<HandledLabels>, handling: Histogram<MethodLabels>, path: string): GrpcMethodSeries {
  const labels = methodLabels(path);
  const duration = handling.labels(labels);
  const byCode = new Map<number, Counter.Internal>();
  const counter = (code: number) => {
    let child = byCode.get(code);
    if (!child) {
      child = handled.labels({ ...labels, grpc_code: grpcCodeName(code) });
      byCode.set(code, child);
    }
    return child;
  };
  // Every code we answer exists from the start, at 0.
  handling.zero(labels);
  for (const code of KNOWN_CODES) counter(code).inc(0);
  return {
    observe: (seconds) => duration.observe(seconds),
    handled: (code) => counter(code).inc(),
  };
}

function createGrpcMetrics(registry: Registry, side: 'server' | 'client', definitions: readonly ServiceDefinition[]): GrpcMetrics {
  const what = side === 'server' ? 'handled by this server' : 'made by this client';
  const handled = new Counter({
    name: `grpc_${side}_handled_total`,
    help: `gRPC calls ${what}, by method and status code.`,
    labelNames: ['grpc_service', 'grpc_method', 'grpc_code'] as const,
    registers: [registry],
  });
  const handling = new Histogram({
    name: `grpc_${side}_handling_seconds`,
    help: `Duration of gRPC calls ${what}, until the status, by method.`,
    labelNames: ['grpc_service', 'grpc_method'] as const,
    registers: [registry],
  });
  // Bound up front for every method of the definitions (their series exist
  // from the start); a path outside them (none is expected) on first use.
  const methods = new Map<string, GrpcMethodSeries>();
  for (const definition of definitions) {
    for (const { path } of Object.values(definition)) methods.set(path, bindMethod(handled, handling, path));
  }
  return {
    handled,
    handling,
    method(path) {
      let series = methods.get(path);
      if (!series) {
        series = bindMethod(handled, handling, path);
        methods.set(path, series);
      }
      return series;
    },
  };
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
      const series = metrics.method(definition[key]?.path ?? `/unknown/${key}`);
      const unary = handler as handleUnaryCall<unknown, unknown>;
      const measured: handleUnaryCall<unknown, unknown> = (call, callback) => {
        const started = process.hrtime.bigint();
        const counted: sendUnaryData<unknown> = (err, ...rest) => {
          series.observe(secondsSince(started));
          series.handled(err?.code ?? status.OK);
          callback(err, ...rest);
        };
        unary(call, counted);
      };
      return [key, measured];
    }),
  );
}

function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * A grpc-js client interceptor that times and counts each call by the status
 * it ends with (a deadline is DEADLINE_EXCEEDED, a refused connection
 * UNAVAILABLE). Calls an open circuit breaker refuses never start, so they
 * are counted by the breaker's metrics, not here.
 */
export function grpcClientMetricsInterceptor(metrics: GrpcMetrics): Interceptor {
  return (options, nextCall) => {
    const series = metrics.method(options.method_definition.path);
    const started = process.hrtime.bigint();
    return new InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        next(metadata, {
          onReceiveStatus(received, nextStatus) {
            series.observe(secondsSince(started));
            series.handled(received.code);
            nextStatus(received);
          },
        });
      },
    });
  };
}
