import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import {
  grpcClientMetricsInterceptor,
  grpcClientTracing,
  REPLAYED_METADATA_KEY,
  type GrpcMetrics,
} from '@inventario/platform';
import type { Counter } from 'prom-client';
import type { Caller } from '../inventario/model';
import type { Breaker } from './breaker';
import { toDomainError } from './grpc-errors';
import { callerMetadata } from './metadata';

/** Starts one unary call of a generated client with the given metadata and options. */
export type UnaryStarter<Res> = (
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (err: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * Runs unary calls to one service; every outbound call of the BFF goes
 * through one of these. `onReplay` is called when the service answered a
 * keyed write from its record (REPLAYED_METADATA_KEY) instead of executing it.
 */
export type UnaryCall = <Res>(caller: Caller, start: UnaryStarter<Res>, onReplay?: () => void) => Promise<Res>;

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
  /** Safe-write outcomes by `outcome` (replayed, or the reason of a refusal); see createSafeWriteMetric. */
  safeWrites?: Counter<'outcome'>;
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
  return async <Res>(caller: Caller, start: UnaryStarter<Res>, onReplay?: () => void) => {
    let replayed = false;
    let response: Res;
    try {
      response = await options.breaker.run(
        () =>
          new Promise<Res>((resolve, reject) => {
            const call = start(
              callerMetadata(caller),
              { deadline: Math.min(Date.now() + options.deadlineMs, caller.deadline ?? Infinity), interceptors },
              (err, res) => (err ? reject(err) : resolve(res)),
            );
            // Response headers arrive before the message, so this is known when the callback runs.
            call.on('metadata', (metadata: Metadata) => {
              replayed = metadata.get(REPLAYED_METADATA_KEY)[0] === 'true';
            });
          }),
      );
    } catch (err) {
      const failure = toDomainError(err, context);
      const reason = (failure as { reason?: unknown }).reason;
      if (typeof reason === 'string') options.safeWrites?.inc({ outcome: reason.toLowerCase() });
      throw failure;
    }
    if (replayed) {
      options.safeWrites?.inc({ outcome: 'replayed' });
      onReplay?.();
    }
    return response;
  };
}
