import { NotFoundError, type CallContext } from '@inventario/platform';
import type { Operacion } from './domain/existencia';
import type { ProductoAsignaciones } from './grpc/producto-asignaciones';
import type { CommandOptions, ExistenciaStore } from './store/existencia-store';

export interface RetiroDeProducto {
  existia: boolean;
  cantidadRetirada: number;
  operacion: Operacion | null;
  /** Whether the product's bodegaId named the warehouse and was cleared (now or by an earlier attempt with the key). */
  desasignado: boolean;
}

type Asignaciones = Pick<ProductoAsignaciones, 'asignacion' | 'desasignar'>;

/**
 * Clears its bodegaId under the version read, so a product reassigned meanwhile is left alone; a key used for another
 * version means done.
 */
async function desasignar(
  productos: Asignaciones,
  productoId: number,
  bodegaId: number,
  leido: { bodegaId: number | null; version: number },
  requestId: string | undefined,
  caller: CallContext,
): Promise<{ desasignado: boolean; ejecutado: boolean }> {
  let actual: { bodegaId: number | null; version: number } | null = leido;
  for (let intento = 0; actual && actual.bodegaId === bodegaId; intento++) {
    const hecho = await productos.desasignar(productoId, actual.version, requestId, caller);
    if (hecho !== 'otra-version') return { desasignado: true, ejecutado: hecho === 'hecho' };
    if (intento >= 2) break;
    actual = await productos.asignacion(productoId, caller);
  }
  return { desasignado: false, ejecutado: false };
}

/** Whether an earlier attempt with this key cleared it: its write sent again as it was (one version below now). */
async function desasignadoAntes(
  productos: Asignaciones,
  productoId: number,
  leido: { bodegaId: number | null; version: number },
  requestId: string,
  caller: CallContext,
): Promise<boolean> {
  if (leido.bodegaId !== null || leido.version < 2) return false;
  const hecho = await productos.desasignar(productoId, leido.version - 1, requestId, caller);
  // 'hecho' cannot be: the write at that version would have failed on the current one.
  return hecho === 'repetido' || hecho === 'clave-usada';
}

/**
 * The older gateway's removal of a product from a warehouse (docs/contract.md §10.2): its level
 * written out (RETIRO) here, and its bodegaId cleared in producto-svc when it names the warehouse.
 * One call from the BFF; the two writes are this service's to make (docs/decisions.md, "Stock has
 * one home"). With a key both carry it (the second a key derived from it), so a retry after a
 * failure between them completes the second, and answers as replayed only when neither executed.
 */
export function createRetiroDeProducto({ store, productos }: { store: ExistenciaStore; productos: Asignaciones }) {
  return async function retirarProducto(
    bodegaId: number,
    productoId: number,
    caller: CallContext,
    opts: CommandOptions,
  ): Promise<RetiroDeProducto> {
    // An empty request_id is no key (AIP-155): never derive one from it.
    const clave = opts.claveIdempotencia === '' ? undefined : opts.claveIdempotencia;
    const producto = await productos.asignacion(productoId, caller);
    let retiro: { cantidadRetirada: number; operacion: Operacion } | null = null;
    let ejecutado = false;
    try {
      retiro = await store.retirar(bodegaId, productoId, caller, opts);
      ejecutado = caller.idempotency?.replayed !== true;
    } catch (err) {
      // No level here: the assignment alone may still hold it.
      if (!(err instanceof NotFoundError && err.reason === 'SIN_EXISTENCIAS')) throw err;
    }
    const quitado = producto
      ? await desasignar(productos, productoId, bodegaId, producto, clave, caller)
      : { desasignado: false, ejecutado: false };
    const antes =
      !retiro && !quitado.desasignado && producto && clave
        ? await desasignadoAntes(productos, productoId, producto, clave, caller)
        : false;
    if (!retiro && !quitado.desasignado && !antes) {
      const mensaje = producto
        ? `la bodega ${bodegaId} no tiene el producto ${productoId} (ni asignado ni con existencias)`
        : `no existe el producto ${productoId}`;
      throw NotFoundError.campos([{ campo: 'productoId', mensaje }]);
    }
    // Replayed only when nothing executed now: a retry that completes a half-done removal executes it.
    if (caller.idempotency) caller.idempotency.replayed = !(ejecutado || quitado.ejecutado);
    return {
      existia: retiro !== null,
      cantidadRetirada: retiro?.cantidadRetirada ?? 0,
      operacion: retiro?.operacion ?? null,
      desasignado: quitado.desasignado || antes,
    };
  };
}
