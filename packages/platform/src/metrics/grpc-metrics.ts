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

/** gRPC RED metrics named as go-grpc-prometheus names them, which existing dashboards and alerts expect. */

type HandledLabels = 'grpc_service' | 'grpc_method' | 'grpc_code';
type MethodLabels = 'grpc_service' | 'grpc_method';

/** Bound once per method: no label parsing or label objects per call. */
export interface GrpcMethodSeries {
  observe(seconds: number): void;
  handled(code: number): void;
}

export interface GrpcMetrics {
  handled: Counter<HandledLabels>;
  handling: Histogram<MethodLabels>;
  method(path: string): GrpcMethodSeries;
}

/** Their series exist from the start, so a ratio or an alert sees 0 rather than "no data". */
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

function methodLabels(path: string): Record<MethodLabels, string> {
  const [, service = '', method = ''] = /^\/([^/]*)\/([^/]*)$/.exec(path) ?? [];
  return { grpc_service: service, grpc_method: method };
}

function bindMethod(
  handled: Counter<HandledLabels>,
  handling: Histogram<MethodLabels>,
  path: string,
): GrpcMethodSeries {
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
  handling.zero(labels);
  for (const code of KNOWN_CODES) counter(code).inc(0);
  return {
    observe: (seconds) => duration.observe(seconds),
    handled: (code) => counter(code).inc(),
  };
}

function createGrpcMetrics(
  registry: Registry,
  side: 'server' | 'client',
  definitions: readonly ServiceDefinition[],
): GrpcMetrics {
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

export function createGrpcServerMetrics(registry: Registry, definitions: readonly ServiceDefinition[]): GrpcMetrics {
  return createGrpcMetrics(registry, 'server', definitions);
}

export function createGrpcClientMetrics(registry: Registry, definitions: readonly ServiceDefinition[]): GrpcMetrics {
  return createGrpcMetrics(registry, 'client', definitions);
}

/**
 * Counts every call by the status it ends with, whatever answered it (the handler or a gate such as "still migrating").
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

/** Calls an open circuit breaker refuses never start: the breaker's metrics count them, not this. */
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
