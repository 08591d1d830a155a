/**
 * ListProductosDeBodega's merge (issue 23: the BFF did it before) over in-memory fakes of the
 * level store and producto-svc's list: the order, the figures, the page bounds and the scopes.
 */
import type { Permiso } from '@inventario/contract';
import { decodePageToken, encodePageToken, NotFoundError, type CallContext } from '@inventario/platform';
import type { Producto } from '@inventario/proto';
import type { Existencia } from '../src/domain/existencia';
import { createProductosDeBodega, type ProductoDeBodega } from '../src/grpc/productos-de-bodega';
import type { ListaDeProductos } from '../src/grpc/producto-asignaciones';
import type { ExistenciaStore } from '../src/store/existencia-store';

const caller: CallContext = { usuario: 'ana' };
const FECHA = new Date('2026-01-01T00:00:00Z');

const producto = (id: number, bodegaId: number | null = null) =>
  ({ id, nombre: `P${id}`, precio: '1.00', cantidadEnStock: 0, bodegaId: bodegaId ?? undefined }) as Producto;

const nivel = (bodegaId: number, productoId: number, cantidad: number): Existencia => ({
  bodegaId,
  productoId,
  cantidad,
  umbralMinimo: null,
  version: 1,
  fechaCreacion: FECHA,
  fechaActualizacion: FECHA,
});

/** producto-svc's list: keyset by id after the page token, `ids` and `bodegaIds` filters. */
function fakeProductos(all: Producto[], log: string[]): ListaDeProductos {
  return {
    listar: ({ bodegaIds = [], ids = [], pageSize, pageToken }) => {
      log.push(ids.length > 0 ? `ids ${ids.length}` : 'asignados');
      const after = pageToken ? (decodePageToken(pageToken) ?? 0) : 0;
      const matching = all.filter(
        (p) =>
          p.id > after &&
          (bodegaIds.length === 0 || (p.bodegaId !== undefined && bodegaIds.includes(p.bodegaId))) &&
          (ids.length === 0 || ids.includes(p.id)),
      );
      const page = matching.slice(0, pageSize);
      const more = matching.length > pageSize;
      return Promise.resolve({ productos: page, nextPageToken: more ? encodePageToken(page.at(-1)!.id) : '' });
    },
  };
}

function fakeStore(levels: Existencia[], log: string[]): Pick<ExistenciaStore, 'list' | 'totalesDeProductos'> {
  return {
    list: ({ pageSize, after, bodegaIds }) => {
      log.push('niveles');
      const matching = levels
        .filter((l) => bodegaIds.includes(l.bodegaId))
        .filter((l) => !after || l.bodegaId > after.bodegaId || l.productoId > after.productoId)
        .sort((x, y) => x.productoId - y.productoId);
      return Promise.resolve({ existencias: matching.slice(0, pageSize), hasMore: matching.length > pageSize });
    },
    totalesDeProductos: (ids) =>
      Promise.resolve(
        ids.map((productoId) => ({
          productoId,
          total: levels.filter((l) => l.productoId === productoId).reduce((sum, l) => sum + l.cantidad, 0),
          sinUbicar: 0,
        })),
      ),
  };
}

const bodegas = (ids: number[]) => ({
  get: (id: number) =>
    ids.includes(id) ? Promise.resolve({} as never) : Promise.reject(new NotFoundError(`no existe la bodega ${id}`)),
});

function lista(all: Producto[], levels: Existencia[], log: string[] = []) {
  return createProductosDeBodega({
    bodegas: bodegas([5, 6]),
    store: fakeStore(levels, log),
    productos: fakeProductos(all, log),
  });
}

async function todas(
  listar: ReturnType<typeof createProductosDeBodega>['listar'],
  pageSize: number,
  who: CallContext = caller,
): Promise<ProductoDeBodega[][]> {
  const pages: ProductoDeBodega[][] = [];
  let pageToken = '';
  do {
    const page = await listar({ bodegaId: 5, pageSize, pageToken }, who);
    pages.push(page.productos);
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return pages;
}

describe('ListProductosDeBodega', () => {
  const all = [producto(1, 5), producto(2), producto(3, 5), producto(4, 6), producto(6, 5)];
  // Product 9 has a level here but producto-svc no longer has it.
  const levels = [nivel(5, 2, 20), nivel(5, 3, 30), nivel(5, 4, 0), nivel(5, 9, 7), nivel(6, 1, 99)];

  test('merges assigned and stocked products in id order, each once; a stocked one counts its units there, a deleted one is left out', async () => {
    const pages = await todas(lista(all, levels).listar, 100);
    // Assigned without a level here: its ledger total (product 1's 99 units in warehouse 6; 6 has none).
    expect(pages.flat().map(({ id, cantidad }) => ({ id, cantidad }))).toEqual([
      { id: 1, cantidad: 99 },
      { id: 2, cantidad: 20 },
      { id: 3, cantidad: 30 },
      { id: 4, cantidad: 0 },
      { id: 6, cantidad: 0 },
    ]);
    expect(pages.flat()[0]).toEqual({ id: 1, nombre: 'P1', precio: '1.00', cantidad: 99 });
  });

  test('a page holds every id up to the lower of the two last ids read, so pages of any size give the same list', async () => {
    const whole = (await todas(lista(all, levels).listar, 100)).flat();
    for (const size of [1, 2, 3]) expect((await todas(lista(all, levels).listar, size)).flat()).toEqual(whole);
  });

  test('reads one page of each list per page it answers', async () => {
    // 600 assigned products (ids 1..600) and 600 levels of products 301..900.
    const many = Array.from({ length: 900 }, (_, i) => producto(i + 1, i < 600 ? 5 : null));
    const log: string[] = [];
    const { listar } = lista(
      many,
      Array.from({ length: 600 }, (_, i) => nivel(5, i + 301, 2)),
      log,
    );
    const first = await listar({ bodegaId: 5, pageSize: 250, pageToken: '' }, caller);
    // Assigned 1..250 and levels of 301..550: only ids up to 250 can be answered yet.
    expect(first.productos.map((p) => p.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(log).toEqual(['asignados', 'niveles']);
    const merged = (await todas(listar, 250)).flat();
    expect(merged.map((p) => p.id)).toEqual(many.map((p) => p.id));
    expect(merged.filter((p) => p.cantidad === 2)).toHaveLength(600);
  });

  test('levels show only where the caller may read stock', async () => {
    const permisos = new Map<Permiso, '*' | ReadonlySet<number>>([['existencias:leer', new Set([6])]]);
    const scoped = { ...caller, principal: { permisos } } as unknown as CallContext;
    const pages = await todas(lista(all, levels).listar, 100, scoped);
    // Only the assigned, each with its ledger total.
    expect(pages.flat().map(({ id, cantidad }) => ({ id, cantidad }))).toEqual([
      { id: 1, cantidad: 99 },
      { id: 3, cantidad: 30 },
      { id: 6, cantidad: 0 },
    ]);
  });

  test('an unknown warehouse is NOT_FOUND', async () => {
    const { listar } = createProductosDeBodega({
      bodegas: bodegas([]),
      store: fakeStore([], []),
      productos: fakeProductos([], []),
    });
    await expect(listar({ bodegaId: 5, pageSize: 10, pageToken: '' }, caller)).rejects.toBeInstanceOf(NotFoundError);
  });
});
