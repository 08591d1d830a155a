import { randomUUID } from 'node:crypto';
import { Metadata, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { DomainError } from '../errors';
import { idempotencyKeyOf, type IdempotencyKey } from '../idempotency';
import type { Logger } from '../logger';
import { endRpcSpan, startGrpcServerSpan, type GrpcServerSpan } from '../tracing-grpc';
import { domainErrorToStatus } from './status';

/** Metadata key with the Basic-auth user of the public call (set by the BFF); ASCII only. */
export const USUARIO_METADATA_KEY = 'x-inventario-usuario';
/** The same as UTF-8 bytes, for user names outside ASCII (gRPC text metadata is ASCII). */
export const USUARIO_BIN_METADATA_KEY = 'x-inventario-usuario-bin';
/** Initial response metadata of a keyed write answered from its record (value `true`). */
export const REPLAYED_METADATA_KEY = 'inventario-idempotent-replayed';

/** Who made the call and its trace context, read from gRPC metadata. */
export interface CallContext {
  /** The caller's user name; `system` when the call carries none. */
  usuario: string;
  /** W3C traceparent, passed on to the event headers. */
  traceparent?: string;
  /** W3C tracestate (vendor trace data beside traceparent), passed on with it. */
  tracestate?: string;
  /** The write's idempotency key (its `request_id`), when it carries one. */
  idempotency?: IdempotencyKey;
  /**
   * Aborted (reason CallCancelledError) once nobody waits for the answer:
   * the caller cancelled, or the call's deadline passed. A write then rolls
   * back instead of committing (writeTransaction), so a caller told
   * DEADLINE_EXCEEDED finds nothing written unless its COMMIT was already
   * on its way.
   */
  signal?: AbortSignal;
}

/** Why a call's signal aborted: its caller is gone (cancelled, or past its deadline). */
export class CallCancelledError extends Error {
  constructor() {
    super('the call was cancelled or its deadline passed');
    this.name = 'CallCancelledError';
  }
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
function handlerContext(caller: CallContext, traced: GrpcServerSpan, idempotency: IdempotencyKey | undefined, signal: AbortSignal): CallContext {
  const trace = (): { traceparent?: string; tracestate?: string } => (traced.headers.traceparent ? traced.headers : caller);
  return {
    usuario: caller.usuario,
    idempotency,
    signal,
    get traceparent() {
      return trace().traceparent;
    },
    get tracestate() {
      return trace().tracestate;
    },
  };
}

/** Options of a unary handler. */
export interface UnaryOptions<Req> {
  /**
   * For writes that take an idempotency key (AIP-155 `request_id`): the
   * key and the request's canonical encoding without it (see idempotentBy).
   */
  idempotent?: (request: Req) => { requestId: string; request: Uint8Array };
}

/**
 * The UnaryOptions of a write whose request message has a `request_id`, from
 * its generated codec. `canonical`, when given, clears the fields that do not
 * change what the request does (how it is paged), so requests differing only
 * in them count as the same request under one key.
 */
export function idempotentBy<Req extends { requestId?: string | undefined }>(
  codec: { encode(message: Req): { finish(): Uint8Array } },
  canonical: (request: Req) => Req = (request) => request,
): UnaryOptions<Req> {
  return {
    idempotent: (request) => ({ requestId: request.requestId ?? '', request: codec.encode({ ...canonical(request), requestId: undefined }).finish() }),
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
  options: UnaryOptions<Req> = {},
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    // The call's SERVER span is active while the handler runs; its trace
    // context, not the caller's, goes on to the events it writes.
    const traced = startGrpcServerSpan(call);
    const caller = callContext(call);
    // grpc-js emits 'cancelled' when the client cancels or the deadline passes (and, harmlessly, after a normal answer).
    const gone = new AbortController();
    const abandon = () => gone.abort(new CallCancelledError());
    if (call.cancelled) abandon();
    else call.once('cancelled', abandon);
    const handle = async (): Promise<{ response: Res; replayed: boolean }> => {
      const keyed = options.idempotent?.(call.request);
      const key = keyed && idempotencyKeyOf(caller.usuario, method, keyed.requestId, keyed.request);
      const response = await handler(call.request, handlerContext(caller, traced, key, gone.signal));
      return { response, replayed: key?.replayed === true };
    };
    void traced.run(() =>
      handle().then(
        ({ response, replayed }) => {
          if (replayed) {
            const metadata = new Metadata();
            metadata.set(REPLAYED_METADATA_KEY, 'true');
            call.sendMetadata(metadata);
          }
          callback(null, response);
          endRpcSpan(traced.span, 'server', status.OK);
        },
        (err: unknown) => {
          if (err instanceof CallCancelledError) {
            // Nobody reads this answer; the write it was making rolled back.
            logger.info({ method }, 'call cancelled or past its deadline; its work was abandoned');
            callback({ code: status.CANCELLED, details: err.message });
            endRpcSpan(traced.span, 'server', status.CANCELLED, err.message);
            return;
          }
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
