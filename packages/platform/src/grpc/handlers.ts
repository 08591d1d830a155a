import { randomUUID } from 'node:crypto';
import { status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import { endRpcSpan, startGrpcServerSpan } from '../tracing-grpc';
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
}

export function callContext(call: ServerUnaryCall<unknown, unknown>): CallContext {
  const binary = call.metadata.get(USUARIO_BIN_METADATA_KEY)[0];
  const usuario = Buffer.isBuffer(binary) ? binary.toString('utf8') : call.metadata.get(USUARIO_METADATA_KEY)[0];
  const traceparent = call.metadata.get('traceparent')[0];
  // 255 characters (code points, as VARCHAR(255) counts), never half a surrogate pair.
  const name = typeof usuario === 'string' && usuario.trim() !== '' ? [...usuario.trim()].slice(0, 255).join('') : 'system';
  return typeof traceparent === 'string' ? { usuario: name, traceparent } : { usuario: name };
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
    // The call's SERVER span is active while the handler runs; its
    // traceparent, not the caller's, goes on to the events it writes.
    const traced = startGrpcServerSpan(call);
    const { traceparent } = traced.headers;
    const context = traceparent ? { ...callContext(call), traceparent } : callContext(call);
    void traced.run(() =>
      handler(call.request, context).then(
        (response) => {
          callback(null, response);
          endRpcSpan(traced.span, status.OK);
        },
        (err: unknown) => {
          if (err instanceof DomainError) {
            if (err.code === 'UNAVAILABLE') logger.warn({ method, err: err.message }, 'dependency unavailable');
            const failure = domainErrorToStatus(err);
            callback(failure);
            endRpcSpan(traced.span, failure.code ?? status.UNKNOWN, failure.details);
            return;
          }
          const logId = randomUUID();
          logger.error({ method, logId, err }, 'unexpected error');
          callback({ code: status.INTERNAL, details: `internal error (log id ${logId})` });
          endRpcSpan(traced.span, status.INTERNAL, `log id ${logId}`);
        },
      ),
    );
  };
}
