import { requirePositiveId, type FieldViolation } from '@inventario/platform';
import { violationsOf } from '@inventario/testkit';
import { MENSAJES, validateNewProducto, validateProductoChanges, type ProductoDraft } from '../src/domain/producto';

// Pure unit tests of the product rules (docs/contract.md §2.5, §7.2).

const VALID: ProductoDraft = { nombre: 'Silla', precio: '10.00', cantidadEnStock: 1 };

describe('validateNewProducto', () => {
  it.each<[string, ProductoDraft, FieldViolation]>([
    ['nombre missing', { nombre: undefined }, { campo: 'nombre', mensaje: MENSAJES.obligatorio }],
    ['nombre empty', { nombre: '' }, { campo: 'nombre', mensaje: MENSAJES.obligatorio }],
    ['nombre blank', { nombre: ' \t ' }, { campo: 'nombre', mensaje: MENSAJES.enBlanco }],
    ['nombre of 256 characters', { nombre: 'n'.repeat(256) }, { campo: 'nombre', mensaje: MENSAJES.nombreLargo }],
    ['nombre not text', { nombre: 42 }, { campo: 'nombre', mensaje: MENSAJES.texto }],
    ['descripcion not text', { descripcion: 7 }, { campo: 'descripcion', mensaje: MENSAJES.texto }],
    [
      'descripcion over 65535 bytes',
      { descripcion: 'ñ'.repeat(32_768) },
      { campo: 'descripcion', mensaje: MENSAJES.descripcionLarga },
    ],
    ['precio missing', { precio: undefined }, { campo: 'precio', mensaje: MENSAJES.obligatorio }],
    ['precio empty', { precio: '' }, { campo: 'precio', mensaje: MENSAJES.obligatorio }],
    ['precio negative', { precio: '-0.01' }, { campo: 'precio', mensaje: MENSAJES.negativo }],
    ['precio with 3 decimals', { precio: '1.005' }, { campo: 'precio', mensaje: MENSAJES.dosDecimales }],
    ['precio above 99999999.99', { precio: '100000000.00' }, { campo: 'precio', mensaje: MENSAJES.precioMaximo }],
    ['precio non-numeric', { precio: 'diez' }, { campo: 'precio', mensaje: MENSAJES.numero }],
    ['precio with a bare point', { precio: '.5' }, { campo: 'precio', mensaje: MENSAJES.numero }],
    ['precio with spaces', { precio: ' 5' }, { campo: 'precio', mensaje: MENSAJES.numero }],
    [
      'precio with 3 decimals in exponent form',
      { precio: '1e-3' },
      { campo: 'precio', mensaje: MENSAJES.dosDecimales },
    ],
    [
      'precio whose double would be 20',
      { precio: '19.999999999999999999' },
      { campo: 'precio', mensaje: MENSAJES.dosDecimales },
    ],
    [
      'precio of more than 64 characters',
      { precio: `1${'0'.repeat(64)}` },
      { campo: 'precio', mensaje: MENSAJES.demasiadoLargo },
    ],
    ['precio as a JSON number', { precio: 10 }, { campo: 'precio', mensaje: MENSAJES.decimal }],
    [
      'cantidadEnStock missing',
      { cantidadEnStock: undefined },
      { campo: 'cantidadEnStock', mensaje: MENSAJES.obligatorio },
    ],
    ['cantidadEnStock negative', { cantidadEnStock: -1 }, { campo: 'cantidadEnStock', mensaje: MENSAJES.negativo }],
    [
      'cantidadEnStock not an integer',
      { cantidadEnStock: 1.5 },
      { campo: 'cantidadEnStock', mensaje: MENSAJES.entero },
    ],
    ['cantidadEnStock as text', { cantidadEnStock: '3' }, { campo: 'cantidadEnStock', mensaje: MENSAJES.entero }],
    [
      'cantidadEnStock above INT',
      { cantidadEnStock: 2_147_483_648 },
      { campo: 'cantidadEnStock', mensaje: MENSAJES.enteroMaximo },
    ],
    ['bodegaId zero', { bodegaId: 0 }, { campo: 'bodegaId', mensaje: MENSAJES.idPositivo }],
    ['bodegaId negative', { bodegaId: -3 }, { campo: 'bodegaId', mensaje: MENSAJES.idPositivo }],
    ['bodegaId not an integer', { bodegaId: 2.5 }, { campo: 'bodegaId', mensaje: MENSAJES.idPositivo }],
    ['bodegaId above INT UNSIGNED', { bodegaId: 4_294_967_296 }, { campo: 'bodegaId', mensaje: MENSAJES.idMaximo }],
  ])('rejects %s', (_case, override, violation) => {
    expect(violationsOf(() => validateNewProducto({ ...VALID, ...override }))).toEqual([violation]);
  });

  it.each<[string, string, string]>([
    ['"0"', '0', '0.00'],
    ['exactly "99999999.99"', '99999999.99', '99999999.99'],
    ['"0.10"', '0.10', '0.10'],
    ['one decimal', '1.5', '1.50'],
    ['no decimals', '7', '7.00'],
    ['leading zeros', '007.5', '7.50'],
    ['leading zeros beyond 8 digits', '000000012345678.99', '12345678.99'],
    ['trailing zeros beyond 2 decimals', '1.500', '1.50'],
    ['minus zero', '-0', '0.00'],
    ['exponent form', '1e3', '1000.00'],
    ['exponent form with decimals', '1.5E2', '150.00'],
    ['negative exponent', '1999e-2', '19.99'],
  ])('accepts precio %s as the canonical %s', (_case, precio, canonical) => {
    expect(validateNewProducto({ ...VALID, precio }).precio).toBe(canonical);
  });

  it('reports every violation at once, in field order', () => {
    expect(violationsOf(() => validateNewProducto({ bodegaId: 0 })).map((v) => v.campo)).toEqual([
      'nombre',
      'precio',
      'cantidadEnStock',
      'bodegaId',
    ]);
  });

  it('treats descripcion and bodegaId as optional, storing null when absent', () => {
    expect(validateNewProducto(VALID)).toEqual({
      nombre: 'Silla',
      descripcion: null,
      precio: '10.00',
      cantidadEnStock: 1,
      bodegaId: null,
    });
  });

  it('keeps an empty descripcion, a 255-character nombre and the largest INT values', () => {
    const producto = validateNewProducto({
      nombre: 'ñ'.repeat(255),
      descripcion: '',
      precio: '1',
      cantidadEnStock: 2_147_483_647,
      bodegaId: 4_294_967_295,
    });
    expect(producto).toMatchObject({ descripcion: '', cantidadEnStock: 2_147_483_647, bodegaId: 4_294_967_295 });
  });

  it('trims the spaces around nombre, and measures it after trimming', () => {
    expect(validateNewProducto({ ...VALID, nombre: '  Silla plegable \t' }).nombre).toBe('Silla plegable');
    expect(validateNewProducto({ ...VALID, nombre: ` ${'n'.repeat(255)} ` }).nombre).toHaveLength(255);
  });

  it('counts nombre in characters, not UTF-16 units', () => {
    expect(validateNewProducto({ ...VALID, nombre: '📦'.repeat(255) }).nombre).toHaveLength(510);
  });
});

describe('validateProductoChanges', () => {
  it('checks and returns only the fields present', () => {
    expect(validateProductoChanges({ precio: '3.5' })).toEqual({ precio: '3.50' });
  });

  it('clears the nullable fields when they are present as null', () => {
    expect(validateProductoChanges({ descripcion: null, bodegaId: null })).toEqual({
      descripcion: null,
      bodegaId: null,
    });
  });

  it.each<[string, ProductoDraft, string]>([
    ['blank nombre', { nombre: '' }, 'nombre'],
    ['null precio', { precio: null }, 'precio'],
    ['null cantidadEnStock', { cantidadEnStock: null }, 'cantidadEnStock'],
    ['invalid precio', { precio: '1.001' }, 'precio'],
    ['bodegaId 0', { bodegaId: 0 }, 'bodegaId'],
  ])('rejects a present but invalid field: %s', (_case, draft, campo) => {
    expect(violationsOf(() => validateProductoChanges(draft)).map((v) => v.campo)).toEqual([campo]);
  });
});

describe('requirePositiveId', () => {
  it.each([0, -1, 1.5, Number.NaN, undefined])('rejects %p naming the given field', (id) => {
    expect(violationsOf(() => requirePositiveId(id, 'id'))).toEqual([{ campo: 'id', mensaje: MENSAJES.idPositivo }]);
  });

  it('accepts a positive integer', () => {
    expect(requirePositiveId(12, 'id')).toBe(12);
  });
});
