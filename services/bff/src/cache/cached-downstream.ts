import {
  AlreadyExistsError,
  FailedPreconditionError,
  IdempotencyKeyInUseError,
  InvalidArgumentError,
  NotFoundError,
  VersionMismatchError,
} from '@inventario/platform';
import type { BodegaClient } from '../downstream/bodega-client';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import type { Bodega, Producto } from '@inventario/contract';
import type { Caller, InventarioApi, Operacion } from '../inventario/model';
import type { CachedKind, ReadCache, Versioned } from './read-cache';
import type { WriteAcks } from './write-acks';
import { SIN_UBICAR } from '../inventario/totales-del-libro';

interface Clients {
  productos: ProductoClient;
  bodegas: BodegaClient;
  existencias: ExistenciaClient;
}

/** One read by id through the cache: a hit, or the service's answer inserted under a ticket taken before asking. */
async function readThrough<T extends Versioned>(
  cache: ReadCache,
  kind: CachedKind,
  id: number,
  read: () => Promise<T>,
): Promise<T> {
  const hit = cache.get<T>(kind, id);
  if (hit) return hit;
  const ticket = cache.ticket();
  const record = await read();
  cache.fill(kind, record, ticket);
  return record;
}

/** Several by id: the hits, and the misses read in one call; in id order. */
async function readManyThrough<T extends Versioned>(
  cache: ReadCache,
  kind: CachedKind,
  ids: readonly number[],
  read: (ids: number[]) => Promise<T[]>,
): Promise<T[]> {
  const found: T[] = [];
  const missing: number[] = [];
  for (const id of new Set(ids)) {
    const hit = cache.get<T>(kind, id);
    if (hit) found.push(hit);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const ticket = cache.ticket();
    for (const record of await read(missing)) {
      cache.fill(kind, record, ticket);
      found.push(record);
    }
  }
  return found.sort((x, y) => x.id - y.id);
}

/**
 * The service's refusals: it judged the request and wrote nothing (a missing operation, one already
 * reversed, a version or key conflict). Any other failure may have committed.
 */
function mayHaveCommitted(err: unknown): boolean {
  const refusals = [
    InvalidArgumentError,
    NotFoundError,
    AlreadyExistsError,
    FailedPreconditionError,
    VersionMismatchError,
    IdempotencyKeyInUseError,
  ];
  return !refusals.some((refusal) => err instanceof refusal);
}

/**
 * Runs a write, then, answered or not (a failed call may still have
 * committed), touches what it may have changed before the caller hears
 * back: read-your-writes on this replica. `after` gets the answer, or
 * undefined on failure.
 */
async function writing<T>(work: () => Promise<T>, after: (result: T | undefined) => void): Promise<T> {
  let result: T | undefined;
  try {
    result = await work();
    return result;
  } finally {
    after(result);
  }
}

/**
 * The downstream clients with the read cache behind every write: the one
 * place REST, GraphQL and the use cases' own writes (a forced delete's
 * unassignments; a level removal, whose product's bodegaId bodega-svc has
 * producto-svc clear) all go through. Their reads stay uncached: the use cases' own checks before a
 * write (If-Match, a warehouse's existence, a product's bodegaId) read the
 * services, as without the cache. One entry per write of the clients, each touching what it changes: its length
 * is the list of writes.
 */
export function cachingClients(
  { productos, bodegas, existencias }: Clients,
  cache: ReadCache,
  acks: WriteAcks,
): Clients {
  const touchBodegas = (ids: Iterable<number>) => {
    for (const id of ids) cache.touch('bodega', id, 'write');
  };
  /**
   * A stock write's warehouses: their `ocupacion` moved (docs/contract.md §10.1); and its products:
   * their cantidadEnStock is their ledger total (§10.6). The unlocated level (bodegaId 0) is no warehouse.
   */
  const stockWrite =
    (named: number[], productos: number[] = []) =>
    (operacion: Operacion | null | undefined) => {
      touchBodegas(named);
      for (const id of productos) cache.touch('producto', id, 'write');
      if (operacion) {
        touchBodegas(operacion.movimientos.map((line) => line.bodegaId).filter((id) => id !== SIN_UBICAR));
        for (const line of operacion.movimientos) cache.touch('producto', line.productoId, 'write');
        acks.record(`operacion:${operacion.id}`);
      }
    };

  /**
   * A reversal that failed in a way that may still have committed (a deadline, a lost connection)
   * wrote lines on the warehouses of the operation it reverses, and on no others: those are touched.
   * When that operation cannot be read either, every cached warehouse and product is dropped (a
   * reversal moves products' ledger totals, their cantidadEnStock).
   */
  async function touchReversalOf(caller: Caller, operacionId: number): Promise<void> {
    try {
      const original = await existencias.getOperacion(caller, operacionId);
      touchBodegas(original.movimientos.map((line) => line.bodegaId).filter((id) => id !== SIN_UBICAR));
      for (const line of original.movimientos) cache.touch('producto', line.productoId, 'write');
    } catch {
      cache.invalidateKind('bodega', 'write');
      cache.invalidateKind('producto', 'write');
    }
  }

  return {
    productos: {
      ...productos,
      create: (caller, input, write) =>
        writing(
          () => productos.create(caller, input, write),
          (p) => {
            if (!p) return;
            cache.touch('producto', p.id, 'write');
            acks.record(`producto:${p.id}:${p.version}`);
          },
        ),
      update: (caller, id, patch, write) =>
        writing(
          () => productos.update(caller, id, patch, write),
          (p) => {
            cache.touch('producto', id, 'write');
            if (p) acks.record(`producto:${id}:${p.version}`);
          },
        ),
      async delete(caller, id, write) {
        try {
          await productos.delete(caller, id, write);
        } catch (err) {
          cache.touch('producto', id, 'write');
          throw err;
        }
        cache.touch('producto', id, 'write', { deleted: true });
        acks.record(`producto:${id}:x`);
      },
      unassignBodega: (caller, bodegaId, write, maxChunks) =>
        writing(
          () => productos.unassignBodega(caller, bodegaId, write, maxChunks),
          (result) => {
            // Fills of its products that began before now are refused through the warehouse's touch.
            cache.touch('bodega', bodegaId, 'write');
            cache.touchProductosOf(bodegaId, 'write');
            for (const p of result?.productos ?? []) cache.touch('producto', p.id, 'write');
          },
        ),
    },
    bodegas: {
      ...bodegas,
      create: (caller, input, write) =>
        writing(
          () => bodegas.create(caller, input, write),
          (b) => {
            if (!b) return;
            cache.touch('bodega', b.id, 'write');
            acks.record(`bodega:${b.id}:${b.version}`);
          },
        ),
      update: (caller, id, patch, write) =>
        writing(
          () => bodegas.update(caller, id, patch, write),
          (b) => {
            cache.touch('bodega', id, 'write');
            if (b) acks.record(`bodega:${id}:${b.version}`);
          },
        ),
      async delete(caller, id, write, options) {
        try {
          const retiradas = await bodegas.delete(caller, id, write, options);
          // A forced delete's products, unassigned by bodega-svc through producto-svc.
          for (const p of retiradas.desasignados.productos) cache.touch('producto', p.id, 'write');
          cache.touch('bodega', id, 'write', { deleted: true });
          acks.record(`bodega:${id}:x`);
          return retiradas;
        } catch (err) {
          cache.touch('bodega', id, 'write');
          throw err;
        } finally {
          cache.touchProductosOf(id, 'write');
        }
      },
    },
    existencias: {
      ...existencias,
      asignar: (caller, request, write) =>
        writing(
          () => existencias.asignar(caller, request, write),
          (r) => stockWrite([request.bodegaId], [request.productoId])(r?.operacion),
        ),
      retirar: (caller, bodegaId, productoId, write) =>
        writing(
          () => existencias.retirar(caller, bodegaId, productoId, write),
          (r) => {
            stockWrite([bodegaId], [productoId])(r?.operacion);
            // bodega-svc may have had producto-svc clear the product's bodegaId (answered or not).
            cache.touch('producto', productoId, 'write');
          },
        ),
      registrarMovimiento: (caller, bodegaId, input, write) =>
        writing(
          () => existencias.registrarMovimiento(caller, bodegaId, input, write),
          stockWrite([bodegaId], [input.productoId]),
        ),
      transferir: (caller, input, write) =>
        writing(
          () => existencias.transferir(caller, input, write),
          stockWrite([input.origenId, input.destinoId], [input.productoId]),
        ),
      async revertir(caller, operacionId, comentario, write) {
        let operacion: Operacion;
        try {
          operacion = await existencias.revertir(caller, operacionId, comentario, write);
        } catch (err) {
          if (mayHaveCommitted(err)) await touchReversalOf(caller, operacionId);
          throw err;
        }
        stockWrite([])(operacion);
        return operacion;
      },
    },
  };
}

/**
 * The use cases with the public reads by id (REST and GraphQL `producto(id)`,
 * `bodega(id)`, and GraphQL's DataLoader batches) answered from the cache
 * where it can.
 */
export function cachingInventario(inventario: InventarioApi, cache: ReadCache): InventarioApi {
  return {
    ...inventario,
    getProducto: (caller, id) => readThrough<Producto>(cache, 'producto', id, () => inventario.getProducto(caller, id)),
    getBodega: (caller, id) => readThrough<Bodega>(cache, 'bodega', id, () => inventario.getBodega(caller, id)),
    productosPorIds: (caller, ids) =>
      readManyThrough<Producto>(cache, 'producto', ids, (missing) => inventario.productosPorIds(caller, missing)),
    bodegasPorIds: (caller, ids) =>
      readManyThrough<Bodega>(cache, 'bodega', ids, (missing) => inventario.bodegasPorIds(caller, missing)),
  };
}
