import {
  decodePageToken,
  encodePageToken,
  pageSizeOf,
  requirePositiveId,
  unary,
  validateFields,
  type CallContext,
  type Logger,
} from '@inventario/platform';
import type { ExistenciaServiceServer, Producto } from '@inventario/proto';
import type { BodegaStore } from '../store/bodega-store';
import type { ExistenciaStore } from '../store/existencia-store';
import type { Existencia } from '../domain/existencia';
import { filtroDeBodegas } from './alcance';
import type { ListaDeProductos } from './producto-asignaciones';

export interface ProductosDeBodegaDeps {
  bodegas: Pick<BodegaStore, 'get'>;
  store: Pick<ExistenciaStore, 'list' | 'totalesDeProductos'>;
  productos: ListaDeProductos;
}

export interface ProductoDeBodega {
  id: number;
  nombre: string;
  precio: string;
  cantidad: number;
}

/**
 * One page of each list after `after`; the merged page holds every id up to the lower of the two
 * last ids read (the higher side's rest is read again next page), so no later page holds a
 * smaller id.
 */
async function pagina(
  { store, productos }: ProductosDeBodegaDeps,
  bodegaId: number,
  after: number | null,
  pageSize: number,
  caller: CallContext,
): Promise<{ productos: ProductoDeBodega[]; nextPageToken: string }> {
  // Levels show only where the caller may read stock, as ListExistencias shows them.
  const nivelesVisibles = filtroDeBodegas(caller, 'existencias:leer', [bodegaId])?.length !== 0;
  const [asignados, niveles] = await Promise.all([
    productos.listar(
      { bodegaIds: [bodegaId], pageSize, pageToken: after === null ? undefined : encodePageToken(after) },
      caller,
    ),
    nivelesVisibles
      ? store.list({
          pageSize,
          after: after === null ? null : { bodegaId, productoId: after },
          bodegaIds: [bodegaId],
          productoIds: [],
        })
      : { existencias: [] as Existencia[], hasMore: false },
  ]);
  const finAsignados = asignados.nextPageToken === '';
  const finNiveles = !niveles.hasMore;
  const ultimoAsignado = asignados.productos.at(-1)?.id ?? -Infinity;
  const ultimoNivel = niveles.existencias.at(-1)?.productoId ?? -Infinity;
  const hasta = finAsignados
    ? finNiveles
      ? Infinity
      : ultimoNivel
    : finNiveles
      ? ultimoAsignado
      : Math.min(ultimoAsignado, ultimoNivel);
  const asignadosHasta = asignados.productos.filter((p) => p.id <= hasta);
  const nivelesHasta = niveles.existencias.filter((n) => n.productoId <= hasta);
  const porNivel = new Map(nivelesHasta.map((n) => [n.productoId, n.cantidad]));
  const asignadosIds = new Set(asignadosHasta.map((p) => p.id));
  const sinNivel = asignadosHasta.filter((p) => !porNivel.has(p.id)).map((p) => p.id);
  const soloNivel = nivelesHasta.filter((n) => !asignadosIds.has(n.productoId)).map((n) => n.productoId);
  const [totales, delNivel] = await Promise.all([
    store.totalesDeProductos(sinNivel),
    productosPorIds(productos, soloNivel, caller),
  ]);
  const totalDe = new Map(totales.map((t) => [t.productoId, t.total]));
  // A level of a product producto-svc no longer has is left out.
  const todos = [...asignadosHasta, ...delNivel].sort((x, y) => x.id - y.id);
  const page = todos.map((p) => ({
    id: p.id,
    nombre: p.nombre,
    precio: p.precio,
    cantidad: porNivel.get(p.id) ?? totalDe.get(p.id) ?? 0,
  }));
  const fin = finAsignados && finNiveles;
  return { productos: page, nextPageToken: fin || hasta === -Infinity ? '' : encodePageToken(hasta) };
}

/** The products of `ids` that producto-svc has, over as many of its pages as it answers with. */
async function productosPorIds(productos: ListaDeProductos, ids: number[], caller: CallContext): Promise<Producto[]> {
  const out: Producto[] = [];
  let pageToken: string | undefined;
  while (ids.length > 0) {
    const page = await productos.listar({ ids, pageSize: ids.length, pageToken }, caller);
    out.push(...page.productos);
    if (page.nextPageToken === '') break;
    pageToken = page.nextPageToken;
  }
  return out;
}

/**
 * A warehouse's products (GET /bodegas/{id}/productos): those assigned to it, which producto-svc
 * records, and those with a level here, each once, by id. A product with a level counts its
 * level's units; an assigned one without, its ledger total (docs/contract.md §10.6). The gateway
 * merged the two lists until issue 23; the rule is this service's, which owns every unit.
 */
export function createProductosDeBodega(deps: ProductosDeBodegaDeps): {
  listar: (
    request: { bodegaId: number; pageSize: number; pageToken: string },
    caller: CallContext,
  ) => Promise<{ productos: ProductoDeBodega[]; nextPageToken: string }>;
} {
  return {
    async listar(request, caller) {
      const query = validateFields({
        bodegaId: () => requirePositiveId(request.bodegaId, 'bodegaId'),
        pageSize: () => pageSizeOf(request.pageSize),
        after: () => decodePageToken(request.pageToken),
      });
      // A missing warehouse is NOT_FOUND, not an empty list.
      if (query.after === null) await deps.bodegas.get(query.bodegaId);
      return pagina(deps, query.bodegaId, query.after, query.pageSize, caller);
    },
  };
}

export function productosDeBodegaHandlers(
  deps: ProductosDeBodegaDeps & { logger: Logger },
): Pick<ExistenciaServiceServer, 'listProductosDeBodega'> {
  const { listar } = createProductosDeBodega(deps);
  return {
    listProductosDeBodega: unary(deps.logger, 'ListProductosDeBodega', (request, caller) => listar(request, caller)),
  };
}
