import { InvalidArgumentError, parseUpdateMask, requirePositiveId, type UpdateMaskSpec } from '@inventario/platform';
import type { Bodega as BodegaProto, CreateBodegaRequest, UpdateBodegaRequest } from '@inventario/proto';
import type { Bodega, BodegaDraft } from '../domain/bodega';

export function toProto(bodega: Bodega): BodegaProto {
  return {
    id: bodega.id,
    nombre: bodega.nombre,
    // proto3 `optional`: absent on the wire means null.
    ubicacion: bodega.ubicacion ?? undefined,
    capacidad: bodega.capacidad,
    fechaCreacion: bodega.fechaCreacion,
    fechaActualizacion: bodega.fechaActualizacion,
    version: bodega.version,
    ocupacion: bodega.ocupacion,
  };
}

export function fromCreateRequest(request: CreateBodegaRequest): BodegaDraft {
  return { nombre: request.nombre, ubicacion: request.ubicacion ?? null, capacidad: request.capacidad };
}

/** Output-only paths are ignored (AIP-134). */
export const UPDATE_MASK = {
  updatable: { nombre: 'nombre', ubicacion: 'ubicacion', capacidad: 'capacidad' },
  outputOnly: ['id', 'fecha_creacion', 'fecha_actualizacion', 'version', 'ocupacion'],
} as const satisfies UpdateMaskSpec<keyof BodegaDraft>;

/** Only masked fields are read; a masked `ubicacion` left unset clears it. */
export function fromUpdateRequest(request: UpdateBodegaRequest): { id: number; cambios: BodegaDraft } {
  const bodega = request.bodega;
  if (!bodega) throw InvalidArgumentError.field('bodega', 'es obligatorio');
  const id = requirePositiveId(bodega.id, 'id');
  const cambios: BodegaDraft = {};
  for (const field of parseUpdateMask(request.updateMask, UPDATE_MASK)) {
    if (field === 'nombre') cambios.nombre = bodega.nombre;
    else if (field === 'ubicacion') cambios.ubicacion = bodega.ubicacion ?? null;
    else cambios.capacidad = bodega.capacidad;
  }
  return { id, cambios };
}
