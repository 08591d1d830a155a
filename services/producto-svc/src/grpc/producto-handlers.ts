import { idempotentBy, itemSizeBound, listPageOf, PAGE_BYTE_BUDGET, requirePositiveId, unary, type Logger } from '@inventario/platform';
import { CreateProductoRequest, DeleteProductoRequest, UnassignBodegaRequest, UpdateProductoRequest, type ProductoServiceServer } from '@inventario/proto';
import { validateProductoQuery } from '../domain/listing';
import { validateNewProducto, validateProductoChanges } from '../domain/producto';
import type { ProductoStore } from '../store/producto-store';
import { draftFromCreateRequest, draftFromUpdateRequest, productoToMessage } from './producto-mapping';
import { productoRestJson } from './producto-rest-json';

const NO_BYTES = Buffer.alloc(0);

export interface ProductoHandlersDeps {
  store: ProductoStore;
  logger: Logger;
}

/** Writes take an idempotency key (`request_id`); conditional ones an `expected_version`. */
export function createProductoHandlers({ store, logger }: ProductoHandlersDeps): ProductoServiceServer {
  return {
    createProducto: unary(
      logger,
      'CreateProducto',
      async (request, context) => {
        const producto = await store.create(validateNewProducto(draftFromCreateRequest(request)), context);
        return { producto: productoToMessage(producto) };
      },
      idempotentBy(CreateProductoRequest),
    ),

    getProducto: unary(logger, 'GetProducto', async (request) => {
      const producto = await store.get(requirePositiveId(request.id, 'id'));
      return { producto: productoToMessage(producto) };
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
        const restJson = items.length === texts.length ? whole : Buffer.from(texts.slice(0, items.length).join(','), 'utf8');
        return { productos: [], nextPageToken, totalSize: page.totalSize, restJson, restJsonCount: items.length };
      }
      const { items, nextPageToken } = listPageOf(
        page.productos,
        page.hasMore,
        (p) => p.id,
        (p) => itemSizeBound(p.nombre, p.descripcion, p.precio),
      );
      return { productos: items.map(productoToMessage), nextPageToken, totalSize: page.totalSize, restJson: NO_BYTES, restJsonCount: 0 };
    }),

    updateProducto: unary(
      logger,
      'UpdateProducto',
      async (request, context) => {
        const id = requirePositiveId(request.producto?.id, 'id');
        const changes = validateProductoChanges(draftFromUpdateRequest(request));
        const producto = await store.update(id, changes, context, request.expectedVersion);
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
        const report = await store.unassignBodega(requirePositiveId(request.bodegaId, 'bodegaId'), context, request.maxChunks);
        return { productos: report.productos.map(productoToMessage), totalUnassigned: report.total, complete: report.complete };
        // max_chunks only pages the work: calls of one operation that differ in it share one key.
      },
      idempotentBy(UnassignBodegaRequest, (request) => ({ ...request, maxChunks: 0 })),
    ),
  };
}
