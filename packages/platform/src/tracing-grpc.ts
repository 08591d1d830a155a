import { InterceptingCall, ListenerBuilder, status, type Interceptor, type Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import { context, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR_RPC_METHOD, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME, RPC_SYSTEM_NAME_VALUE_GRPC } from '@opentelemetry/semantic-conventions';
import { grpcCodeName } from './grpc/status';
import { extractTraceContext, startSpan, traceHeaders, type TraceHeaders } from './tracing-context';

/**
 * gRPC spans (OpenTelemetry RPC conventions): a CLIENT span per outgoing
 * call whose context travels in the call's metadata, and a SERVER span per
 * handled call, child of the context the metadata carries. Named
 * `inventario.v1.ProductoService/CreateProducto`.
 */

interface RpcSpanOf {
  name: string;
  attributes: Record<string, string>;
}

/**
 * Span name and rpc.* attributes by method path, computed once per path: the
 * paths are the methods of the generated service definitions, a few dozen.
 * Each span copies the attributes it is given, so sharing them is safe.
 */
const rpcSpans = new Map<string, RpcSpanOf>();

/** `/inventario.v1.ProductoService/CreateProducto` -> span name and rpc.* attributes. */
function rpcSpanOf(path: string): RpcSpanOf {
  let known = rpcSpans.get(path);
  if (!known) {
    const name = path.replace(/^\//, '');
    known = { name, attributes: { [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_GRPC, [ATTR_RPC_METHOD]: name } };
    rpcSpans.set(path, known);
  }
  return known;
}

/**
 * The codes that make a SERVER span an error (OpenTelemetry RPC conventions
 * for gRPC): the server's own failures. NOT_FOUND, INVALID_ARGUMENT,
 * ALREADY_EXISTS, FAILED_PRECONDITION... are the server doing its job with a
 * bad request, an error of the caller, whose CLIENT span records any code
 * but OK as one.
 */
const SERVER_ERROR_CODES: ReadonlySet<status> = new Set([
  status.UNKNOWN,
  status.DEADLINE_EXCEEDED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

/**
 * Records the call's final status (`OK`, `NOT_FOUND`, ...) on its span and
 * ends it; the span's status is ERROR for any code but OK on the client
 * side, and only for the server's own failures (SERVER_ERROR_CODES) on the
 * server side.
 */
export function endRpcSpan(span: Span, side: 'client' | 'server', code: status, details?: string): void {
  const name = grpcCodeName(code);
  span.setAttribute(ATTR_RPC_STATUS_CODE, name);
  const failed = side === 'client' ? code !== status.OK : SERVER_ERROR_CODES.has(code);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: details ? `${name}: ${details}` : name });
  span.end();
}

/** Sets the call's trace context in `metadata`, replacing any the caller passed on. */
function injectInto(metadata: Metadata, headers: TraceHeaders): void {
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
}

/**
 * Client interceptor (pass it in the call options): a CLIENT span, child of
 * the active context, and its `traceparent` in the metadata. With tracing
 * off the span is not recording and carries no valid context, so the
 * metadata keeps whatever traceparent the caller set.
 */
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

/** The trace context of a handled call: its SERVER span, active while the handler runs. */
export interface GrpcServerSpan {
  span: Span;
  /** `traceparent`/`tracestate` of the server span: what the call's events carry on (built on first read). */
  readonly headers: TraceHeaders;
  /** Runs `work` with the server span active. */
  run<T>(work: () => T): T;
}

/** Starts the SERVER span of `call`, child of the context in its metadata. */
export function startGrpcServerSpan(call: Pick<ServerUnaryCall<unknown, unknown>, 'metadata' | 'getPath'>): GrpcServerSpan {
  const { name, attributes } = rpcSpanOf(call.getPath());
  const parent = extractTraceContext((key) => {
    const value = call.metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  });
  const { span, ctx } = startSpan(name, { kind: SpanKind.SERVER, attributes, parent });
  // Built on first read: only writes need them (their events carry them).
  let headers: TraceHeaders | undefined;
  return {
    span,
    get headers() {
      return (headers ??= traceHeaders(ctx));
    },
    run: (work) => context.with(ctx, work),
  };
}
