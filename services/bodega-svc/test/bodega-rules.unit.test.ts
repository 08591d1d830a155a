import type { FieldViolation } from '@inventario/platform';
import { violationsOf } from '@inventario/testkit';
import { validateBodegaChanges, validateNewBodega, type BodegaDraft } from '../src/domain/bodega';

const valida: BodegaDraft = { nombre: 'Bodega Central', ubicacion: 'Bogotá', capacidad: 1000 };

describe('validateNewBodega', () => {
  it.each<[string, BodegaDraft, FieldViolation[]]>([
    ['accepts a complete warehouse', valida, []],
    ['accepts a warehouse without ubicacion', { nombre: 'Norte', capacidad: 0 }, []],
    ['accepts a 255-character nombre', { ...valida, nombre: 'n'.repeat(255) }, []],
    ['counts characters, not UTF-16 units (255 emoji fit)', { ...valida, nombre: '📦'.repeat(255) }, []],
    ['accepts the int32 maximum capacidad', { ...valida, capacidad: 2_147_483_647 }, []],
    ['rejects a missing nombre', { capacidad: 1 }, [{ campo: 'nombre', mensaje: 'es obligatorio' }]],
    ['rejects an empty nombre', { ...valida, nombre: '' }, [{ campo: 'nombre', mensaje: 'es obligatorio' }]],
    [
      'rejects a blank nombre',
      { ...valida, nombre: '   ' },
      [{ campo: 'nombre', mensaje: 'no puede estar en blanco' }],
    ],
    [
      'rejects a 256-character nombre',
      { ...valida, nombre: 'n'.repeat(256) },
      [{ campo: 'nombre', mensaje: 'no puede superar 255 caracteres' }],
    ],
    [
      'rejects a 256-character ubicacion',
      { ...valida, ubicacion: 'u'.repeat(256) },
      [{ campo: 'ubicacion', mensaje: 'no puede superar 255 caracteres' }],
    ],
    ['rejects a missing capacidad', { nombre: 'Sur' }, [{ campo: 'capacidad', mensaje: 'es obligatorio' }]],
    [
      'rejects a negative capacidad',
      { ...valida, capacidad: -1 },
      [{ campo: 'capacidad', mensaje: 'debe ser mayor o igual que 0' }],
    ],
    [
      'rejects a fractional capacidad',
      { ...valida, capacidad: 1.5 },
      [{ campo: 'capacidad', mensaje: 'debe ser un número entero' }],
    ],
    [
      'rejects a capacidad beyond int32',
      { ...valida, capacidad: 2_147_483_648 },
      [{ campo: 'capacidad', mensaje: 'no puede superar 2147483647' }],
    ],
    [
      'names every offending field at once',
      { nombre: ' ', ubicacion: 'u'.repeat(300), capacidad: -5 },
      [
        { campo: 'nombre', mensaje: 'no puede estar en blanco' },
        { campo: 'ubicacion', mensaje: 'no puede superar 255 caracteres' },
        { campo: 'capacidad', mensaje: 'debe ser mayor o igual que 0' },
      ],
    ],
  ])('%s', (_name, input, expected) => {
    expect(violationsOf(() => validateNewBodega(input))).toEqual(expected);
  });

  it('trims nombre and ubicacion', () => {
    expect(validateNewBodega({ nombre: '  Central ', ubicacion: ' Lima ', capacidad: 5 })).toEqual({
      nombre: 'Central',
      ubicacion: 'Lima',
      capacidad: 5,
    });
  });

  it('stores a blank or absent ubicacion as null', () => {
    expect(validateNewBodega({ nombre: 'A', ubicacion: '  ', capacidad: 1 }).ubicacion).toBeNull();
    expect(validateNewBodega({ nombre: 'A', capacidad: 1 }).ubicacion).toBeNull();
  });
});

describe('validateBodegaChanges', () => {
  it.each<[string, BodegaDraft, FieldViolation[]]>([
    ['accepts a change of nombre alone', { nombre: 'Nuevo' }, []],
    ['accepts clearing ubicacion', { ubicacion: null }, []],
    ['accepts capacidad 0', { capacidad: 0 }, []],
    ['rejects a named but empty nombre', { nombre: '' }, [{ campo: 'nombre', mensaje: 'es obligatorio' }]],
    [
      'rejects a negative capacidad',
      { capacidad: -3 },
      [{ campo: 'capacidad', mensaje: 'debe ser mayor o igual que 0' }],
    ],
    [
      'rejects a long ubicacion',
      { ubicacion: 'x'.repeat(256) },
      [{ campo: 'ubicacion', mensaje: 'no puede superar 255 caracteres' }],
    ],
  ])('%s', (_name, input, expected) => {
    expect(violationsOf(() => validateBodegaChanges(input))).toEqual(expected);
  });

  it('returns only the fields that were named', () => {
    expect(validateBodegaChanges({ capacidad: 7 })).toEqual({ capacidad: 7 });
  });
});
