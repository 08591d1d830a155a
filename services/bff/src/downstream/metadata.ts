import { Metadata } from '@grpc/grpc-js';
import { fijarCredencial, USUARIO_BIN_METADATA_KEY, USUARIO_METADATA_KEY } from '@inventario/platform';
import type { Caller } from '../inventario/model';

/** What gRPC text metadata may carry: printable ASCII. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The metadata of a downstream call made for `caller`: the user name (as
 * text when it is ASCII, else as UTF-8 bytes under the `-bin` key, which the
 * services prefer) so events carry `usuario`, the principal identidad-svc
 * signed for it (issue 26: services verify it offline) or else its own token, and the trace context.
 */
export function callerMetadata(caller: Caller): Metadata {
  const metadata = new Metadata();
  if (PRINTABLE_ASCII.test(caller.usuario)) metadata.set(USUARIO_METADATA_KEY, caller.usuario);
  else metadata.set(USUARIO_BIN_METADATA_KEY, Buffer.from(caller.usuario, 'utf8'));
  fijarCredencial(metadata, caller, caller.tokenDeServicio);
  if (caller.traceparent !== undefined && PRINTABLE_ASCII.test(caller.traceparent))
    metadata.set('traceparent', caller.traceparent);
  if (caller.tracestate !== undefined && PRINTABLE_ASCII.test(caller.tracestate))
    metadata.set('tracestate', caller.tracestate);
  return metadata;
}
