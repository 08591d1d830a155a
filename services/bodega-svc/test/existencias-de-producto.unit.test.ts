/**
 * GetExistenciasDeProducto (issue 23: the BFF made three calls for it) over in-memory fakes: the
 * levels by warehouse, their sum beside the unlocated units, the scopes and the product's 404.
 */
import type { Permiso } from '@inventario/contract';
import { NotFoundError, type CallContext } from '@inventario/platform';
import type { Existencia } from '../src/domain/existencia';
import { createExistenciasDeProducto } from '../src/grpc/existencias-de-producto';
import type { ExistenciaStore } from '../src/store/existencia-store';

const caller: CallContext = { usuario: 'ana' };
const FECHA = new Date('2026-01-01T00:00:00Z');
const SIN_UBICAR = 0;

const nivel = (bodegaId: number, productoId: number, cantidad: number): Existencia => ({
  bodegaId,
  productoId,
  cantidad,
  umbralMinimo: null,
  version: 1,
  fechaCreacion: FECHA,
  fechaActualizacion: FECHA,
});

/** The store's list as its SQL reads it: (warehouse, product) order, no unlocated level without a warehouse filter. */
function fakeStore(levels: Existencia[], pageSize: number): Pick<ExistenciaStore, 'list' | 'totalesDeProductos'> {
  return {
    list: ({ after, bodegaIds, productoIds }) => {
      const matching = levels
        .filter((l) => (bodegaIds.length > 0 ? bodegaIds.includes(l.bodegaId) : l.bodegaId !== SIN_UBICAR))
        .filter((l) => productoIds.includes(l.productoId))
        .filter(
          (l) =>
            !after || l.bodegaId > after.bodegaId || (l.bodegaId === after.bodegaId && l.productoId > after.productoId),
        )
        .sort((x, y) => x.bodegaId - y.bodegaId || x.productoId - y.productoId);
      return Promise.resolve({ existencias: matching.slice(0, pageSize), hasMore: matching.length > pageSize });
    },
    totalesDeProductos: (ids) =>
      Promise.resolve(
        ids.map((productoId) => {
          const mine = levels.filter((l) => l.productoId === productoId);
          const sinUbicar = mine.filter((l) => l.bodegaId === SIN_UBICAR).reduce((sum, l) => sum + l.cantidad, 0);
          return { productoId, total: mine.reduce((sum, l) => sum + l.cantidad, 0), sinUbicar };
        }),
      ),
  };
}

const existe = (ids: number[]) => ({
  asignacion: (id: number) => Promise.resolve(ids.includes(id) ? { bodegaId: null, version: 1 } : null),
});

const levels = [nivel(SIN_UBICAR, 7, 4), nivel(2, 7, 5), nivel(1, 7, 6), nivel(3, 7, 0), nivel(1, 8, 9)];

test('the levels by warehouse (every page of them), their sum, and the unlocated units beside it', async () => {
  // Pages of one level: the read follows them to the end.
  const { leer } = createExistenciasDeProducto({ store: fakeStore(levels, 1), productos: existe([7]) });
  const res = await leer(7, caller);
  expect(res.porBodega.map((l) => [l.bodegaId, l.cantidad])).toEqual([
    [1, 6],
    [2, 5],
    [3, 0],
  ]);
  expect(res.total).toBe(11);
  expect(res.sinUbicar).toBe(4);
});

test('a scoped caller gets only the levels of the warehouses it may read stock of', async () => {
  const permisos = new Map<Permiso, '*' | ReadonlySet<number>>([['existencias:leer', new Set([2])]]);
  const scoped = { ...caller, principal: { permisos } } as unknown as CallContext;
  const { leer } = createExistenciasDeProducto({ store: fakeStore(levels, 100), productos: existe([7]) });
  const res = await leer(7, scoped);
  expect(res.porBodega.map((l) => l.bodegaId)).toEqual([2]);
  expect(res.total).toBe(5);
});

test('a product producto-svc does not have is NOT_FOUND naming productoId, levels or not', async () => {
  const { leer } = createExistenciasDeProducto({ store: fakeStore(levels, 100), productos: existe([]) });
  const err: unknown = await leer(7, caller).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(NotFoundError);
  expect((err as NotFoundError).violations).toEqual([{ campo: 'productoId', mensaje: 'no existe el producto 7' }]);
});
