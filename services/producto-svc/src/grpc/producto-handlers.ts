import {
  idempotentBy,
  itemSizeBound,
  listPageOf,
  NotFoundError,
  PAGE_BYTE_BUDGET,
  requirePositiveId,
  unary,
  type CallContext,
  type Logger,
} from '@inventario/platform';
import {
  CreateProductoRequest,
  DeleteProductoRequest,
  UnassignBodegaRequest,
  UpdateProductoRequest,
  type ProductoServiceServer,
} from '@inventario/proto';
import { validateProductoQuery } from '../domain/listing';
import { bodegaEliminadaError, validateNewProducto, validateProductoChanges, type Producto } from '../domain/producto';
import type { ProductoStore } from '../store/producto-store';
import type { BodegaLookup } from './bodega-lookup';
import type { LibroDeStock } from './libro-de-stock';
import { draftFromCreateRequest, draftFromUpdateRequest, productoToMessage } from './producto-mapping';
import { productoRestJson } from './producto-rest-json';

const NO_BYTES = Buffer.alloc(0);

export interface ProductoHandlersDeps {
  store: ProductoStore;
  logger: Logger;
  /**
   * bodega-svc's ledger: the units a create or a PUT of cantidadEnStock names are recorded there (docs/contract.md
   * §10.6).
   */
  libro: LibroDeStock;
  /** bodega-svc's warehouses: a bodegaId a write names must exist there. */
  bodegas: Pick<BodegaLookup, 'isLive'>;
}

/**
 * Writes take an idempotency key (`request_id`); conditional ones an `expected_version`.
 * One handler per RPC of the generated server interface: its length is the service's list of calls.
 */
export function createProductoHandlers({ store, logger, libro, bodegas }: ProductoHandlersDeps): ProductoServiceServer {
  /**
   * After the product committed. The ledger retries a lost call within the create's deadline; a failure
   * after that does not fail the create (the product exists; a retry without a key would make another):
   * bodega-svc records the units from ProductoCreado then (docs/decisions.md, "The initial stock, recorded
   * from ProductoCreado").
   *
   * Answers the product's ledger total when it is known exactly (CreateProductoResponse.cantidad_del_libro,
   * issue 23): 0 for a product created without units (no command of a product can precede its commit,
   * so 0 is its total at that moment), bodega-svc's figure when it recorded these as the product's first
   * units; undefined otherwise (a failure, an earlier recording), and the caller asks bodega-svc.
   */
  async function registrarStockInicial(producto: Producto, context: CallContext): Promise<number | undefined> {
    if (producto.cantidadEnStock === 0) return 0;
    return libro.registrarStockInicial(producto, context).catch((err: unknown) => {
      logger.warn(
        { err, productoId: producto.id },
        'stock inicial no registrado: el producto existe sin esas unidades en el libro',
      );
      return undefined;
    });
  }

  /**
   * `bodegaId` names an existing warehouse, else InvalidArgumentError naming `bodegaId` (a 400: the
   * request is wrong, not the product missing). Asked before the write, outside its transaction:
   * there is no foreign key across services, and a warehouse deleted right after this answer is
   * reconciled on BodegaEliminada, after which the store refuses writes naming it the same way.
   * bodega-svc unreachable is an UnavailableError naming it (the BFF answers 503 for bodega-svc).
   */
  async function requireBodega(bodegaId: number | null | undefined): Promise<void> {
    if (bodegaId === null || bodegaId === undefined) return;
    if (!(await bodegas.isLive(bodegaId))) throw bodegaEliminadaError(bodegaId);
  }

  return {
    createProducto: unary(
      logger,
      'CreateProducto',
      async (request, context) => {
        const nuevo = validateNewProducto(draftFromCreateRequest(request));
        await requireBodega(nuevo.bodegaId);
        const producto = await store.create(nuevo, context);
        const cantidadDelLibro = await registrarStockInicial(producto, context);
        // A keyed repeat answers the first call's product: its figure now is bodega-svc's to tell.
        return {
          producto: productoToMessage(producto),
          cantidadDelLibro: context.idempotency?.replayed ? undefined : cantidadDelLibro,
        };
      },
      idempotentBy(CreateProductoRequest),
    ),

    getProducto: unary(logger, 'GetProducto', async (request) => {
      const producto = await store.get(requirePositiveId(request.id, 'id'));
      return { producto: productoToMessage(producto) };
    }),

    getProductoEliminado: unary(logger, 'GetProductoEliminado', async (request) => {
      const id = requirePositiveId(request.id, 'id');
      // Live or never created: either way no deletion to act on.
      if (!(await store.wasDeleted(id))) throw new NotFoundError(`No se eliminó ningún producto con id ${id}`);
      return { id };
    }),

    listProductos: unary(logger, 'ListProductos', async (request) => {
      const page = await store.list(validateProductoQuery(request));
      if (request.restJson) {
        // Each row's JSON once. The budget counts the texts' exact UTF-8 length: a page within it
        // (1,000 ordinary products are about 230 KB) is measured once as a whole, and only a page
        // past it is measured row by row to find where it ends.
        const texts = page.productos.map(productoRestJson);
        const whole = Buffer.from(texts.join(','), 'utf8');
        const fits = whole.length < PAGE_BYTE_BUDGET;
        const { items, nextPageToken } = listPageOf(
          page.productos.map((p, i) => ({ id: p.id, i })),
          page.hasMore,
          (r) => r.id,
          (r) => (fits ? 0 : Buffer.byteLength(texts[r.i]!, 'utf8') + 1),
        );
        const restJson =
          items.length === texts.length ? whole : Buffer.from(texts.slice(0, items.length).join(','), 'utf8');
        return { productos: [], nextPageToken, totalSize: page.totalSize, restJson, restJsonCount: items.length };
      }
      const { items, nextPageToken } = listPageOf(
        page.productos,
        page.hasMore,
        (p) => p.id,
        (p) => itemSizeBound(p.nombre, p.descripcion, p.precio),
      );
      return {
        productos: items.map(productoToMessage),
        nextPageToken,
        totalSize: page.totalSize,
        restJson: NO_BYTES,
        restJsonCount: 0,
      };
    }),

    updateProducto: unary(
      logger,
      'UpdateProducto',
      async (request, context) => {
        const id = requirePositiveId(request.producto?.id, 'id');
        const changes = validateProductoChanges(draftFromUpdateRequest(request));
        await requireBodega(changes.bodegaId);
        // A PUT of cantidadEnStock is a count, recorded in the ledger before the update commits (store's Conteo).
        const cantidad = changes.cantidadEnStock;
        const conteo =
          cantidad === undefined
            ? undefined
            : async (stored: Producto) => void (await libro.contar(stored, cantidad, context));
        const producto = await store.update(id, changes, context, request.expectedVersion, conteo);
        return { producto: productoToMessage(producto) };
      },
      idempotentBy(UpdateProductoRequest),
    ),

    deleteProducto: unary(
      logger,
      'DeleteProducto',
      async (request, context) => {
        await store.delete(requirePositiveId(request.id, 'id'), context, request.expectedVersion);
        return {};
      },
      idempotentBy(DeleteProductoRequest),
    ),

    unassignBodega: unary(
      logger,
      'UnassignBodega',
      async (request, context) => {
        const report = await store.unassignBodega(
          requirePositiveId(request.bodegaId, 'bodegaId'),
          context,
          request.maxChunks,
        );
        return {
          productos: report.productos.map(productoToMessage),
          totalUnassigned: report.total,
          complete: report.complete,
        };
        // max_chunks only pages the work: calls of one operation that differ in it share one key.
      },
      idempotentBy(UnassignBodegaRequest, (request) => ({ ...request, maxChunks: 0 })),
    ),
  };
}
