import { FIELD_MENSAJES, InvalidArgumentError, NotFoundError } from '@inventario/platform';
import { violationsOf } from '@inventario/testkit';
import { NUMBER_MENSAJES, precioFromNumberText } from '../src/http/json-number';
import { BodegaConProductosError, DeadlineExceededError, ServicioNoDisponibleError } from '../src/inventario/errors';
import type { Producto } from '@inventario/contract';
import { parseId, toBodegaInput, toBodegaUpdate, toProductoInput, toProductoUpdate } from '../src/graphql/inputs';
import { failureText } from '../src/graphql/mutation-result';

describe('GraphQL ids', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['007', 7],
    ['4294967295', 4294967295],
  ])('"%s" is id %d', (text, id) => {
    expect(parseId(text, 'id')).toBe(id);
  });

  it.each(['abc', '', '0', '-1', '1.0', ' 1', '1e3', '4294967296', '99999999999'])(
    '"%s" is refused, naming the field',
    (text) => {
      expect(violationsOf(() => parseId(text, 'bodegaId'))).toEqual([
        { campo: 'bodegaId', mensaje: expect.any(String) },
      ]);
    },
  );
});

describe('GraphQL precio', () => {
  // [the double graphql-js coerced the argument to, the text the client wrote, REST's verdict on that text]
  it.each([
    [20, '19.999999999999999999', { mensaje: NUMBER_MENSAJES.dosDecimales }],
    [20.001, '20.001', { mensaje: NUMBER_MENSAJES.dosDecimales }],
    [100, '1e2', { ok: '100.00' }],
    [0.1, '0.1', { ok: '0.10' }],
    [19.9, '19.90', { ok: '19.90' }],
    [99999999.99, '99999999.99', { ok: '99999999.99' }],
    [100000000, '100000000', { mensaje: NUMBER_MENSAJES.precioMaximo }],
    [Infinity, `1${'0'.repeat(400)}`, { mensaje: NUMBER_MENSAJES.demasiadoLargo }],
  ])('the Float %d written as %s is judged by its text, as REST judges it', (precio, texto, verdict) => {
    expect(precioFromNumberText(texto)).toEqual(verdict);
    const outcomes = [
      () => toProductoInput({ nombre: 'x', precio, cantidad: 1 }, { precio: texto }).precio,
      () => toProductoUpdate({ id: '1', precio }, { precio: texto }).patch.precio,
    ];
    for (const outcome of outcomes) {
      if ('ok' in verdict) expect(outcome()).toBe(verdict.ok);
      else expect(violationsOf(outcome)).toEqual([{ campo: 'precio', mensaje: verdict.mensaje }]);
    }
  });

  it('the stock is judged by its text too: an Int variable written 19.999999999999999999 is not whole', () => {
    expect(
      violationsOf(() =>
        toProductoInput({ nombre: 'x', precio: 1, cantidad: 20 }, { cantidad: '19.999999999999999999' }),
      ),
    ).toEqual([{ campo: 'cantidad', mensaje: NUMBER_MENSAJES.entero }]);
    expect(toProductoUpdate({ id: '1', cantidad: 100 }, { cantidad: '1e2' }).patch.cantidadEnStock).toBe(100);
  });

  it('names every bad number of one input at once', () => {
    expect(
      violationsOf(() => toProductoInput({ nombre: 'x', precio: -1, cantidad: -2 }, { precio: '-1', cantidad: '-2' })),
    ).toEqual([
      { campo: 'precio', mensaje: NUMBER_MENSAJES.negativo },
      { campo: 'cantidad', mensaje: NUMBER_MENSAJES.negativo },
    ]);
  });

  it('without a text (a caller other than HTTP), the Float is judged by its shortest text', () => {
    expect(toProductoInput({ nombre: 'x', precio: 19.9, cantidad: 1 }).precio).toBe('19.90');
    expect(violationsOf(() => toProductoUpdate({ id: '1', precio: 1.005 }))).toEqual([
      { campo: 'precio', mensaje: NUMBER_MENSAJES.dosDecimales },
    ]);
  });
});

describe('GraphQL product inputs', () => {
  it('maps a create input to the REST form (cantidad is cantidadEnStock, absent optionals are null)', () => {
    expect(toProductoInput({ nombre: 'Tornillo', precio: 0.25, cantidad: 500 })).toEqual({
      nombre: 'Tornillo',
      descripcion: null,
      precio: '0.25',
      cantidadEnStock: 500,
      bodegaId: null,
    });
    expect(
      toProductoInput({ nombre: 'Tornillo', descripcion: 'M6', precio: 1, cantidad: 0, bodegaId: '3' }),
    ).toMatchObject({
      descripcion: 'M6',
      bodegaId: 3,
    });
  });

  it('refuses a create input whose bodegaId is not an id', () => {
    expect(violationsOf(() => toProductoInput({ nombre: 'x', precio: 1, cantidad: 1, bodegaId: 'abc' }))).toEqual([
      { campo: 'bodegaId', mensaje: 'debe ser un entero positivo' },
    ]);
  });

  it('an update carries only the fields present; null clears descripcion and bodegaId', () => {
    expect(toProductoUpdate({ id: '5', cantidad: 3 })).toEqual({ id: 5, patch: { cantidadEnStock: 3 } });
    expect(toProductoUpdate({ id: '5', descripcion: null, bodegaId: null })).toEqual({
      id: 5,
      patch: { descripcion: null, bodegaId: null },
    });
    expect(toProductoUpdate({ id: '5', precio: 2.5, nombre: 'Otro', bodegaId: '2' })).toEqual({
      id: 5,
      patch: { precio: '2.50', nombre: 'Otro', bodegaId: 2 },
    });
  });

  it('an update names every bad field at once: a bad id, and null for fields that cannot be null', () => {
    expect(violationsOf(() => toProductoUpdate({ id: 'abc', nombre: null, precio: null, cantidad: null }))).toEqual([
      { campo: 'id', mensaje: 'debe ser un entero positivo' },
      { campo: 'nombre', mensaje: 'no puede ser null' },
      { campo: 'precio', mensaje: 'no puede ser null' },
      { campo: 'cantidad', mensaje: 'no puede ser null' },
    ]);
  });

  it('an update with nothing to change is refused, naming the GraphQL fields it admits', () => {
    expect(violationsOf(() => toProductoUpdate({ id: '5' }))).toEqual([
      { campo: 'input', mensaje: expect.stringContaining('nombre, descripcion, precio, cantidad, bodegaId') },
    ]);
  });
});

describe('GraphQL warehouse inputs', () => {
  it('a create without capacidad (or with null) gets the default of 1000', () => {
    expect(toBodegaInput({ nombre: 'Central', ubicacion: 'Madrid' })).toEqual({
      nombre: 'Central',
      ubicacion: 'Madrid',
      capacidad: 1000,
    });
    expect(toBodegaInput({ nombre: 'Central', ubicacion: 'Madrid', capacidad: null }).capacidad).toBe(1000);
    expect(toBodegaInput({ nombre: 'Central', ubicacion: 'Madrid', capacidad: 0 }).capacidad).toBe(0);
  });

  it('an update carries only the fields present; null clears ubicacion but not nombre or capacidad', () => {
    expect(toBodegaUpdate({ id: '2', ubicacion: null })).toEqual({ id: 2, patch: { ubicacion: null } });
    expect(violationsOf(() => toBodegaUpdate({ id: '2', nombre: null, capacidad: null }))).toEqual([
      { campo: 'nombre', mensaje: 'no puede ser null' },
      { campo: 'capacidad', mensaje: 'no puede ser null' },
    ]);
    expect(violationsOf(() => toBodegaUpdate({ id: '2' }))).toEqual([
      { campo: 'input', mensaje: expect.stringContaining('nombre, ubicacion, capacidad') },
    ]);
  });
});

describe('GraphQL inputs the services would receive altered', () => {
  const malFormado = FIELD_MENSAJES.malFormado;

  it('a lone UTF-16 surrogate in any text field is refused, naming every such field', () => {
    expect(
      violationsOf(() => toProductoInput({ nombre: 'a\ud800', descripcion: '\udc00b', precio: 1, cantidad: 1 })),
    ).toEqual([
      { campo: 'nombre', mensaje: malFormado },
      { campo: 'descripcion', mensaje: malFormado },
    ]);
    expect(violationsOf(() => toProductoUpdate({ id: '1', nombre: '\ud83d', descripcion: 'ok' }))).toEqual([
      { campo: 'nombre', mensaje: malFormado },
    ]);
    expect(violationsOf(() => toBodegaInput({ nombre: 'Central', ubicacion: 'Nave \udfff' }))).toEqual([
      { campo: 'ubicacion', mensaje: malFormado },
    ]);
    expect(violationsOf(() => toBodegaUpdate({ id: '1', nombre: '\ud800', ubicacion: '\ud800' }))).toEqual([
      { campo: 'nombre', mensaje: malFormado },
      { campo: 'ubicacion', mensaje: malFormado },
    ]);
  });

  it('well-formed text outside the BMP (a surrogate pair) is passed on as is', () => {
    expect(toBodegaInput({ nombre: 'Bodega 🍎', ubicacion: '𝔐adrid' })).toMatchObject({
      nombre: 'Bodega 🍎',
      ubicacion: '𝔐adrid',
    });
  });
});

describe('mutation failure texts', () => {
  const producto = (id: number): Producto => ({
    id,
    nombre: `P${id}`,
    descripcion: null,
    precio: '1.00',
    cantidadEnStock: 1,
    bodegaId: 3,
    fechaCreacion: '2026-01-01T00:00:00',
    fechaActualizacion: '2026-01-01T00:00:00',
    version: 1,
  });

  it('a validation failure names each field by its GraphQL name', () => {
    const err = new InvalidArgumentError([
      { campo: 'nombre', mensaje: 'es obligatorio' },
      { campo: 'cantidadEnStock', mensaje: 'debe ser un entero >= 0' },
    ]);
    expect(failureText(err)).toBe('nombre: es obligatorio; cantidad: debe ser un entero >= 0');
  });

  it('a warehouse that holds products says which ones (at most 10) and what to do', () => {
    const two = failureText(new BodegaConProductosError(3, [producto(4), producto(5)]));
    expect(two).toBe(
      'La bodega 3 tiene 2 producto(s) asignado(s) (ids 4, 5); reasígnelos o elimínelos antes de eliminar la bodega',
    );
    const many = failureText(
      new BodegaConProductosError(
        3,
        Array.from({ length: 12 }, (_, i) => producto(i + 1)),
      ),
    );
    expect(many).toContain('12 producto(s) asignado(s) (ids 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …)');
  });

  it('a missing record or an unavailable service keeps its message', () => {
    expect(failureText(new NotFoundError('No existe el producto 9'))).toBe('No existe el producto 9');
    expect(failureText(new ServicioNoDisponibleError('producto-svc', 10))).toContain('producto-svc no está disponible');
  });

  it('a deadline warns that the write may have been applied', () => {
    expect(failureText(new DeadlineExceededError('bodega-svc'))).toContain('la operación pudo haberse aplicado');
  });

  it('an unexpected error is not a failure text (it propagates as an internal error)', () => {
    expect(failureText(new TypeError('x is undefined'))).toBeUndefined();
  });
});
