import {
  bodegasVisibles,
  decidir,
  type Existencia,
  type PaginaConCursor,
  type Permiso,
  type Permisos,
} from '@inventario/contract';
import { NotFoundError, PermissionDeniedError } from '@inventario/platform';
import { NoExisteError } from '../inventario/errors';
import type { ReservaClient } from '../downstream/reserva-client';
import type { Caller, InventarioApi, Movimiento } from '../inventario/model';
import type { Reserva } from '../reservas/model';

/**
 * Authorization at the gateway (docs/contract.md §12, docs/decisions.md
 * "Identities at the gateway"): ONE policy table over the use cases that
 * REST and GraphQL both call, so the two surfaces cannot drift apart. The
 * table is typed by InventarioApi: a use case without an entry does not
 * compile (deny by default, also for the next route someone adds).
 *
 * - A write needs its permission on every warehouse it touches (decidir);
 *   refused, it is 403 FORBIDDEN naming the permission and the warehouse —
 *   unless the caller may not even read that warehouse: then it is the same
 *   404 as a missing warehouse, so no answer tells that it exists.
 * - A read of one record out of scope is that 404, byte for byte.
 * - Lists keep only what the caller may see; a filter on an out-of-scope
 *   warehouse gives an empty page; a product's total sums only visible levels.
 * - A global permission (products, warehouses' records as such, the
 *   verification) refused is 403.
 *
 * A caller with every permission everywhere (an ADMIN, the shared
 * credential without identidad-svc) goes straight through: no extra lookup.
 */

/** The 404 of a missing warehouse, as bodega-svc words it (a test compares both answers byte for byte). */
export const bodegaNoExiste = (id: number) => new NotFoundError(`No existe la bodega con id ${id}`);
/** The 404 of a missing operation, as the use case words it (inventario/existencias.ts). */
const operacionNoExiste = (id: number) => NoExisteError.campo('id', `no existe la operación ${id}`);

function permisosDe(caller: Caller): Permisos {
  // Every request that reaches a use case passed authentication; anything else is a wiring error, never "allowed".
  if (!caller.principal) throw new Error('autorizacion: a use case was called without an authenticated principal');
  return caller.principal.permisos;
}

const MENSAJE_PROHIBIDO = (permiso: Permiso, bodegaId?: number) =>
  bodegaId === undefined ? `No tiene el permiso ${permiso}` : `No tiene el permiso ${permiso} en la bodega ${bodegaId}`;

/** A global permission: held (everywhere) or 403. */
function exigir(caller: Caller, permiso: Permiso): void {
  const decision = decidir(permisosDe(caller), permiso);
  if (!decision.permitido) throw new PermissionDeniedError(MENSAJE_PROHIBIDO(permiso), { permiso });
}

/** A write on `bodegas`: 404 where the caller cannot see the warehouse, 403 where it sees it but may not do this. */
function exigirEn(caller: Caller, permiso: Permiso, bodegas: readonly number[]): void {
  const permisos = permisosDe(caller);
  const decision = decidir(permisos, permiso, bodegas);
  if (decision.permitido) return;
  // "May read it": its record or its stock (a token may be scoped to reading stock alone).
  const seLee = (bodegaId: number) =>
    decidir(permisos, 'bodegas:leer', [bodegaId]).permitido ||
    decidir(permisos, 'existencias:leer', [bodegaId]).permitido;
  for (const bodegaId of bodegas) if (!seLee(bodegaId)) throw bodegaNoExiste(bodegaId);
  // Not held anywhere: the first warehouse of the command is the one to name (a UI asks for it there).
  const bodegaId = decision.bodegaId ?? bodegas[0];
  throw new PermissionDeniedError(MENSAJE_PROHIBIDO(decision.permiso, bodegaId), {
    permiso: decision.permiso,
    ...(bodegaId !== undefined ? { bodegaId } : {}),
  });
}

/** A read of one warehouse's data: visible, or the 404 of a missing warehouse. */
function verEn(caller: Caller, permiso: Permiso, bodegaId: number): void {
  if (!decidir(permisosDe(caller), permiso, [bodegaId]).permitido) throw bodegaNoExiste(bodegaId);
}

/** Whether `permiso` holds on every warehouse (no filtering needed). */
const entero = (caller: Caller, permiso: Permiso) => bodegasVisibles(permisosDe(caller), permiso) === '*';

function visible(caller: Caller, permiso: Permiso): (bodegaId: number) => boolean {
  const donde = bodegasVisibles(permisosDe(caller), permiso);
  if (donde === '*') return () => true;
  const set = new Set(donde);
  return (bodegaId) => set.has(bodegaId);
}

function filtrarPagina<T extends { bodegaId: number }>(
  pagina: PaginaConCursor<T>,
  ve: (bodegaId: number) => boolean,
): PaginaConCursor<T> {
  return { ...pagina, items: pagina.items.filter((item) => ve(item.bodegaId)) };
}

async function* primeroVer<T>(check: () => void, pages: () => AsyncIterable<T>): AsyncIterable<T> {
  check();
  yield* pages();
}

async function* filtrarPaginas<T>(pages: AsyncIterable<T[]>, keep: (item: T) => boolean): AsyncIterable<T[]> {
  for await (const page of pages) yield page.filter(keep);
}

/** The movements of an operation the caller may see whole, else the 404 of a missing operation. */
function verOperacion(caller: Caller, id: number, movimientos: readonly Movimiento[]): void {
  const ve = visible(caller, 'existencias:leer');
  if (!movimientos.every((m) => ve(m.bodegaId))) throw operacionNoExiste(id);
}

const PERMISO_MOVIMIENTO = {
  ENTRADA: 'existencias:mover',
  SALIDA: 'existencias:mover',
  AJUSTE: 'existencias:ajustar',
} as const;

/**
 * The policy table: every use case of the API, what it needs, and how its answer is narrowed. One row per use
 * case: its length is the API.
 */
export function conAutorizacion(inner: InventarioApi): InventarioApi {
  return {
    // Products are global records: reading them needs productos:leer, anywhere.
    listProductos: (caller, filter) => (exigir(caller, 'productos:leer'), inner.listProductos(caller, filter)),
    productoPages: (caller, filter) =>
      primeroVer(
        () => exigir(caller, 'productos:leer'),
        () => inner.productoPages(caller, filter),
      ),
    getProducto: (caller, id) => (exigir(caller, 'productos:leer'), inner.getProducto(caller, id)),
    productosPorIds: (caller, ids) => (exigir(caller, 'productos:leer'), inner.productosPorIds(caller, ids)),
    productosDeBodegas: (caller, bodegaIds, page) => {
      const ve = visible(caller, 'bodegas:leer');
      const visibles = bodegaIds.filter(ve);
      return visibles.length === 0 ? Promise.resolve([]) : inner.productosDeBodegas(caller, visibles, page);
    },
    createProducto: (caller, input, write) => {
      exigir(caller, 'productos:escribir');
      if (input.bodegaId != null) verEn(caller, 'bodegas:leer', input.bodegaId);
      return inner.createProducto(caller, input, write);
    },
    updateProducto: (caller, id, patch, write) => {
      exigir(caller, 'productos:escribir');
      if (patch.bodegaId != null) verEn(caller, 'bodegas:leer', patch.bodegaId);
      return inner.updateProducto(caller, id, patch, write);
    },
    deleteProducto: (caller, id, write) => (
      exigir(caller, 'productos:eliminar'),
      inner.deleteProducto(caller, id, write)
    ),

    // A warehouse record is visible to whoever may read through it.
    listBodegas: async (caller, page) => {
      const ve = visible(caller, 'bodegas:leer');
      return (await inner.listBodegas(caller, page)).filter((b) => ve(b.id));
    },
    bodegaPages: (caller) => {
      const ve = visible(caller, 'bodegas:leer');
      return filtrarPaginas(inner.bodegaPages(caller), (b) => ve(b.id));
    },
    getBodega: (caller, id) => (verEn(caller, 'bodegas:leer', id), inner.getBodega(caller, id)),
    bodegasPorIds: (caller, ids) => {
      const visibles = ids.filter(visible(caller, 'bodegas:leer'));
      return visibles.length === 0 ? Promise.resolve([]) : inner.bodegasPorIds(caller, visibles);
    },
    createBodega: (caller, input, write) => (
      exigir(caller, 'bodegas:escribir'),
      inner.createBodega(caller, input, write)
    ),
    updateBodega: (caller, id, patch, write) => (
      exigirEn(caller, 'bodegas:escribir', [id]),
      inner.updateBodega(caller, id, patch, write)
    ),
    deleteBodega: (caller, id, options, write) => (
      exigirEn(caller, 'bodegas:eliminar', [id]),
      inner.deleteBodega(caller, id, options, write)
    ),

    // Stock: every warehouse a command touches.
    productoPagesOfBodega: (caller, bodegaId) =>
      primeroVer(
        () => verEn(caller, 'bodegas:leer', bodegaId),
        () => inner.productoPagesOfBodega(caller, bodegaId),
      ),
    asignarExistencia: (caller, bodegaId, input, write) => (
      exigirEn(caller, 'existencias:ajustar', [bodegaId]),
      inner.asignarExistencia(caller, bodegaId, input, write)
    ),
    cambiarUmbralMinimo: (caller, bodegaId, productoId, umbral, write) => (
      exigirEn(caller, 'umbrales:configurar', [bodegaId]),
      inner.cambiarUmbralMinimo(caller, bodegaId, productoId, umbral, write)
    ),
    retirarProducto: (caller, bodegaId, productoId, write) => (
      exigirEn(caller, 'existencias:ajustar', [bodegaId]),
      inner.retirarProducto(caller, bodegaId, productoId, write)
    ),
    registrarMovimiento: (caller, bodegaId, input, write) => {
      // An unknown tipo is the use case's 400, so it is checked as the strictest.
      exigirEn(caller, PERMISO_MOVIMIENTO[input.tipo] ?? 'existencias:ajustar', [bodegaId]);
      return inner.registrarMovimiento(caller, bodegaId, input, write);
    },
    transferir: (caller, input, write) => (
      exigirEn(caller, 'existencias:transferir', [input.origenId, input.destinoId]),
      inner.transferir(caller, input, write)
    ),
    revertirOperacion: async (caller, operacionId, input, write) => {
      if (!entero(caller, 'operaciones:revertir')) {
        // Every warehouse in its lines (a transfer's two ends): read first, as the caller.
        const operacion = await inner.getOperacion(caller, operacionId);
        verOperacion(caller, operacionId, operacion.movimientos);
        exigirEn(caller, 'operaciones:revertir', [...new Set(operacion.movimientos.map((m) => m.bodegaId))]);
      }
      return inner.revertirOperacion(caller, operacionId, input, write);
    },
    getOperacion: async (caller, id) => {
      const operacion = await inner.getOperacion(caller, id);
      verOperacion(caller, id, operacion.movimientos);
      return operacion;
    },
    getExistencia: (caller, bodegaId, productoId) => (
      verEn(caller, 'existencias:leer', bodegaId),
      inner.getExistencia(caller, bodegaId, productoId)
    ),
    existenciasDeBodega: (caller, bodegaId) => (
      verEn(caller, 'existencias:leer', bodegaId),
      inner.existenciasDeBodega(caller, bodegaId)
    ),
    existenciasDeProducto: async (caller, productoId) => {
      const todas = await inner.existenciasDeProducto(caller, productoId);
      if (entero(caller, 'existencias:leer')) return todas;
      const ve = visible(caller, 'existencias:leer');
      const porBodega = todas.porBodega.filter((e) => ve(e.bodegaId));
      // The unlocated units belong to no warehouse: only who sees every warehouse sees them.
      const { sinUbicar: _oculto, ...resto } = todas;
      return { ...resto, porBodega, total: porBodega.reduce((sum, e) => sum + e.cantidad, 0) };
    },
    listExistencias: async (caller, filter, page) => {
      const ve = visible(caller, 'existencias:leer');
      if (filter.bodegaIds && !filter.bodegaIds.some(ve)) return { items: [], siguienteCursor: null };
      const bodegaIds = filter.bodegaIds?.filter(ve);
      return filtrarPagina<Existencia>(
        await inner.listExistencias(caller, { ...filter, ...(bodegaIds ? { bodegaIds } : {}) }, page),
        ve,
      );
    },
    listMovimientos: async (caller, filter, page) => {
      const ve = visible(caller, 'existencias:leer');
      if (filter.bodegaId !== undefined && !ve(filter.bodegaId)) return { items: [], siguienteCursor: null };
      return filtrarPagina<Movimiento>(await inner.listMovimientos(caller, filter, page), ve);
    },
    verificarExistencias: (caller) => (exigir(caller, 'consistencia:verificar'), inner.verificarExistencias(caller)),
    existenciasDeBodegas: (caller, bodegaIds, page) => {
      const visibles = bodegaIds.filter(visible(caller, 'existencias:leer'));
      return visibles.length === 0 ? Promise.resolve([]) : inner.existenciasDeBodegas(caller, visibles, page);
    },
    existenciasDeProductos: async (caller, productoIds, page) => {
      const ve = visible(caller, 'existencias:leer');
      return (await inner.existenciasDeProductos(caller, productoIds, page)).filter((e) => ve(e.bodegaId));
    },
  };
}

/** The 404 of a missing reservation, as bodega-svc words it (a reservation out of scope answers the same). */
const reservaNoExiste = (id: number) => NoExisteError.campo('id', `no existe la reserva ${id}`);

const bodegasDeReserva = (reserva: { lineas: readonly { bodegaId: number }[] }) => [
  ...new Set(reserva.lineas.map((l) => l.bodegaId)),
];

/**
 * Reservations (docs/contract.md §13) under the same rules: holding units is taking them out
 * later, so making, consuming, releasing and extending one needs `existencias:mover` on every
 * warehouse of its lines; reading one needs `existencias:leer` on every one of them, else it is
 * the 404 of a missing reservation; a list keeps only reservations the caller sees whole.
 */
export function conAutorizacionDeReservas(inner: ReservaClient): ReservaClient {
  /** The reservation, if the caller sees it whole; else the 404 of a missing one. */
  const leer = async (caller: Caller, id: number): Promise<Reserva> => {
    const reserva = await inner.get(caller, id);
    const ve = visible(caller, 'existencias:leer');
    if (!reserva.lineas.every((l) => ve(l.bodegaId))) throw reservaNoExiste(id);
    return reserva;
  };
  /** A command on an existing reservation: seen whole, and movable in each of its warehouses. */
  const mover = async (caller: Caller, id: number): Promise<void> => {
    if (entero(caller, 'existencias:mover') && entero(caller, 'existencias:leer')) return;
    exigirEn(caller, 'existencias:mover', bodegasDeReserva(await leer(caller, id)));
  };
  return {
    crear: (caller, input, write) => (
      exigirEn(caller, 'existencias:mover', bodegasDeReserva(input)),
      inner.crear(caller, input, write)
    ),
    get: (caller, id) => (entero(caller, 'existencias:leer') ? inner.get(caller, id) : leer(caller, id)),
    list: async (caller, filter) => {
      const ve = visible(caller, 'existencias:leer');
      if (filter.bodegaId !== undefined && !ve(filter.bodegaId)) return { reservas: [], nextPageToken: '' };
      const page = await inner.list(caller, filter);
      return { ...page, reservas: page.reservas.filter((r) => r.lineas.every((l) => ve(l.bodegaId))) };
    },
    consumir: async (caller, id, input, write) => (await mover(caller, id), inner.consumir(caller, id, input, write)),
    liberar: async (caller, id, write) => (await mover(caller, id), inner.liberar(caller, id, write)),
    extender: async (caller, id, expiraEn, write) => (
      await mover(caller, id),
      inner.extender(caller, id, expiraEn, write)
    ),
  };
}
