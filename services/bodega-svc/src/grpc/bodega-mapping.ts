import { InvalidArgumentError } from '@inventario/platform';
import type { Bodega as BodegaProto, CreateBodegaRequest, UpdateBodegaRequest } from '@inventario/proto';
import type { Bodega, BodegaInput } from '../domain/bodega';

/**
 * Mapping between the inventario.v1 messages and the domain, and nothing
 * else: the rules live in domain/, the SQL in store/.
 */

export function toProto(bodega: Bodega): BodegaProto {
  return {
    id: bodega.id,
    nombre: bodega.nombre,
    // proto3 `optional`: absent on the wire means null.
    ubicacion: bodega.ubicacion ?? undefined,
    capacidad: bodega.capacidad,
    fechaCreacion: bodega.fechaCreacion,
    fechaActualizacion: bodega.fechaActualizacion,
  };
}

/** Ids are positive; 0 is also what proto3 sends when the caller forgot the field. */
export function requireId(id: number, campo = 'id'): number {
  if (!Number.isSafeInteger(id) || id <= 0) throw InvalidArgumentError.field(campo, 'debe ser un número entero positivo');
  return id;
}

export function fromCreateRequest(request: CreateBodegaRequest): BodegaInput {
  return { nombre: request.nombre, ubicacion: request.ubicacion ?? null, capacidad: request.capacidad };
}

/** The update_mask paths we accept: the proto field names (snake_case, AIP-161). */
const MASK_PATHS = ['nombre', 'ubicacion', 'capacidad'] as const;
type MaskPath = (typeof MASK_PATHS)[number];

function isMaskPath(path: string): path is MaskPath {
  return (MASK_PATHS as readonly string[]).includes(path);
}

/**
 * The id and the changes an UpdateBodega names. Only masked fields are read
 * (a masked `ubicacion` left unset clears it); an empty mask or an unknown
 * path is INVALID_ARGUMENT, never a silent no-op.
 */
export function fromUpdateRequest(request: UpdateBodegaRequest): { id: number; cambios: BodegaInput } {
  const bodega = request.bodega;
  if (!bodega) throw InvalidArgumentError.field('bodega', 'es obligatorio');
  const id = requireId(bodega.id);
  const paths = request.updateMask ?? [];
  if (paths.length === 0) {
    throw InvalidArgumentError.field('updateMask', `debe nombrar al menos un campo: ${MASK_PATHS.join(', ')}`);
  }
  const unknown = paths.filter((p) => !isMaskPath(p));
  if (unknown.length > 0) {
    throw InvalidArgumentError.field(
      'updateMask',
      `campos desconocidos: ${unknown.join(', ')}; se admiten ${MASK_PATHS.join(', ')}`,
    );
  }
  const cambios: BodegaInput = {};
  for (const path of paths as MaskPath[]) {
    if (path === 'nombre') cambios.nombre = bodega.nombre;
    else if (path === 'ubicacion') cambios.ubicacion = bodega.ubicacion ?? null;
    else cambios.capacidad = bodega.capacidad;
  }
  return { id, cambios };
}
