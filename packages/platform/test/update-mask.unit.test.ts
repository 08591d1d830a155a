/** update_mask parsing shared by every Update RPC (AIP-134, AIP-161). */
import { InvalidArgumentError, parseUpdateMask, type FieldViolation, type UpdateMaskSpec } from '@inventario/platform';

const SPEC: UpdateMaskSpec<'nombre' | 'cantidadEnStock' | 'bodegaId'> = {
  updatable: { nombre: 'nombre', cantidad_en_stock: 'cantidadEnStock', bodega_id: 'bodegaId' },
  outputOnly: ['id', 'fecha_creacion', 'fecha_actualizacion'],
};
const ADMITIDAS = '(admitidas: nombre, cantidad_en_stock, bodega_id)';

function violationsOf(paths: string[] | undefined): FieldViolation[] {
  try {
    parseUpdateMask(paths, SPEC);
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err.violations;
    throw err;
  }
  return [];
}

describe('parseUpdateMask', () => {
  it.each<[string, string[], string[]]>([
    [
      'snake_case paths (what arrives from grpcurl and buf curl)',
      ['cantidad_en_stock', 'bodega_id'],
      ['cantidadEnStock', 'bodegaId'],
    ],
    [
      'camelCase paths (a binary client may send them)',
      ['cantidadEnStock', 'bodegaId'],
      ['cantidadEnStock', 'bodegaId'],
    ],
    [
      'both spellings of one field once',
      ['cantidad_en_stock', 'cantidadEnStock', 'nombre', 'nombre'],
      ['cantidadEnStock', 'nombre'],
    ],
    [
      'updatable paths beside ignored output-only ones',
      ['id', 'nombre', 'fecha_creacion', 'fechaActualizacion'],
      ['nombre'],
    ],
  ])('maps %s to their public fields, in mask order', (_case, paths, fields) => {
    expect([...parseUpdateMask(paths, SPEC)]).toEqual(fields);
  });

  it.each<[string, string[] | undefined, string]>([
    ['an absent mask', undefined, `no hay campos para actualizar ${ADMITIDAS}`],
    ['an empty mask', [], `no hay campos para actualizar ${ADMITIDAS}`],
    [
      'a mask of output-only paths only',
      ['id', 'fecha_actualizacion', 'fechaCreacion'],
      `no hay campos para actualizar ${ADMITIDAS}`,
    ],
    [
      'unknown paths, named as sent',
      ['nombre', 'color', 'Nombre', 'producto.nombre'],
      `rutas desconocidas: color, Nombre, producto.nombre ${ADMITIDAS}`,
    ],
    ['a wildcard (full replacement is not offered)', ['*'], `rutas desconocidas: * ${ADMITIDAS}`],
    ['an inherited object key', ['constructor'], `rutas desconocidas: constructor ${ADMITIDAS}`],
  ])('rejects %s naming updateMask', (_case, paths, mensaje) => {
    expect(violationsOf(paths)).toEqual([{ campo: 'updateMask', mensaje }]);
  });
});
