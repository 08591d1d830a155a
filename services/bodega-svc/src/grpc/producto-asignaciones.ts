import { createHash } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  DEPENDENCIA_NO_DISPONIBLE,
  errorReasonOf,
  fieldViolationsOf,
  fijarCredencial,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  REPLAYED_METADATA_KEY,
  UnavailableError,
  USUARIO_BIN_METADATA_KEY,
  type CallContext,
} from '@inventario/platform';
import { ListProductosRequest, ProductoServiceClient, UpdateProductoRequest, type Producto } from '@inventario/proto';

/**
 * The product's assignment to a warehouse (`bodegaId`), which producto-svc owns, as the removal of
 * a product from a warehouse reads and clears it (docs/decisions.md, "Stock has one home"). Calls
 * carry the caller's user and trace, so producto-svc records and keys them as the caller's.
 */
export interface ProductoAsignaciones {
  /** Its warehouse and version; null when producto-svc does not have the product. */
  asignacion(productoId: number, caller: CallContext): Promise<{ bodegaId: number | null; version: number } | null>;
  /**
   * Clears its bodegaId if still at `version`: `hecho` (now), `repetido` (the key's record
   * answered), `otra-version` (changed meanwhile), or `clave-usada` (the key served another version:
   * an earlier attempt did it).
   */
  desasignar(
    productoId: number,
    version: number,
    requestId: string | undefined,
    caller: CallContext,
  ): Promise<'hecho' | 'repetido' | 'otra-version' | 'clave-usada'>;
  /**
   * One bounded step (at most `maxChunks` chunks of 500) of UnassignBodega for a forced delete of
   * the warehouse: under `requestId` its report covers the whole operation and a repeat replays it.
   */
  desasignarBodega(
    bodegaId: number,
    requestId: string | undefined,
    maxChunks: number,
    caller: CallContext,
  ): Promise<{ productos: Producto[]; total: number; complete: boolean }>;
  close(): void;
}

/** producto-svc's product list, read for a warehouse's product list (productos-de-bodega.ts). */
export interface ListaDeProductos {
  /** One page by id; `nextPageToken` is '' on the last. */
  listar(
    filtro: { bodegaIds?: number[]; ids?: number[]; pageSize: number; pageToken?: string },
    caller: CallContext,
  ): Promise<{ productos: Producto[]; nextPageToken: string }>;
}

/** Each call waits at most this long, well inside the BFF's deadline for the removal. */
const DEADLINE_MS = 2000;

/** A step of a warehouse's unassignment (one chunk of 500 products and their events) is given this long. */
const DESASIGNAR_BODEGA_DEADLINE_MS = 2500;

/**
 * The key of the bodegaId write a keyed removal makes, derived from the removal's key so a retry
 * replays or completes it. The BFF made this write before (same derivation), so a retry across
 * the upgrade still finds it. Hashed: within a key's 255 characters, never one a client sends.
 */
export function claveDesasignar(requestId: string): string {
  return `bff-desasignar-${createHash('sha256').update(requestId).digest('base64url')}`;
}

/** The caller's name and trace, and its signed principal forwarded (or this service's own token). */
function metadataOf(caller: CallContext, serviceToken: string | undefined): Metadata {
  const md = fijarCredencial(new Metadata(), caller, serviceToken);
  md.set(USUARIO_BIN_METADATA_KEY, Buffer.from(caller.usuario, 'utf8'));
  if (caller.traceparent) md.set('traceparent', caller.traceparent);
  if (caller.tracestate) md.set('tracestate', caller.tracestate);
  return md;
}

/** producto-svc's outage, not this service's: the BFF blames producto-svc for it (DEPENDENCIA_NO_DISPONIBLE). */
function unavailable(what: string, err: ServiceError): UnavailableError {
  return new UnavailableError(`producto-svc could not ${what}: ${status[err.code] ?? err.code}`, {
    cause: err,
    reason: DEPENDENCIA_NO_DISPONIBLE,
    datos: { servicio: 'producto-svc' },
  });
}

// One method per RPC of producto-svc that bodega-svc calls, each mapping its request to proto and the answer
// (or producto-svc's refusal) back: the length is that list of calls, the one place they start.
export function createProductoAsignaciones(
  address: string,
  serviceToken?: string,
): ProductoAsignaciones & ListaDeProductos {
  const client = new ProductoServiceClient(address, credentials.createInsecure(), {
    'grpc.max_reconnect_backoff_ms': 5000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
  return {
    asignacion: (id, caller) =>
      new Promise((resolve, reject) => {
        client.getProducto(
          { id },
          metadataOf(caller, serviceToken),
          { deadline: Date.now() + DEADLINE_MS },
          (err, res) => {
            if (!err) resolve({ bodegaId: res.producto?.bodegaId ?? null, version: res.producto?.version ?? 0 });
            else if (err.code === status.NOT_FOUND) resolve(null);
            else reject(unavailable(`read product ${id}`, err));
          },
        );
      }),
    desasignar: (id, version, requestId, caller) =>
      new Promise((resolve, reject) => {
        let replayed = false;
        const request = UpdateProductoRequest.fromPartial({
          producto: { id },
          // Named in the mask and absent: cleared.
          updateMask: ['bodega_id'],
          expectedVersion: version,
          requestId: requestId === undefined ? '' : claveDesasignar(requestId),
        });
        const call = client.updateProducto(
          request,
          metadataOf(caller, serviceToken),
          { deadline: Date.now() + DEADLINE_MS },
          (err) => {
            if (!err) resolve(replayed ? 'repetido' : 'hecho');
            else if (err.code === status.ABORTED && errorReasonOf(err) === 'VERSION_MISMATCH') resolve('otra-version');
            else if (err.code === status.INVALID_ARGUMENT && errorReasonOf(err) === 'IDEMPOTENCY_KEY_REUSED')
              resolve('clave-usada');
            // Deleted meanwhile: nothing left to unassign.
            else if (err.code === status.NOT_FOUND) resolve('otra-version');
            else reject(unavailable(`unassign product ${id}`, err));
          },
        );
        call.on('metadata', (md: Metadata) => {
          if (md.get(REPLAYED_METADATA_KEY)[0] === 'true') replayed = true;
        });
      }),
    desasignarBodega: (bodegaId, requestId, maxChunks, caller) =>
      new Promise((resolve, reject) => {
        // The removal's own key, as the BFF sent it before (a retry across the upgrade replays it).
        const request = { bodegaId, requestId: requestId ?? '', maxChunks };
        client.unassignBodega(
          request,
          metadataOf(caller, serviceToken),
          { deadline: Date.now() + DESASIGNAR_BODEGA_DEADLINE_MS },
          (err, res) => {
            // The key's refusals are the caller's to see, as when the BFF made this call.
            if (err?.code === status.ABORTED && errorReasonOf(err) === 'IDEMPOTENCY_KEY_IN_USE')
              reject(new IdempotencyKeyInUseError());
            else if (err?.code === status.INVALID_ARGUMENT && errorReasonOf(err) === 'IDEMPOTENCY_KEY_REUSED') {
              reject(new IdempotencyKeyReusedError(fieldViolationsOf(err)[0]?.campo ?? 'request_id'));
            } else if (err) reject(unavailable(`unassign the products of warehouse ${bodegaId}`, err));
            else resolve({ productos: res.productos, total: res.totalUnassigned, complete: res.complete });
          },
        );
      }),
    listar: ({ bodegaIds = [], ids = [], pageSize, pageToken = '' }, caller) =>
      new Promise((resolve, reject) => {
        client.listProductos(
          ListProductosRequest.fromPartial({ pageSize, pageToken, bodegaIds, ids }),
          metadataOf(caller, serviceToken),
          { deadline: Date.now() + DEADLINE_MS },
          (err, res) => {
            if (err) reject(unavailable('list products', err));
            else resolve({ productos: res.productos, nextPageToken: res.nextPageToken });
          },
        );
      }),
    close: () => client.close(),
  };
}
