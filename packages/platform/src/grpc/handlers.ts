import { randomUUID } from 'node:crypto';
import { Metadata, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { Principal } from '@inventario/contract';
import { DomainError } from '../errors';
import { idempotencyKeyOf, type IdempotencyKey } from '../idempotency';
import type { Logger } from '../logger';
import { endRpcSpan, startGrpcServerSpan, type GrpcServerSpan } from '../tracing-grpc';
import { domainErrorToStatus } from './status';

/** The Basic-auth user of the public call (set by the BFF); ASCII only. */
export const USUARIO_METADATA_KEY = 'x-inventario-usuario';
/** UTF-8, for user names outside ASCII. */
export const USUARIO_BIN_METADATA_KEY = 'x-inventario-usuario-bin';
/** Initial metadata (`true`) of a keyed write answered from its record. */
export const REPLAYED_METADATA_KEY = 'inventario-idempotent-replayed';

export interface CallContext {
  /** `system` when the call carries none. */
  usuario: string;
  traceparent?: string;
  tracestate?: string;
  idempotency?: IdempotencyKey;
  /** Aborted (CallCancelledError) once the caller cancelled or its deadline passed; a write then rolls back. */
  signal?: AbortSignal;
  /** When the caller's deadline passes (epoch ms); absent when it set none. Calls made for it end before. */
  deadline?: number;
  /** The request metadata, for a handler that authenticates its caller itself (identidad-svc's signed principal). */
  metadata?: Metadata;
  /**
   * The verified principal of the call (docs/contract.md §12.9), when it carried one: its rights are checked again
   * where the data is (bodega-svc's stock commands and lists). Absent: a legacy caller (REQUIRE_PRINCIPAL=false) or
   * the service's own work (`system`).
   */
  principal?: Principal;
  /** The signed form of `principal`, which calls made on its behalf forward (x-inventario-principal). */
  principalFirmado?: string;
}

/** The principal the server's check verified for a call (set before the handler runs; see service-server.ts). */
const principales = new WeakMap<object, { principal: Principal; firmado: string }>();

/** Records the verified principal of `call` for its handler's CallContext. */
export function fijarPrincipal(call: object, verificado: { principal: Principal; firmado: string }): void {
  principales.set(call, verificado);
}

export class CallCancelledError extends Error {
  constructor() {
    super('the call was cancelled or its deadline passed');
    this.name = 'CallCancelledError';
  }
}

/** 255 characters (code points, as VARCHAR(255) counts), never half a surrogate pair; `system` when blank. */
function usuarioDeCabecera(usuario: unknown): string {
  const name = typeof usuario === 'string' ? usuario.trim() : '';
  if (name === '') return 'system';
  // At most 255 UTF-16 units is at most 255 code points: nothing to cut.
  return name.length <= 255 ? name : [...name].slice(0, 255).join('');
}

export function callContext(call: ServerUnaryCall<unknown, unknown>): CallContext {
  const binary = call.metadata.get(USUARIO_BIN_METADATA_KEY)[0];
  const usuario = Buffer.isBuffer(binary) ? binary.toString('utf8') : call.metadata.get(USUARIO_METADATA_KEY)[0];
  const traceparent = call.metadata.get('traceparent')[0];
  const tracestate = call.metadata.get('tracestate')[0];
  const verificado = principales.get(call);
  // A verified principal names the caller; the plain header is only trusted without one (§7.4).
  const context: CallContext = verificado
    ? { usuario: verificado.principal.usuario, principal: verificado.principal, principalFirmado: verificado.firmado }
    : { usuario: usuarioDeCabecera(usuario) };
  if (typeof traceparent === 'string') {
    context.traceparent = traceparent;
    if (typeof tracestate === 'string' && tracestate !== '') context.tracestate = tracestate;
  }
  return context;
}

/**
 * The trace context is the SERVER span's (the caller's when the span has none), read on demand since only writes'
 * events carry it.
 */
function handlerContext(
  caller: CallContext,
  traced: GrpcServerSpan,
  idempotency: IdempotencyKey | undefined,
  signal: AbortSignal,
  metadata: Metadata,
  deadline: number,
): CallContext {
  const trace = (): { traceparent?: string; tracestate?: string } =>
    traced.headers.traceparent ? traced.headers : caller;
  return {
    usuario: caller.usuario,
    ...(caller.principal ? { principal: caller.principal, principalFirmado: caller.principalFirmado } : {}),
    idempotency,
    signal,
    metadata,
    ...(Number.isFinite(deadline) ? { deadline } : {}),
    get traceparent() {
      return trace().traceparent;
    },
    get tracestate() {
      return trace().tracestate;
    },
  };
}

export interface UnaryOptions<Req> {
  /**
   * For writes keyed by AIP-155 `request_id`: the key, the canonical request encoding without it, and
   * whose key it is (`scope`; absent: the user name of the metadata). May throw a DomainError.
   */
  idempotent?: (request: Req, metadata: Metadata) => { requestId: string; request: Uint8Array; scope?: string };
}

/** The request encoding of a call without a key: never read. */
const SIN_CLAVE = new Uint8Array(0);

/**
 * `canonical` clears fields that do not change what the request does (paging), so those count as one request under a
 * key.
 * `scopeOf` names whose keys they are (identidad-svc: the verified principal's id), so one caller's key never replays
 * another's.
 */
export function idempotentBy<Req extends { requestId?: string | undefined }>(
  codec: { encode(message: Req): { finish(): Uint8Array } },
  canonical: (request: Req) => Req = (request) => request,
  scopeOf?: (metadata: Metadata) => string,
): UnaryOptions<Req> {
  return {
    idempotent: (request, metadata) =>
      // Without a key nothing is recorded or compared (idempotencyKeyOf), so no encoding is made for it.
      request.requestId
        ? {
            requestId: request.requestId,
            request: codec.encode({ ...canonical(request), requestId: undefined }).finish(),
            scope: scopeOf ? scopeOf(metadata) : undefined,
          }
        : { requestId: '', request: SIN_CLAVE },
  };
}

/** The call's deadline in epoch ms, Infinity when it has none. */
function deadlineOf(call: ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/**
 * The callback is called exactly once: a DomainError becomes its status,
 * anything else INTERNAL with a log id (message and stack stay in the log).
 */
export function unary<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, context: CallContext) => Promise<Res>,
  options: UnaryOptions<Req> = {},
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    const traced = startGrpcServerSpan(call);
    const caller = callContext(call);
    // grpc-js also emits 'cancelled' after a normal answer: once answered, the work is over and nothing is
    // aborted, so no error (and its stack) is built and no abort event dispatched per call (issue 23).
    const gone = new AbortController();
    let answered = false;
    const abandon = () => {
      if (!answered) gone.abort(new CallCancelledError());
    };
    const answer = () => {
      answered = true;
      call.removeListener('cancelled', abandon);
    };
    if (call.cancelled) abandon();
    else call.once('cancelled', abandon);
    const handle = async (): Promise<{ response: Res; replayed: boolean }> => {
      const keyed = options.idempotent?.(call.request, call.metadata);
      // Keys are a principal's own (issue 26): another principal's repeat of a key runs as a new request.
      const scope = keyed?.scope ?? (caller.principal ? `principal:${caller.principal.id}` : caller.usuario);
      const key = keyed && idempotencyKeyOf(scope, method, keyed.requestId, keyed.request);
      const response = await handler(
        call.request,
        handlerContext(caller, traced, key, gone.signal, call.metadata, deadlineOf(call)),
      );
      return { response, replayed: key?.replayed === true };
    };
    void traced.run(() =>
      handle().then(
        ({ response, replayed }) => {
          answer();
          if (replayed) {
            const metadata = new Metadata();
            metadata.set(REPLAYED_METADATA_KEY, 'true');
            call.sendMetadata(metadata);
          }
          callback(null, response);
          endRpcSpan(traced.span, 'server', status.OK);
        },
        (err: unknown) => {
          answer();
          if (err instanceof CallCancelledError) {
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
