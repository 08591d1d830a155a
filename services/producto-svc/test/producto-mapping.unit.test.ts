import { InvalidArgumentError, type FieldViolation } from '@inventario/platform';
import type { UpdateProductoRequest } from '@inventario/proto';
import { draftFromCreateRequest, draftFromUpdateRequest, productoToMessage } from '../src/grpc/producto-mapping';

// Pure unit tests of the proto <-> domain mapping at the gRPC edge.

function violationsOf(request: UpdateProductoRequest): FieldViolation[] {
  try {
    draftFromUpdateRequest(request);
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err.violations;
    throw err;
  }
  return [];
}

const PRODUCTO = {
  id: 5,
  nombre: 'Silla',
  precio: '1.00',
  cantidadEnStock: 2,
  descripcion: 'Roja',
  bodegaId: 3,
  version: 1,
};

describe('draftFromUpdateRequest', () => {
  it('takes exactly the fields named by the snake_case mask paths', () => {
    expect(draftFromUpdateRequest({ producto: PRODUCTO, updateMask: ['precio', 'cantidad_en_stock'] })).toEqual({
      precio: '1.00',
      cantidadEnStock: 2,
    });
  });

  it('clears a named nullable field that the product leaves unset', () => {
    expect(
      draftFromUpdateRequest({
        producto: { ...PRODUCTO, descripcion: undefined, bodegaId: undefined },
        updateMask: ['descripcion', 'bodega_id'],
      }),
    ).toEqual({
      descripcion: null,
      bodegaId: null,
    });
  });

  it('takes the fields named by camelCase mask paths too', () => {
    expect(draftFromUpdateRequest({ producto: PRODUCTO, updateMask: ['cantidadEnStock', 'bodegaId'] })).toEqual({
      cantidadEnStock: 2,
      bodegaId: 3,
    });
  });

  it('ignores output-only paths', () => {
    expect(
      draftFromUpdateRequest({
        producto: PRODUCTO,
        updateMask: ['id', 'nombre', 'fecha_creacion', 'fecha_actualizacion', 'version'],
      }),
    ).toEqual({
      nombre: 'Silla',
    });
  });

  const ADMITIDAS = '(admitidas: nombre, descripcion, precio, cantidad_en_stock, bodega_id)';

  it.each<[string, string[] | undefined, string]>([
    ['an absent mask', undefined, `no hay campos para actualizar ${ADMITIDAS}`],
    ['an empty mask', [], `no hay campos para actualizar ${ADMITIDAS}`],
    [
      'a mask of output-only paths',
      ['fecha_actualizacion', 'fechaCreacion'],
      `no hay campos para actualizar ${ADMITIDAS}`,
    ],
    ['an unknown path', ['nombre', 'color'], `rutas desconocidas: color ${ADMITIDAS}`],
  ])('rejects %s naming updateMask', (_case, updateMask, mensaje) => {
    expect(violationsOf({ producto: PRODUCTO, updateMask })).toEqual([{ campo: 'updateMask', mensaje }]);
  });
});

describe('draftFromCreateRequest and productoToMessage', () => {
  it('passes proto3 absences to the domain as undefined', () => {
    expect(draftFromCreateRequest({ nombre: '', precio: '' })).toEqual({
      nombre: '',
      descripcion: undefined,
      precio: '',
      cantidadEnStock: undefined,
      bodegaId: undefined,
    });
  });

  it('leaves null fields unset on the wire', () => {
    const at = new Date('2026-11-22T14:03:07Z');
    expect(
      productoToMessage({ ...PRODUCTO, descripcion: null, bodegaId: null, fechaCreacion: at, fechaActualizacion: at }),
    ).toEqual({
      ...PRODUCTO,
      descripcion: undefined,
      bodegaId: undefined,
      fechaCreacion: at,
      fechaActualizacion: at,
    });
  });
});
