import { randomUUID } from 'node:crypto';
import { status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import { endRpcSpan, startGrpcServerSpan, type GrpcServerSpan } from '../tracing-grpc';
import { domainErrorToStatus } from './status';

/** Metadata key with the Basic-auth user of the public call (set by the BFF); ASCII only. */
export const USUARIO_METADATA_KEY = 'x-inventario-usuario';
/** The same as UTF-8 bytes, for user names outside ASCII (gRPC text metadata is ASCII). */
export const USUARIO_BIN_METADATA_KEY = 'x-inventario-usuario-bin';

/** Who made the call and its trace context, read from gRPC metadata. */
export interface CallContext {
  /** The caller's user name; `system` when the call carries none. */
  usuario: string;
  /** W3C traceparent, passed on to the event headers. */
  traceparent?: string;
  /** W3C tracestate (vendor trace data beside traceparent), passed on with it. */
  tracestate?: string;
}

export function callContext(call: ServerUnaryCall<unknown, unknown>): CallContext {
  const binary = call.metadata.get(USUARIO_BIN_METADATA_KEY)[0];
  const usuario = Buffer.isBuffer(binary) ? binary.toString('utf8') : call.metadata.get(USUARIO_METADATA_KEY)[0];
  const traceparent = call.metadata.get('traceparent')[0];
  const tracestate = call.metadata.get('tracestate')[0];
  // 255 characters (code points, as VARCHAR(255) counts), never half a surrogate pair.
  const name = typeof usuario === 'string' && usuario.trim() !== '' ? [...usuario.trim()].slice(0, 255).join('') : 'system';
  const context: CallContext = { usuario: name };
  if (typeof traceparent === 'string') {
    context.traceparent = traceparent;
    if (typeof tracestate === 'string' && tracestate !== '') context.tracestate = tracestate;
  }
  return context;
}

/**
 * The context a handler gets: the caller's user, and the trace context of
 * the call's SERVER span, not the caller's (the caller's when the span has
 * none, e.g. a traceparent the W3C propagator refused). The trace context
 * is read on demand, since only writes use it (their events carry it).
 */
function handlerContext(caller: CallContext, traced: GrpcServerSpan): CallContext {
  const trace = (): { traceparent?: string; tracestate?: string } => (traced.headers.traceparent ? traced.headers : caller);
  return {
    usuario: caller.usuario,
    get traceparent() {
      return trace().traceparent;
    },
    get tracestate() {
      return trace().tracestate;
    },
  };
}

/**
 * Adapts an async handler to grpc-js: the callback is called exactly once,
 * a DomainError becomes its status, anything else INTERNAL with a log id
 * (the message and stack stay in the log, never in the response). Each
 * call runs in its own SERVER span (tracing-grpc.ts).
 */
export function unary<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, context: CallContext) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    // The call's SERVER span is active while the handler runs; its trace
    // context, not the caller's, goes on to the events it writes.
    const traced = startGrpcServerSpan(call);
    const context = handlerContext(callContext(call), traced);
    void traced.run(() =>
      handler(call.request, context).then(
        (response) => {
          callback(null, response);
          endRpcSpan(traced.span, 'server', status.OK);
        },
        (err: unknown) => {
          if (err instanceof DomainError) {
            if (err.code === 'UNAVAILABLE') logger.warn({ method, err: err.message }, 'dependency unavailable');
            const failure = domainErrorToStatus(err);
            callback(failure);
            endRpcSpan(traced.span, 'server', failure.code ?? status.UNKNOWN, failure.details);
            return;
          }
          const logId = randomUUID();
          logger.error({ method, logId, err }, 'unexpected error');
          callback({ code: status.INTERNAL, details: `internal error (log id ${logId})` });
          endRpcSpan(traced.span, 'server', status.INTERNAL, `log id ${logId}`);
        },
      ),
    );
  };
}
