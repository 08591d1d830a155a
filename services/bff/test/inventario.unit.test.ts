/**
 * createInventario over in-memory fakes of the two downstream clients: the
 * paging it does on behalf of "the whole list", and the order of its
 * cross-service checks (which a real stack cannot observe).
 */
import {
  decodePageToken,
  encodePageToken,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
} from '@inventario/platform';
import type { BodegaClient } from '../src/downstream/bodega-client';
import type { ExistenciaClient } from '../src/downstream/existencia-client';
import type { ProductoClient, ProductoPageRequest, UnassignResult } from '../src/downstream/producto-client';
import { BodegaConProductosError, ServicioNoDisponibleError } from '../src/inventario/errors';
import { createInventario } from '../src/inventario/inventario';
import type { Bodega, Existencia, Producto } from '@inventario/contract';
import type { Caller } from '../src/inventario/model';

const caller: Caller = { usuario: 'ana' };
const FECHA = '2026-01-01T00:00:00';

function producto(id: number, bodegaId: number | null = null): Producto {
  return {
    id,
    nombre: `P${id}`,
    descripcion: null,
    precio: '1.00',
    cantidadEnStock: 1,
    bodegaId,
    fechaCreacion: FECHA,
    fechaActualizacion: FECHA,
    version: 1,
  };
}

function bodega(id: number): Bodega {
  return {
    id,
    nombre: `B${id}`,
    ubicacion: null,
    capacidad: 1,
    ocupacion: 0,
    fechaCreacion: FECHA,
    fechaActualizacion: FECHA,
    version: 1,
  };
}

/** Products per chunk of the fake UnassignBodega. */
const FAKE_CHUNK = 100;

/** A producto-svc that pages like the real one (keyset by position, `skip` before the page), logging each call. */
function fakeProductos(all: Producto[], maxPage = 1000, log: string[] = []) {
  const list = (request: ProductoPageRequest) => {
    let matching = all.filter(
      (p) =>
        (!request.bodegaIds?.length || (p.bodegaId !== null && request.bodegaIds.includes(p.bodegaId))) &&
        (!request.ids?.length || request.ids.includes(p.id)),
    );
    if (request.perBodega) {
      // ListProductos' per_bodega: each warehouse's first perBodega after perBodegaAfterId.
      const held = new Map<number | null, number>();
      const after = request.perBodegaAfterId ?? 0;
      matching = matching.filter((p) => {
        const n = held.get(p.bodegaId) ?? 0;
        if (p.id <= after || n >= request.perBodega!) return false;
        held.set(p.bodegaId, n + 1);
        return true;
      });
    }
    // Its own tokens are positions; a list's first token (encodePageToken) an id to start after.
    const token = request.pageToken ?? '';
    const after = token === '' || /^\d+$/.test(token) ? undefined : decodePageToken(token)!;
    const from = after === undefined ? Number(token) : matching.filter((p) => p.id <= after).length;
    const start = from + (request.skip ?? 0);
    const size = Math.min(request.pageSize, maxPage);
    const page = matching.slice(start, start + size);
    const end = start + page.length;
    return {
      productos: page,
      nextPageToken: end < matching.length ? String(end) : '',
      ...(request.includeTotalSize ? { totalSize: matching.length } : {}),
    };
  };
  // UnassignBodega's reports by idempotency key: with a key, each call reports the whole operation so far.
  const reports = new Map<string, UnassignResult>();
  const client: ProductoClient = {
    list: (_caller, request) => {
      log.push(`list ${JSON.stringify(request)}`);
      return Promise.resolve(list(request));
    },
    get: (_caller, id) =>
      Promise.resolve(all.find((p) => p.id === id) ?? Promise.reject(new NotFoundError(`no existe el producto ${id}`))),
    create: (_caller, input) => {
      log.push('create');
      return Promise.resolve({ ...producto(99), ...input, descripcion: null, bodegaId: input.bodegaId ?? null });
    },
    update: (_caller, id) => {
      log.push(`update ${id}`);
      return Promise.resolve(producto(id));
    },
    delete: () => Promise.resolve(),
    unassignBodega: (_caller, bodegaId, write = {}, maxChunks = 0) => {
      log.push(`unassign ${bodegaId} key=${write.idempotencyKey} chunks=${maxChunks}`);
      const held = all.filter((p) => p.bodegaId === bodegaId);
      const now = maxChunks > 0 ? held.slice(0, maxChunks * FAKE_CHUNK) : held;
      now.forEach((p) => (p.bodegaId = null));
      const before = (write.idempotencyKey && reports.get(write.idempotencyKey)) || { productos: [], total: 0 };
      const after = {
        productos: [...before.productos, ...now].slice(0, 100),
        total: before.total + now.length,
        complete: now.length === held.length,
      };
      if (write.idempotencyKey) reports.set(write.idempotencyKey, after);
      return Promise.resolve(after);
    },
  };
  return { client, log };
}

/**
 * A BodegaService over `existing`. With `productos`, a forced delete that asks for it unassigns
 * the warehouse's products first as bodega-svc does: one UnassignBodega chunk per call under the
 * delete's key, answering pendiente until none is left.
 */
function fakeBodegas(existing: number[], log: string[] = [], productos?: ProductoClient) {
  const ids = new Set(existing);
  const client: BodegaClient = {
    list: (_caller, request) =>
      Promise.resolve({
        bodegas: (request.ids ?? [...ids]).filter((id) => ids.has(id)).map(bodega),
        nextPageToken: '',
      }),
    get: (_caller, id) => {
      log.push(`get ${id}`);
      return ids.has(id)
        ? Promise.resolve(bodega(id))
        : Promise.reject(new NotFoundError(`No existe la bodega con id ${id}`));
    },
    create: () => Promise.resolve(bodega(1)),
    update: (_caller, id) => Promise.resolve(bodega(id)),
    delete: async (caller, id, write = {}, options = {}) => {
      const unassign =
        options.desasignarProductos && productos ? await productos.unassignBodega(caller, id, write, 1) : undefined;
      const desasignados = { productos: unassign?.productos ?? [], total: unassign?.total ?? 0 };
      if (unassign && !unassign.complete)
        return { existenciasRetiradas: 0, unidadesRetiradas: 0, pendiente: true, desasignados };
      log.push(`delete ${id}`);
      ids.delete(id);
      return { existenciasRetiradas: 0, unidadesRetiradas: 0, pendiente: false, desasignados };
    },
    marcarEliminacion: (_caller, id, write = {}) => {
      log.push(`mark ${id} if-match=${write.ifMatch}`);
      return ids.has(id)
        ? Promise.resolve(bodega(id))
        : Promise.reject(new NotFoundError(`No existe la bodega con id ${id}`));
    },
  };
  return { client, log };
}

function existencia(bodegaId: number, productoId: number, cantidad: number): Existencia {
  return {
    bodegaId,
    productoId,
    cantidad,
    umbralMinimo: null,
    version: 1,
    fechaCreacion: FECHA,
    fechaActualizacion: FECHA,
  };
}

/** An ExistenciaService holding `levels` that pages like the real one (by position, in (warehouse, product) order); writes are not used. */
function fakeExistencias(levels: Existencia[], maxPage = 1000, log: string[] = []) {
  const unused = () => Promise.reject(new Error('not used by this test'));
  const client: ExistenciaClient = {
    list: (_caller, request) => {
      log.push(`levels ${JSON.stringify(request)}`);
      const matching = levels
        .filter(
          (l) =>
            (!request.bodegaIds?.length || request.bodegaIds.includes(l.bodegaId)) &&
            (!request.productoIds?.length || request.productoIds.includes(l.productoId)),
        )
        .sort((x, y) => x.bodegaId - y.bodegaId || x.productoId - y.productoId);
      const start = request.pageToken ? Number(request.pageToken) : 0;
      const page = matching.slice(start, start + Math.min(request.pageSize, maxPage));
      const end = start + page.length;
      return Promise.resolve({ existencias: page, nextPageToken: end < matching.length ? String(end) : '' });
    },
    get: (_caller, bodegaId, productoId) => {
      const level = levels.find((l) => l.bodegaId === bodegaId && l.productoId === productoId);
      return level ? Promise.resolve(level) : Promise.reject(new NotFoundError('no existe la existencia'));
    },
    asignar: unused,
    retirar: unused,
    cambiarUmbral: unused,
    registrarMovimiento: unused,
    transferir: unused,
    revertir: unused,
    getOperacion: unused,
    listMovimientos: unused,
    verificar: unused,
    deProducto: unused,
    porLote: unused,
    // bodega-svc's merge of a warehouse's products (ListProductosDeBodega): here, its levels.
    productosDeBodega: (_caller, bodegaId, { pageSize, pageToken }) => {
      log.push(`productosDeBodega ${bodegaId} ${pageSize} ${pageToken ?? ''}`);
      const matching = levels.filter((l) => l.bodegaId === bodegaId).sort((x, y) => x.productoId - y.productoId);
      const start = pageToken ? Number(pageToken) : 0;
      const page = matching.slice(start, start + pageSize);
      const end = start + page.length;
      return Promise.resolve({
        productos: page.map((l) => ({
          id: l.productoId,
          nombre: `P${l.productoId}`,
          precio: '1.00',
          cantidad: l.cantidad,
        })),
        nextPageToken: end < matching.length ? String(end) : '',
      });
    },
    // A product's figure: the sum of its levels (docs/contract.md §10.6).
    totales: (_caller, ids) =>
      Promise.resolve(
        new Map(
          ids.map((id) => [
            id,
            { total: levels.filter((l) => l.productoId === id).reduce((sum, l) => sum + l.cantidad, 0), sinUbicar: 0 },
          ]),
        ),
      ),
  };
  return { client, log };
}

/** No stock anywhere. */
const sinExistencias = fakeExistencias([]).client;

const many = (n: number, bodegaId: number | null = null) =>
  Array.from({ length: n }, (_, i) => producto(i + 1, bodegaId));

describe('listProductos', () => {
  test('without limit follows every page, in pages of 1000', async () => {
    const productos = fakeProductos(many(2500));
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([]).client,
    });
    const list = await inventario.listProductos(caller);
    expect(list.map((p) => p.id)).toEqual(many(2500).map((p) => p.id));
    expect(productos.log).toHaveLength(3);
    expect(productos.log[0]).toContain('"pageSize":1000');
  });

  test('limit and offset become page_size and skip, skip on the first page only', async () => {
    const productos = fakeProductos(many(50), 20);
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([]).client,
    });
    const list = await inventario.listProductos(caller, { limit: 30, offset: 5 });
    expect(list.map((p) => p.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 6));
    expect(productos.log).toHaveLength(2);
    expect(productos.log[0]).toContain('"skip":5');
    expect(productos.log[1]).toContain('"skip":0');
  });

  test('offset without limit answers the rest of the list', async () => {
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: fakeProductos(many(10)).client,
      bodegas: fakeBodegas([]).client,
    });
    expect((await inventario.listProductos(caller, { offset: 8 })).map((p) => p.id)).toEqual([9, 10]);
  });
});

describe('pages of a list (GraphQL first/after)', () => {
  test('productosDeBodegas: at most perBodega of each warehouse, and reading stops once each has them', async () => {
    // 3,000 products, alternately in warehouses 1 and 2: the first 3 of each are in the first 6.
    const productos = fakeProductos(Array.from({ length: 3000 }, (_, i) => producto(i + 1, (i % 2) + 1)));
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([1, 2]).client,
    });
    const page = await inventario.productosDeBodegas(caller, [1, 2], { perBodega: 3 });
    expect(page.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(productos.log).toHaveLength(1);
    expect(productos.log[0]).toContain('"pageSize":6');
    expect(productos.log[0]).toContain('"perBodega":3');
  });

  test('productosDeBodegas: producto-svc counts each warehouse (per_bodega), so a big one costs no read past its page', async () => {
    // Warehouse 1 holds products 1..2000, warehouse 2 the rest: one call, however big warehouse 1 is.
    const productos = fakeProductos(Array.from({ length: 2005 }, (_, i) => producto(i + 1, i < 2000 ? 1 : 2)));
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([1, 2]).client,
    });
    const page = await inventario.productosDeBodegas(caller, [2, 1], { perBodega: 2, afterId: 3 });
    expect(page.map((p) => p.id)).toEqual([4, 5, 2001, 2002]);
    expect(productos.log).toHaveLength(1);
    expect(productos.log[0]).toContain('"perBodegaAfterId":3');
    expect(await inventario.productosDeBodegas(caller, [1], { perBodega: 0 })).toEqual([]);
    expect(productos.log).toHaveLength(1);
  });

  test('productosDeBodegas: a producto-svc that ignores per_bodega (older, mid-rollout) is a 503, never a wrong page', async () => {
    const productos = fakeProductos(Array.from({ length: 2005 }, (_, i) => producto(i + 1, i < 2000 ? 1 : 2)));
    const older: ProductoClient = {
      ...productos.client,
      list: (c, request) => productos.client.list(c, { ...request, perBodega: undefined, perBodegaAfterId: undefined }),
    };
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: older,
      bodegas: fakeBodegas([1, 2]).client,
    });
    await expect(inventario.productosDeBodegas(caller, [2, 1], { perBodega: 2, afterId: 3 })).rejects.toBeInstanceOf(
      ServicioNoDisponibleError,
    );
    // A page that happens to hold at most perBodega of each warehouse is still answered.
    expect(
      (await inventario.productosDeBodegas(caller, [2], { perBodega: 5, afterId: 2000 })).map((p) => p.id),
    ).toEqual([2001, 2002, 2003, 2004, 2005]);
  });

  test('productosDeBodegas: maxTotal stops reading a huge warehouse; without a page, every product', async () => {
    const productos = fakeProductos(many(3000, 1));
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([1]).client,
    });
    expect(await inventario.productosDeBodegas(caller, [1], { maxTotal: 1500 })).toHaveLength(1500);
    expect(productos.log).toHaveLength(2);
    productos.log.length = 0;
    expect(await inventario.productosDeBodegas(caller, [1])).toHaveLength(3000);
    expect(productos.log).toHaveLength(3);
  });

  test('afterId starts every list at the page token after that id: products, a batch of warehouses, warehouses', async () => {
    const productos = fakeProductos(many(5, 1));
    const bodegas = fakeBodegas([1]);
    const pedidos: string[] = [];
    const listBodegas = bodegas.client.list;
    bodegas.client.list = (c, request) => {
      pedidos.push(request.pageToken ?? '');
      return listBodegas(c, request);
    };
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: bodegas.client,
    });
    await inventario.listProductos(caller, { limit: 2, afterId: 7 });
    await inventario.productosDeBodegas(caller, [1], { perBodega: 2, afterId: 7 });
    await inventario.listBodegas(caller, { limit: 1, afterId: 7 });
    for (const call of productos.log) expect(call).toContain(`"pageToken":"${encodePageToken(7)}"`);
    expect(pedidos).toEqual([encodePageToken(7)]);
    expect(await inventario.listBodegas(caller, { limit: 0 })).toEqual([]);
  });
});

describe('bodegaId on writes', () => {
  // Whether the warehouse exists is producto-svc's to ask bodega-svc (producto-svc/test/bodega-requerida.test.ts;
  // the REST and GraphQL answers are productos-rest.test.ts's and the validation answers'): the BFF asks nothing first.
  test('a bodegaId goes to producto-svc as it came, with no call to bodega-svc before it', async () => {
    const productos = fakeProductos([producto(1)]);
    const bodegas = fakeBodegas([2]);
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: bodegas.client,
    });
    await inventario.updateProducto(caller, 1, { bodegaId: 3 });
    await inventario.updateProducto(caller, 1, { bodegaId: null });
    expect(productos.log).toEqual(['update 1', 'update 1']);
    expect(bodegas.log).toEqual([]);
  });

  test('a patch with nothing to update is refused before any call', async () => {
    const productos = fakeProductos([producto(1)]);
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([]).client,
    });
    await expect(inventario.updateProducto(caller, 1, {})).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(inventario.updateBodega(caller, 1, { nombre: undefined })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(productos.log).toEqual([]);
  });
});

describe('deleteBodega', () => {
  test('an unknown warehouse is NotFoundError before any product is read or touched, even with force', async () => {
    const productos = fakeProductos([producto(1, 5)]);
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([]).client,
    });
    await expect(inventario.deleteBodega(caller, 5, { force: true })).rejects.toBeInstanceOf(NotFoundError);
    await expect(inventario.deleteBodega(caller, 5, { force: false })).rejects.toBeInstanceOf(NotFoundError);
    expect(productos.log).toEqual([]);
  });

  test('without force, the conflict counts every product it holds and lists the first 100, from one page; nothing is deleted', async () => {
    const bodegas = fakeBodegas([5]);
    const productos = fakeProductos(many(1200, 5));
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: bodegas.client,
    });
    const err = await inventario.deleteBodega(caller, 5, { force: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BodegaConProductosError);
    expect((err as BodegaConProductosError).total).toBe(1200);
    expect((err as BodegaConProductosError).productos.map((p) => p.id)).toEqual(many(100).map((p) => p.id));
    expect((err as BodegaConProductosError).message).toContain('tiene 1200 producto(s)');
    expect(productos.log).toEqual([
      `list ${JSON.stringify({ pageSize: 100, bodegaIds: [5], includeTotalSize: true })}`,
    ]);
    expect(bodegas.log).toEqual(['get 5']);
  });

  test('with force, the warehouse is marked under If-Match, its products unassigned, then it is deleted', async () => {
    const calls: string[] = [];
    const productos = fakeProductos([producto(1, 5), producto(2, 6), producto(3, 5)], 1000, calls);
    const bodegas = fakeBodegas([5, 6], calls, productos.client);
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: bodegas.client,
    });
    const result = await inventario.deleteBodega(caller, 5, { force: true }, { idempotencyKey: 'k1', ifMatch: 1 });
    expect(result).toEqual({
      kind: 'forced',
      bodegaId: 5,
      productos: [producto(1), producto(3)],
      total: 2,
      existenciasRetiradas: 0,
      unidadesRetiradas: 0,
    });
    // The unassignment is bodega-svc's (the fake's), under the request's key: the BFF marks and deletes.
    expect(calls).toEqual(['get 5', 'mark 5 if-match=1', 'unassign 5 key=k1 chunks=1', 'delete 5']);
  });

  test('with force, a big warehouse is unassigned over several bounded calls under one key of its own, and reported whole', async () => {
    const calls: string[] = [];
    const productos = fakeProductos(many(1150, 5), 1000, calls);
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: productos.client,
      bodegas: fakeBodegas([5], calls, productos.client).client,
    });
    const result = await inventario.deleteBodega(caller, 5, { force: true });
    expect(result).toMatchObject({ kind: 'forced', bodegaId: 5, total: 1150 });
    expect(result.kind === 'forced' && result.productos.map((p) => p.id)).toEqual(many(100).map((p) => p.id));
    // 100 products (1 fake chunk) per DeleteBodega call: 12 calls, the last one emptying the warehouse and deleting it.
    const unassigns = calls.filter((c) => c.startsWith('unassign'));
    expect(unassigns).toHaveLength(12);
    expect(new Set(unassigns).size).toBe(1);
    expect(unassigns[0]).toMatch(/^unassign 5 key=bff-[0-9a-f-]{36} chunks=1$/);
    expect(calls.filter((c) => c.startsWith('delete'))).toEqual(['delete 5']);
    expect(calls.at(-1)).toBe('delete 5');
  });
});

describe('productoPagesOfBodega (GET /bodegas/{id}/productos)', () => {
  test("passes bodega-svc's merged pages through, one call per page it yields", async () => {
    const levels = fakeExistencias(Array.from({ length: 300 }, (_, i) => existencia(5, i + 1, 2)));
    const inventario = createInventario({
      existencias: levels.client,
      productos: fakeProductos([]).client,
      bodegas: fakeBodegas([5]).client,
    });
    const iterator = inventario.productoPagesOfBodega(caller, 5)[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done === false && first.value.map((p) => p.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(levels.log).toEqual(['productosDeBodega 5 250 ']);
    const second = await iterator.next();
    expect(second.done === false && second.value).toHaveLength(50);
    expect(levels.log).toEqual(['productosDeBodega 5 250 ', 'productosDeBodega 5 250 250']);
    expect((await iterator.next()).done).toBe(true);
  });

  test('an unknown warehouse fails before the first page', async () => {
    const inventario = createInventario({
      existencias: sinExistencias,
      productos: fakeProductos([]).client,
      bodegas: fakeBodegas([]).client,
    });
    await expect(inventario.productoPagesOfBodega(caller, 5)[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('deleteBodega with stock', () => {
  test('without force, assigned and stocked products are counted once each and the first of both listed', async () => {
    const productos = fakeProductos([producto(1, 5), producto(2, 5), producto(3), producto(4, 6), producto(7)]);
    // 2 is assigned and stocked, 3 and 4 only stocked, 8 stocked but deleted.
    const levels = fakeExistencias([
      existencia(5, 2, 1),
      existencia(5, 3, 0),
      existencia(5, 4, 4),
      existencia(5, 8, 2),
    ]);
    const inventario = createInventario({
      existencias: levels.client,
      productos: productos.client,
      bodegas: fakeBodegas([5]).client,
    });
    const err = await inventario.deleteBodega(caller, 5, { force: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BodegaConProductosError);
    expect((err as BodegaConProductosError).total).toBe(4);
    expect((err as BodegaConProductosError).productos.map((p) => p.id)).toEqual([1, 2, 3, 4]);
    expect((err as BodegaConProductosError).message).toContain('tiene 4 producto(s) asignado(s) o con existencias');
  });

  test('bodega-svc finding stock the check did not (BODEGA_CON_EXISTENCIAS) is the same 409, listing what holds it now', async () => {
    const productos = fakeProductos([producto(1), producto(2)]);
    const held: Existencia[] = [];
    const levels = fakeExistencias(held);
    const bodegas = fakeBodegas([5]);
    bodegas.client.delete = () => {
      // A level written between the BFF's check and the delete.
      held.push(existencia(5, 2, 3));
      return Promise.reject(
        new FailedPreconditionError('la bodega 5 tiene existencias', {
          reason: 'BODEGA_CON_EXISTENCIAS',
          datos: { bodegaId: 5 },
        }),
      );
    };
    const inventario = createInventario({
      existencias: levels.client,
      productos: productos.client,
      bodegas: bodegas.client,
    });
    const err = await inventario.deleteBodega(caller, 5, { force: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BodegaConProductosError);
    expect((err as BodegaConProductosError).total).toBe(1);
    expect((err as BodegaConProductosError).productos.map((p) => p.id)).toEqual([2]);
  });
});
