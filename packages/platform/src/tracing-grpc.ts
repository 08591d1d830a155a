import {
  InterceptingCall,
  ListenerBuilder,
  status,
  type Interceptor,
  type Metadata,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { context, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import {
  ATTR_RPC_METHOD,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  RPC_SYSTEM_NAME_VALUE_GRPC,
} from '@opentelemetry/semantic-conventions';
import { grpcCodeName } from './grpc/status';
import { extractTraceContext, startSpan, traceHeaders, type TraceHeaders } from './tracing-context';

/** gRPC CLIENT and SERVER spans, per the OpenTelemetry RPC conventions. */

interface RpcSpanOf {
  name: string;
  attributes: Record<string, string>;
}

/** Bounded: the paths are the generated methods. Spans copy attributes, so sharing them is safe. */
const rpcSpans = new Map<string, RpcSpanOf>();

function rpcSpanOf(path: string): RpcSpanOf {
  let known = rpcSpans.get(path);
  if (!known) {
    const name = path.replace(/^\//, '');
    known = { name, attributes: { [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_GRPC, [ATTR_RPC_METHOD]: name } };
    rpcSpans.set(path, known);
  }
  return known;
}

/** The server's own failures; NOT_FOUND and the like are the caller's error, recorded on its CLIENT span. */
const SERVER_ERROR_CODES: ReadonlySet<status> = new Set([
  status.UNKNOWN,
  status.DEADLINE_EXCEEDED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

export function endRpcSpan(span: Span, side: 'client' | 'server', code: status, details?: string): void {
  const name = grpcCodeName(code);
  span.setAttribute(ATTR_RPC_STATUS_CODE, name);
  const failed = side === 'client' ? code !== status.OK : SERVER_ERROR_CODES.has(code);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: details ? `${name}: ${details}` : name });
  span.end();
}

function injectInto(metadata: Metadata, headers: TraceHeaders): void {
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
}

/** With tracing off the span has no valid context, so the metadata keeps the caller's traceparent. */
export const grpcClientTracing: Interceptor = (options, nextCall) => {
  const { name, attributes } = rpcSpanOf(options.method_definition.path);
  const { span, ctx } = startSpan(name, { kind: SpanKind.CLIENT, attributes });
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      injectInto(metadata, traceHeaders(ctx));
      next(
        metadata,
        new ListenerBuilder()
          .withOnReceiveStatus((received, nextStatus) => {
            endRpcSpan(span, 'client', received.code, received.code === status.OK ? undefined : received.details);
            nextStatus(received);
          })
          .build(),
      );
    },
  });
};

export interface GrpcServerSpan {
  span: Span;
  /** What the call's events carry on. */
  readonly headers: TraceHeaders;
  run<T>(work: () => T): T;
}

export function startGrpcServerSpan(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'metadata' | 'getPath'>,
): GrpcServerSpan {
  const { name, attributes } = rpcSpanOf(call.getPath());
  const parent = extractTraceContext((key) => {
    const value = call.metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  });
  const { span, ctx } = startSpan(name, { kind: SpanKind.SERVER, attributes, parent });
  // Lazy: only writes need them.
  let headers: TraceHeaders | undefined;
  return {
    span,
    get headers() {
      return (headers ??= traceHeaders(ctx));
    },
    run: (work) => context.with(ctx, work),
  };
}
