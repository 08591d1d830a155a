/**
 * The batched level reads behind GraphQL's `Bodega.existencias` and
 * `Producto.existencias` (src/inventario/existencias-por-lote.ts): bodega-svc
 * counts each parent's page (ListExistenciasPorLote, its own tests on MariaDB:
 * services/bodega-svc/test/existencias-por-lote.test.ts); the BFF asks once
 * per page of the answer, for the whole batch, and reads no further than the
 * node cap leaves. The service here answers from memory, in pages of at most
 * `maxRows`, as its own pages may end.
 */
import type { ExistenciaClient } from '../src/downstream/existencia-client';
import { createExistenciasPorLote } from '../src/inventario/existencias-por-lote';
import type { Existencia } from '@inventario/contract';

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

type PorLoteRequest = Parameters<ExistenciaClient['porLote']>[1];

/** ListExistenciasPorLote answering `levels` (already the batch's answer) in pages, recording each request. */
function memoryPorLote(levels: Existencia[], maxRows = 1000) {
  const calls: PorLoteRequest[] = [];
  const porLote: ExistenciaClient['porLote'] = (_caller, request) => {
    calls.push(request);
    const start = request.pageToken ? Number(request.pageToken) : 0;
    const existencias = levels.slice(start, start + Math.min(request.pageSize, maxRows));
    const end = start + existencias.length;
    return Promise.resolve({ existencias, nextPageToken: end < levels.length ? String(end) : '' });
  };
  const unused = () => Promise.reject(new Error('not used'));
  const client: ExistenciaClient = {
    porLote,
    list: unused,
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

const keysOf = (levels: Existencia[]) => levels.map((l) => `${l.bodegaId}.${l.productoId}`);

test("a batch of warehouses is one call naming them all, with the page's first and after", async () => {
  const { lote, calls } = memoryPorLote([level(1, 3), level(2, 4)]);
  const read = await lote.existenciasDeBodegas(caller, [2, 1, 2], { perParent: 1, afterId: 2 });
  expect(keysOf(read)).toEqual(['1.3', '2.4']);
  expect(calls).toEqual([
    { parents: { bodegaIds: [2, 1] }, perParent: 1, afterId: 2, pageSize: 1000, pageToken: undefined },
  ]);
});

test('a batch of products names products; no first is no limit (0)', async () => {
  const { lote, calls } = memoryPorLote([level(1, 9)]);
  expect(keysOf(await lote.existenciasDeProductos(caller, [9]))).toEqual(['1.9']);
  expect(calls).toEqual([
    { parents: { productoIds: [9] }, perParent: 0, afterId: undefined, pageSize: 1000, pageToken: undefined },
  ]);
});

test("follows the service's pages to the end, short ones too", async () => {
  const levels = Array.from({ length: 7 }, (_, i) => level(1, i + 1));
  const { lote, calls } = memoryPorLote(levels, 3);
  expect(keysOf(await lote.existenciasDeBodegas(caller, [1], { perParent: 10 }))).toEqual(keysOf(levels));
  expect(calls.map((c) => c.pageToken)).toEqual([undefined, '3', '6']);
});

test('reads no further than maxTotal (the node cap): the last page asks only for what is left', async () => {
  const levels = Array.from({ length: 50 }, (_, i) => level(1 + (i % 5), i + 1));
  const { lote, calls } = memoryPorLote(levels, 4);
  const read = await lote.existenciasDeBodegas(caller, [1, 2, 3, 4, 5], { maxTotal: 7 });
  expect(read).toHaveLength(7);
  expect(calls.map((c) => c.pageSize)).toEqual([7, 3]);
});

test('a page of none reads nothing', async () => {
  const { lote, calls } = memoryPorLote([level(1, 1)]);
  expect(await lote.existenciasDeBodegas(caller, [1], { perParent: 0 })).toEqual([]);
  expect(await lote.existenciasDeProductos(caller, [1], { maxTotal: 0 })).toEqual([]);
  expect(calls).toEqual([]);
});

test('more parents than one filter takes are asked in chunks of 1000, the node cap shared by the chunks', async () => {
  const { lote, calls } = memoryPorLote([level(1, 1), level(2, 1)]);
  const ids = Array.from({ length: 1500 }, (_, i) => i + 1);
  const read = await lote.existenciasDeBodegas(caller, ids, { perParent: 1, maxTotal: 3 });
  expect(read).toHaveLength(3);
  expect(calls.map((c) => ('bodegaIds' in c.parents ? c.parents.bodegaIds.length : 0))).toEqual([1000, 500]);
  expect(calls.map((c) => c.pageSize)).toEqual([3, 1]);
});

test('an aborted request asks for nothing', async () => {
  const { lote, calls } = memoryPorLote([level(1, 1)]);
  const controller = new AbortController();
  controller.abort(new Error('gone'));
  await expect(lote.existenciasDeBodegas(caller, [1], { signal: controller.signal })).rejects.toThrow('gone');
  expect(calls).toEqual([]);
});
