import { InvalidArgumentError } from '@inventario/platform';
import type {
  CreateProductoRequest,
  Producto as ProductoMessage,
  UpdateProductoRequest,
} from '@inventario/proto';
import type { Producto, ProductoDraft } from '../domain/producto';

/**
 * proto <-> domain at the gRPC edge. proto3 absences become null/undefined
 * here so the domain never sees wire defaults.
 */

export function productoToMessage(producto: Producto): ProductoMessage {
  return {
    id: producto.id,
    nombre: producto.nombre,
    descripcion: producto.descripcion ?? undefined,
    precio: producto.precio,
    cantidadEnStock: producto.cantidadEnStock,
    bodegaId: producto.bodegaId ?? undefined,
    fechaCreacion: producto.fechaCreacion,
    fechaActualizacion: producto.fechaActualizacion,
  };
}

/** An unset precio arrives as '' and an unset nombre as '': the domain reports both as required. */
export function draftFromCreateRequest(request: CreateProductoRequest): ProductoDraft {
  return {
    nombre: request.nombre,
    descripcion: request.descripcion,
    precio: request.precio,
    cantidadEnStock: request.cantidadEnStock,
    bodegaId: request.bodegaId,
  };
}

/** update_mask paths (snake_case, as on the wire) and the fields they name. */
export const UPDATABLE_PATHS = {
  nombre: 'nombre',
  descripcion: 'descripcion',
  precio: 'precio',
  cantidad_en_stock: 'cantidadEnStock',
  bodega_id: 'bodegaId',
} as const satisfies Record<string, keyof ProductoDraft>;

type UpdatablePath = keyof typeof UPDATABLE_PATHS;

/** Output-only fields: named in a mask they are ignored (AIP-134), as REST ignores them in a body. */
const OUTPUT_ONLY_PATHS = new Set(['id', 'fecha_creacion', 'fecha_actualizacion']);

function isUpdatablePath(path: string): path is UpdatablePath {
  return Object.hasOwn(UPDATABLE_PATHS, path);
}

/**
 * The draft of an UpdateProducto: exactly the fields named in update_mask.
 * A named nullable field that is absent from `producto` is cleared (null).
 */
export function draftFromUpdateRequest(request: UpdateProductoRequest): ProductoDraft {
  const producto = request.producto;
  const paths = (request.updateMask ?? []).filter((path) => !OUTPUT_ONLY_PATHS.has(path));
  const unknown = paths.filter((path) => !isUpdatablePath(path));
  if (unknown.length > 0) {
    throw InvalidArgumentError.field(
      'updateMask',
      `rutas desconocidas: ${unknown.join(', ')}; admitidas: ${Object.keys(UPDATABLE_PATHS).join(', ')}`,
    );
  }
  if (paths.length === 0) throw InvalidArgumentError.field('updateMask', 'no hay campos para actualizar');

  const draft: ProductoDraft = {};
  for (const path of paths as UpdatablePath[]) {
    const field = UPDATABLE_PATHS[path];
    draft[field] = producto?.[field] ?? null;
  }
  return draft;
}
