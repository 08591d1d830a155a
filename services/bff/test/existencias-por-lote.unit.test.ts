/**
 * The batched level reads behind GraphQL's `Bodega.existencias` and
 * `Producto.existencias` (src/inventario/existencias-por-lote.ts): each
 * parent gets exactly its own page, whatever the batch, and the reads start
 * where the pages start. Pure logic, so the level list is an in-memory model
 * of bodega-svc's ListExistencias: ordered by (warehouse, product), keyset
 * pages with the shared level page token, at most 1000 rows a page.
 */
import fc from 'fast-check';
import { decodeNivelPageToken, encodeNivelPageToken } from '@inventario/platform';
import type { ExistenciaClient } from '../src/downstream/existencia-client';
import { createExistenciasPorLote } from '../src/inventario/existencias-por-lote';
import type { Existencia, ExistenciasPorLotePage } from '../src/inventario/model';

const caller = { usuario: 'tester' };

function level(bodegaId: number, productoId: number): Existencia {
  return {
    bodegaId,
    productoId,
    cantidad: 1,
    umbralMinimo: null,
    version: 1,
    fechaCreacion: '2026-01-01T00:00:00',
    fechaActualizacion: '2026-01-01T00:00:00',
  };
}

/**
 * ListExistencias over `levels`, recording each call's page size and the
 * rows it served. `maxRows` ends pages early, as the service's byte budget
 * may (a page may hold fewer rows than asked and still have a next one).
 */
function memoryList(levels: Existencia[], maxRows = 1000) {
  const sorted = [...levels].sort((x, y) => x.bodegaId - y.bodegaId || x.productoId - y.productoId);
  const calls: { pageSize: number; served: number }[] = [];
  const list: ExistenciaClient['list'] = (_caller, request) => {
    const after = decodeNivelPageToken(request.pageToken ?? '');
    const matching = sorted.filter(
      (l) =>
        (!request.bodegaIds?.length || request.bodegaIds.includes(l.bodegaId)) &&
        (!request.productoIds?.length || request.productoIds.includes(l.productoId)) &&
        (!after || l.bodegaId > after.bodegaId || (l.bodegaId === after.bodegaId && l.productoId > after.productoId)),
    );
    const pageSize = Math.min(request.pageSize === 0 ? 100 : request.pageSize, 1000, maxRows);
    const existencias = matching.slice(0, pageSize);
    const last = existencias.at(-1);
    calls.push({ pageSize: request.pageSize, served: existencias.length });
    return Promise.resolve({
      existencias,
      nextPageToken: matching.length > pageSize && last ? encodeNivelPageToken(last.bodegaId, last.productoId) : '',
    });
  };
  const unused = () => Promise.reject(new Error('not used'));
  const client: ExistenciaClient = {
    list,
    asignar: unused,
    retirar: unused,
    cambiarUmbral: unused,
    registrarMovimiento: unused,
    transferir: unused,
    revertir: unused,
    get: unused,
    getOperacion: unused,
    listMovimientos: unused,
    verificar: unused,
    totales: unused,
    productosDeBodega: unused,
    deProducto: unused,
  };
  return { lote: createExistenciasPorLote({ existencias: client }), calls };
}

/** What a parent's page must hold: its levels past `afterId`, in order, at most `perParent`. */
function expectedPage(
  levels: Existencia[],
  parentOf: (l: Existencia) => number,
  otherOf: (l: Existencia) => number,
  parent: number,
  page: ExistenciasPorLotePage,
) {
  return levels
    .filter((l) => parentOf(l) === parent && (page.afterId === undefined || otherOf(l) > page.afterId))
    .sort((x, y) => otherOf(x) - otherOf(y))
    .slice(0, page.perParent ?? Infinity)
    .map((l) => `${l.bodegaId}.${l.productoId}`);
}

const keysOf = (levels: Existencia[]) => levels.map((l) => `${l.bodegaId}.${l.productoId}`);

describe('existenciasDeBodegas', () => {
  it('gives each warehouse its own page, as if each were read alone, for any levels, batch, first, after and short pages', async () => {
    const pair = fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 12 }));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(pair, { selector: ([b, p]) => `${b}.${p}`, maxLength: 60 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        fc.integer({ min: 1, max: 8 }),
        async (pairs, bodegaIds, perParent, afterId, maxRows) => {
          const levels = pairs.map(([b, p]) => level(b, p));
          const { lote } = memoryList(levels, maxRows);
          const page = { perParent, afterId };
          const read = await lote.existenciasDeBodegas(caller, bodegaIds, page);
          for (const bodegaId of bodegaIds) {
            expect(keysOf(read.filter((l) => l.bodegaId === bodegaId))).toEqual(
              expectedPage(
                levels,
                (l) => l.bodegaId,
                (l) => l.productoId,
                bodegaId,
                page,
              ),
            );
          }
          expect(read.every((l) => bodegaIds.includes(l.bodegaId))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is one call for warehouses whose levels fit in a page, whatever each first', async () => {
    const levels = [level(1, 1), level(1, 2), level(1, 3), level(2, 1), level(2, 4), level(3, 5)];
    const { lote, calls } = memoryList(levels);
    const read = await lote.existenciasDeBodegas(caller, [1, 2, 3, 4], { perParent: 1 });
    expect(keysOf(read)).toEqual(['1.1', '2.1', '3.5']);
    expect(calls).toHaveLength(1);
  });

  it('reads past a warehouse with more levels than a page: the next call starts at the next warehouse after `after`', async () => {
    const big = Array.from({ length: 2500 }, (_, i) => level(1, i + 1));
    const levels = [...big, ...Array.from({ length: 5 }, (_, i) => level(2, i + 1)), level(3, 1), level(3, 3)];
    const { lote, calls } = memoryList(levels);
    const read = await lote.existenciasDeBodegas(caller, [1, 2, 3], { perParent: 2, afterId: 1 });
    expect(keysOf(read)).toEqual(['1.2', '1.3', '2.2', '2.3', '3.3']);
    // The first page is warehouse 1's; the second starts after product 1 of warehouse 2, skipping the rest of warehouse 1.
    expect(calls).toEqual([
      { pageSize: 1000, served: 1000 },
      { pageSize: 1000, served: 6 },
    ]);
  });

  it('one warehouse reads only its page: after a product, that many levels', async () => {
    const levels = Array.from({ length: 50 }, (_, i) => level(7, i + 1));
    const { lote, calls } = memoryList(levels);
    const read = await lote.existenciasDeBodegas(caller, [7], { perParent: 3, afterId: 40 });
    expect(keysOf(read)).toEqual(['7.41', '7.42', '7.43']);
    expect(calls).toEqual([{ pageSize: 3, served: 3 }]);
  });

  it('stops at maxTotal: no more rows than the node cap leaves', async () => {
    const levels = Array.from({ length: 50 }, (_, i) => level(1 + (i % 5), i + 1));
    const { lote, calls } = memoryList(levels);
    const read = await lote.existenciasDeBodegas(caller, [1, 2, 3, 4, 5], { maxTotal: 7 });
    expect(read).toHaveLength(7);
    // Several warehouses read a whole page (their levels come one warehouse after another); only what is kept stops at the cap.
    expect(calls).toEqual([{ pageSize: 1000, served: 50 }]);
  });

  it('reads nothing for a page of none', async () => {
    const { lote, calls } = memoryList([level(1, 1)]);
    expect(await lote.existenciasDeBodegas(caller, [1], { perParent: 0 })).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('existenciasDeProductos', () => {
  it('gives each product its own page in warehouse order, as if each were read alone, with short pages too', async () => {
    const pair = fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 8 }));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(pair, { selector: ([b, p]) => `${b}.${p}`, maxLength: 60 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        fc.integer({ min: 1, max: 8 }),
        async (pairs, productoIds, perParent, afterId, maxRows) => {
          const levels = pairs.map(([b, p]) => level(b, p));
          const { lote } = memoryList(levels, maxRows);
          const page = { perParent, afterId };
          const read = await lote.existenciasDeProductos(caller, productoIds, page);
          for (const productoId of productoIds) {
            expect(keysOf(read.filter((l) => l.productoId === productoId))).toEqual(
              expectedPage(
                levels,
                (l) => l.productoId,
                (l) => l.bodegaId,
                productoId,
                page,
              ),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('starts after the warehouse `after` names: no read of the warehouses before it', async () => {
    const levels = Array.from({ length: 30 }, (_, i) => level(i + 1, 9));
    const { lote, calls } = memoryList(levels);
    const read = await lote.existenciasDeProductos(caller, [9], { perParent: 2, afterId: 20 });
    expect(keysOf(read)).toEqual(['21.9', '22.9']);
    expect(calls).toEqual([{ pageSize: 2, served: 2 }]);
  });
});
