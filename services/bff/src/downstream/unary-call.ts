import type { CallOptions, Metadata, ServiceError } from '@grpc/grpc-js';
import { grpcClientMetricsInterceptor, grpcClientTracing, type GrpcMetrics } from '@inventario/platform';
import type { Caller } from '../inventario/model';
import type { Breaker } from './breaker';
import { toDomainError } from './grpc-errors';
import { callerMetadata } from './metadata';

/** Starts one unary call of a generated client with the given metadata and options. */
export type UnaryStarter<Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (err: ServiceError | null, response: Res) => void,
) => unknown;

/** Runs unary calls to one service; every outbound call of the BFF goes through one of these. */
export type UnaryCall = <Res>(caller: Caller, start: UnaryStarter<Res>) => Promise<Res>;

export interface UnaryCallOptions {
  /** e.g. `producto-svc`, named in errors and logs. */
  servicio: string;
  breaker: Breaker;
  /** Deadline of each call. */
  deadlineMs: number;
  /** Retry-After (seconds) when the service cannot answer now. */
  retryAfterSeconds: number;
  /** grpc_client_* metrics, recorded by an interceptor on each call. */
  metrics: GrpcMetrics;
}

/**
 * The one path of every downstream call: the caller's metadata, a deadline
 * (so a hung service costs at most `deadlineMs`), the service's breaker, and
 * the one mapping of failures to domain errors.
 */
export function createUnaryCall(options: UnaryCallOptions): UnaryCall {
  const context = { servicio: options.servicio, retryAfterSeconds: options.retryAfterSeconds };
  // A CLIENT span per call, its traceparent in the metadata (tracing-grpc.ts).
  const interceptors = [grpcClientTracing, grpcClientMetricsInterceptor(options.metrics)];
  return async <Res>(caller: Caller, start: UnaryStarter<Res>) => {
    try {
      return await options.breaker.run(
        () =>
          new Promise<Res>((resolve, reject) => {
            start(callerMetadata(caller), { deadline: Date.now() + options.deadlineMs, interceptors }, (err, response) =>
              err ? reject(err) : resolve(response),
            );
          }),
      );
    } catch (err) {
      throw toDomainError(err, context);
    }
  };
}
