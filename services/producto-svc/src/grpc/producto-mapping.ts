import { parseUpdateMask, type UpdateMaskSpec } from '@inventario/platform';
import type { CreateProductoRequest, Producto as ProductoMessage, UpdateProductoRequest } from '@inventario/proto';
import type { Producto, ProductoDraft } from '../domain/producto';

/** proto3 absences become null/undefined here, so the domain never sees wire defaults. */

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
    version: producto.version,
  };
}

/** Unset precio and nombre arrive as '': the domain reports both as required. */
export function draftFromCreateRequest(request: CreateProductoRequest): ProductoDraft {
  return {
    nombre: request.nombre,
    descripcion: request.descripcion,
    precio: request.precio,
    cantidadEnStock: request.cantidadEnStock,
    bodegaId: request.bodegaId,
  };
}

/** Output-only paths are ignored (AIP-134), as REST ignores them in a body. */
export const UPDATE_MASK = {
  updatable: {
    nombre: 'nombre',
    descripcion: 'descripcion',
    precio: 'precio',
    cantidad_en_stock: 'cantidadEnStock',
    bodega_id: 'bodegaId',
  },
  outputOnly: ['id', 'fecha_creacion', 'fecha_actualizacion', 'version'],
} as const satisfies UpdateMaskSpec<keyof ProductoDraft>;

/** Exactly the fields in update_mask; a named field absent from `producto` is cleared. */
export function draftFromUpdateRequest(request: UpdateProductoRequest): ProductoDraft {
  const draft: ProductoDraft = {};
  for (const field of parseUpdateMask(request.updateMask, UPDATE_MASK)) {
    draft[field] = request.producto?.[field] ?? null;
  }
  return draft;
}
