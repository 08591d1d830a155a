/**
 * Issue 21, item 10: a failed reversal invalidates only what it may have
 * committed. Before the fix any failed `revertir`, even a 404 for an
 * operation that never existed, emptied the whole read cache (51 entries to
 * 0). Now a refusal (nothing written) keeps every entry; a failure that may
 * have committed (a deadline) touches the warehouses of the operation it
 * reverses, and only when that operation cannot be read does it drop every
 * cached warehouse. Since issue 23 a reversal also moves its products'
 * cantidadEnStock (their ledger total, docs/contract.md §10.6): the products of
 * its lines are touched with the warehouses (every product, when the operation
 * cannot be read). The lines here are all of product 1.
 */
import { NotFoundError, FailedPreconditionError } from '@inventario/platform';
import { cachingClients } from '../src/cache/cached-downstream';
import { ReadCache, type Versioned } from '../src/cache/read-cache';
import { WriteAcks } from '../src/cache/write-acks';
import type { BodegaClient } from '../src/downstream/bodega-client';
import type { ExistenciaClient } from '../src/downstream/existencia-client';
import type { ProductoClient } from '../src/downstream/producto-client';
import { DeadlineExceededError } from '../src/inventario/errors';
import type { Movimiento, Operacion } from '../src/inventario/model';

const PRODUCTOS = 40;
const BODEGAS = 11;
const CALLER = { usuario: 'admin' };

/** The cache: 40 products and 11 warehouses, 51 entries. */
function fullCache(): ReadCache {
  const cache = new ReadCache({ maxEntries: 1000, ttlMs: 60_000 });
  expect(cache.resume(cache.epoch)).toBe(true);
  for (let id = 1; id <= PRODUCTOS; id++) cache.fill('producto', producto(id), cache.ticket());
  for (let id = 1; id <= BODEGAS; id++) cache.fill('bodega', bodega(id), cache.ticket());
  expect(cache.size).toBe(PRODUCTOS + BODEGAS);
  return cache;
}

const producto = (id: number) => ({ id, version: 1, bodegaId: null }) as Versioned;
const bodega = (id: number, ocupacion = 0) => ({ id, version: 1, ocupacion }) as Versioned;
const linea = (bodegaId: number): Movimiento => ({ bodegaId, productoId: 1 }) as Movimiento;
const operacion = (id: number, bodegaIds: number[]): Operacion =>
  ({ id, movimientos: bodegaIds.map(linea) }) as Operacion;

/** A stock client whose reversal fails with `failure`, and whose operation 7 moved stock between warehouses 2 and 3. */
function existenciasFailingWith(failure: Error, options: { operacionReadable?: boolean } = {}): ExistenciaClient {
  return {
    revertir: () => Promise.reject(failure),
    getOperacion: (_caller: unknown, id: number) =>
      options.operacionReadable === false
        ? Promise.reject(new DeadlineExceededError('bodega-svc'))
        : Promise.resolve(operacion(id, [2, 3])),
  } as unknown as ExistenciaClient;
}

function clients(existencias: ExistenciaClient, cache: ReadCache) {
  return cachingClients(
    { productos: {} as ProductoClient, bodegas: {} as BodegaClient, existencias },
    cache,
    new WriteAcks(),
  );
}

const cached = (cache: ReadCache, kind: 'producto' | 'bodega', count: number) =>
  Array.from({ length: count }, (_, i) => i + 1).filter((id) => cache.get(kind, id) !== undefined);

describe('a failed reversal and the read cache', () => {
  test.each([
    ['a 404 for an operation that does not exist', new NotFoundError('no existe la operación 999')],
    [
      'a reversal already done (409)',
      new FailedPreconditionError('ya revertida', { reason: 'OPERACION_YA_REVERTIDA' }),
    ],
  ])('%s keeps all 51 entries', async (_case, failure) => {
    const cache = fullCache();
    await expect(clients(existenciasFailingWith(failure), cache).existencias.revertir(CALLER, 999, null)).rejects.toBe(
      failure,
    );
    expect(cache.size).toBe(PRODUCTOS + BODEGAS);
  });

  test('a deadline (it may have committed) drops only the warehouses and the product of the reversed operation', async () => {
    const cache = fullCache();
    const failure = new DeadlineExceededError('bodega-svc');
    await expect(clients(existenciasFailingWith(failure), cache).existencias.revertir(CALLER, 7, null)).rejects.toBe(
      failure,
    );
    expect(cache.size).toBe(PRODUCTOS + BODEGAS - 3);
    expect(cached(cache, 'bodega', BODEGAS)).toEqual([1, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(cached(cache, 'producto', PRODUCTOS)).toHaveLength(PRODUCTOS - 1);
    expect(cache.get('producto', 1)).toBeUndefined();
  });

  test('a fill of a touched warehouse that began before the failure is refused', async () => {
    const cache = fullCache();
    const ticket = cache.ticket();
    await expect(
      clients(existenciasFailingWith(new DeadlineExceededError('bodega-svc')), cache).existencias.revertir(
        CALLER,
        7,
        null,
      ),
    ).rejects.toThrow();
    expect(cache.fill('bodega', bodega(2, 5), ticket)).toBe(false);
  });

  test('when the reversed operation cannot be read either, every warehouse and every product is dropped', async () => {
    const cache = fullCache();
    const failure = new DeadlineExceededError('bodega-svc');
    await expect(
      clients(existenciasFailingWith(failure, { operacionReadable: false }), cache).existencias.revertir(
        CALLER,
        7,
        null,
      ),
    ).rejects.toBe(failure);
    expect(cached(cache, 'bodega', BODEGAS)).toEqual([]);
    expect(cached(cache, 'producto', PRODUCTOS)).toEqual([]);
  });

  test('a reversal that succeeds touches the warehouses and the products its lines name', async () => {
    const cache = fullCache();
    const existencias = { revertir: () => Promise.resolve(operacion(8, [5])) } as unknown as ExistenciaClient;
    await clients(existencias, cache).existencias.revertir(CALLER, 7, null);
    expect(cached(cache, 'bodega', BODEGAS)).toEqual([1, 2, 3, 4, 6, 7, 8, 9, 10, 11]);
    expect(cache.size).toBe(PRODUCTOS + BODEGAS - 2);
    expect(cache.get('producto', 1)).toBeUndefined();
  });
});
