/**
 * The exact answers to a table of malformed writes, through REST and
 * GraphQL, against the whole back end: which fields each answer names, in
 * which order, with which words (docs/contract.md §2.5, §4.4, §10.2). The
 * expected answers are in fixtures/validation-answers.json; a change to a
 * field rule or a message shows up here as a diff of that file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crearBodega, crearProducto } from '@inventario/testkit';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
let bodegaId: number;
let productoId: number;

beforeAll(async () => {
  stack = await startTestStack('bff_validation');
  bodegaId = await crearBodega(stack, { nombre: 'Validación', capacidad: 100 });
  productoId = (await crearProducto(stack, { nombre: 'Validado' })).id;
});

afterAll(async () => {
  await stack?.close();
});

const largo = (n: number, c = 'n') => c.repeat(n);

/** [name, method, path ({b}: a warehouse id, {p}: a product id), raw JSON body] */
const REST: [string, string, string, string][] = [
  ['producto vacío', 'POST', '/api/productos', '{}'],
  ['producto sin cuerpo objeto', 'POST', '/api/productos', '[1]'],
  ['producto null', 'POST', '/api/productos', 'null'],
  [
    'producto con tipos cambiados',
    'POST',
    '/api/productos',
    '{"nombre":5,"descripcion":5,"precio":"1","cantidadEnStock":"3","bodegaId":"1"}',
  ],
  [
    'producto en blanco y negativos',
    'POST',
    '/api/productos',
    '{"nombre":"","precio":-0.01,"cantidadEnStock":-1,"bodegaId":0}',
  ],
  [
    'producto decimales',
    'POST',
    '/api/productos',
    '{"nombre":"   ","precio":1.005,"cantidadEnStock":1.5,"bodegaId":1.5}',
  ],
  [
    'producto máximos',
    'POST',
    '/api/productos',
    `{"nombre":"${largo(256)}","precio":100000000,"cantidadEnStock":2147483648,"bodegaId":4294967296}`,
  ],
  [
    'producto números raros',
    'POST',
    '/api/productos',
    `{"nombre":"x","precio":1e-3,"cantidadEnStock":1e400,"bodegaId":-1}`,
  ],
  ['producto número largo', 'POST', '/api/productos', `{"nombre":"x","precio":1${largo(70, '0')},"cantidadEnStock":1}`],
  [
    'producto nulls',
    'POST',
    '/api/productos',
    '{"nombre":null,"descripcion":null,"precio":null,"cantidadEnStock":null,"bodegaId":null}',
  ],
  [
    'producto desconocidos y solo lectura',
    'POST',
    '/api/productos',
    '{"nombre":"x","precio":1,"cantidadEnStock":1,"foo":1,"id":3,"ocupacion":1}',
  ],
  [
    'producto sustituto suelto',
    'POST',
    '/api/productos',
    '{"nombre":"a\\ud800","descripcion":"\\udc00","precio":1,"cantidadEnStock":1}',
  ],
  [
    'producto bodega inexistente',
    'POST',
    '/api/productos',
    '{"nombre":"x","precio":1,"cantidadEnStock":1,"bodegaId":999999}',
  ],
  ['producto precio -0 y nombre en blanco', 'PUT', '/api/productos/{p}', '{"precio":-0,"nombre":"  "}'],
  ['actualizar producto vacío', 'PUT', '/api/productos/{p}', '{}'],
  ['actualizar producto solo lectura', 'PUT', '/api/productos/{p}', '{"version":3,"id":1}'],
  [
    'actualizar producto nulls',
    'PUT',
    '/api/productos/{p}',
    '{"nombre":null,"precio":null,"cantidadEnStock":null,"descripcion":null,"bodegaId":null}',
  ],
  ['actualizar producto malos', 'PUT', '/api/productos/{p}', '{"precio":"2","bodegaId":-1,"x":1,"descripcion":[]}'],
  ['bodega vacía', 'POST', '/api/bodegas', '{}'],
  ['bodega mala', 'POST', '/api/bodegas', '{"nombre":" ","capacidad":-1,"ubicacion":5}'],
  ['bodega decimales', 'POST', '/api/bodegas', '{"nombre":"","capacidad":1.5,"ocupacion":3}'],
  ['bodega máximos', 'POST', '/api/bodegas', `{"nombre":"x","ubicacion":"${largo(256, 'u')}","capacidad":2147483648}`],
  ['bodega nulls', 'POST', '/api/bodegas', '{"nombre":null,"ubicacion":null,"capacidad":null}'],
  ['actualizar bodega vacía', 'PUT', '/api/bodegas/{b}', '{"ocupacion":1}'],
  ['actualizar bodega nulls', 'PUT', '/api/bodegas/{b}', '{"nombre":null,"capacidad":null,"ubicacion":null}'],
  ['actualizar bodega mala', 'PUT', '/api/bodegas/{b}', '{"capacidad":-5,"nombre":"","ubicacion":"\\ud800"}'],
  ['asignación vacía', 'POST', '/api/bodegas/{b}/productos', '{}'],
  ['asignación mala', 'POST', '/api/bodegas/{b}/productos', '{"productoId":0,"cantidad":-1,"umbralMinimo":1.5}'],
  [
    'asignación tipos',
    'POST',
    '/api/bodegas/{b}/productos',
    '{"productoId":"1","cantidad":null,"umbralMinimo":"2","x":2}',
  ],
  ['movimiento vacío', 'POST', '/api/bodegas/{b}/movimientos', '{}'],
  [
    'movimiento transferencia',
    'POST',
    '/api/bodegas/{b}/movimientos',
    '{"productoId":1,"tipo":"TRANSFERENCIA","cantidad":0}',
  ],
  [
    'movimiento motivo ajeno',
    'POST',
    '/api/bodegas/{b}/movimientos',
    '{"productoId":1,"tipo":"ENTRADA","cantidad":0,"motivo":"VENTA"}',
  ],
  [
    'movimiento motivo desconocido',
    'POST',
    '/api/bodegas/{b}/movimientos',
    `{"productoId":-1,"tipo":"SALIDA","cantidad":1,"motivo":"REGALO","comentario":"${largo(501)}"}`,
  ],
  [
    'movimiento ajuste negativo',
    'POST',
    '/api/bodegas/{b}/movimientos',
    '{"productoId":1,"tipo":"AJUSTE","cantidad":-1,"comentario":5}',
  ],
  [
    'movimiento tipo nulo',
    'POST',
    '/api/bodegas/{b}/movimientos',
    '{"productoId":1,"tipo":null,"cantidad":1,"motivo":null}',
  ],
  ['transferencia vacía', 'POST', '/api/transferencias', '{}'],
  [
    'transferencia misma bodega',
    'POST',
    '/api/transferencias',
    '{"productoId":1,"origenId":2,"destinoId":2,"cantidad":0}',
  ],
  [
    'transferencia tipos',
    'POST',
    '/api/transferencias',
    '{"productoId":-1,"origenId":1.5,"destinoId":"3","cantidad":1,"comentario":5}',
  ],
  ['reverso comentario', 'POST', '/api/operaciones/1/reverso', '{"comentario":5}'],
  ['reverso desconocido', 'POST', '/api/operaciones/1/reverso', '{"x":1}'],
  ['reverso no objeto', 'POST', '/api/operaciones/1/reverso', '[]'],
];

/** [name, document ({b}, {p} as above)] */
const GRAPHQL: [string, string][] = [
  [
    'crear producto en blanco',
    'mutation { crearProducto(input: {nombre: "", precio: -1, cantidad: -2}) { success error } }',
  ],
  [
    'crear producto decimales',
    'mutation { crearProducto(input: {nombre: "  ", precio: 1.005, cantidad: 1, bodegaId: "abc"}) { success error } }',
  ],
  [
    'crear producto máximos',
    `mutation { crearProducto(input: {nombre: "${largo(256)}", precio: 100000000, cantidad: 1}) { success error } }`,
  ],
  [
    'crear producto exponente',
    'mutation { crearProducto(input: {nombre: "\\ud800", descripcion: "\\udc00", precio: 1e-3, cantidad: 1}) { success error } }',
  ],
  [
    'crear producto bodega inexistente',
    'mutation { crearProducto(input: {nombre: "x", precio: 1, cantidad: 1, bodegaId: "999999"}) { success error } }',
  ],
  [
    'crear producto clave mala',
    'mutation { crearProducto(input: {nombre: "", precio: 1, cantidad: 1}, idempotencyKey: "") { success error } }',
  ],
  [
    'actualizar producto nulls',
    'mutation { actualizarProducto(input: {id: "abc", nombre: null, precio: null, cantidad: null}) { success error } }',
  ],
  ['actualizar producto vacío', 'mutation { actualizarProducto(input: {id: "{p}"}) { success error } }'],
  [
    'actualizar producto versión',
    'mutation { actualizarProducto(input: {id: "{p}", nombre: "", version: 0}) { success error } }',
  ],
  [
    'actualizar producto malos',
    'mutation { actualizarProducto(input: {id: "{p}", precio: -0.5, cantidad: 1.5e0, bodegaId: "0"}) { success error } }',
  ],
  ['eliminar producto', 'mutation { eliminarProducto(id: "-1", idempotencyKey: "", version: 0) { success error } }'],
  [
    'crear bodega mala',
    'mutation { crearBodega(input: {nombre: "", ubicacion: "x", capacidad: -1}) { success error } }',
  ],
  [
    'crear bodega larga',
    `mutation { crearBodega(input: {nombre: "  ", ubicacion: "${largo(256, 'u')}"}) { success error } }`,
  ],
  [
    'actualizar bodega nulls',
    'mutation { actualizarBodega(input: {id: "{b}", nombre: null, capacidad: null}) { success error } }',
  ],
  ['actualizar bodega vacía', 'mutation { actualizarBodega(input: {id: "x"}) { success error } }'],
  [
    'actualizar bodega mala',
    'mutation { actualizarBodega(input: {id: "{b}", capacidad: -5, nombre: " "}) { success error } }',
  ],
  [
    'asignar mala',
    'mutation { asignarProductoABodega(bodegaId: "0", productoId: "x", cantidad: -1, umbralMinimo: -2) { success error } }',
  ],
  [
    'asignar decimal',
    'mutation { asignarProductoABodega(bodegaId: "{b}", productoId: "{p}", cantidad: 1.5, umbralMinimo: 1e40) { success error } }',
  ],
  [
    'retirar malo',
    'mutation { retirarProductoDeBodega(bodegaId: "1.0", productoId: "99999999999") { success error } }',
  ],
  [
    'movimiento transferencia',
    'mutation { registrarMovimiento(input: {bodegaId: "1", productoId: "0", tipo: "TRANSFERENCIA", cantidad: 0}) { success error } }',
  ],
  [
    'movimiento motivo ajeno',
    `mutation { registrarMovimiento(input: {bodegaId: "{b}", productoId: "{p}", tipo: "ENTRADA", cantidad: 0, motivo: "VENTA", comentario: "${largo(501)}"}) { success error } }`,
  ],
  [
    'movimiento motivo desconocido',
    'mutation { registrarMovimiento(input: {bodegaId: "{b}", productoId: "{p}", tipo: "SALIDA", cantidad: 1, motivo: "REGALO"}) { success error } }',
  ],
  [
    'movimiento ajuste sin versión',
    'mutation { registrarMovimiento(input: {bodegaId: "{b}", productoId: "{p}", tipo: "AJUSTE", cantidad: 0}) { success error } }',
  ],
  [
    'transferencia misma bodega',
    'mutation { transferirStock(input: {productoId: "1", origenId: "2", destinoId: "2", cantidad: 0}) { success error } }',
  ],
  [
    'transferencia mala',
    `mutation { transferirStock(input: {productoId: "x", origenId: "0", destinoId: "3", cantidad: -1, comentario: "${largo(501)}"}) { success error } }`,
  ],
  ['revertir malo', `mutation { revertirOperacion(id: "0", comentario: "${largo(501)}") { success error } }`],
  [
    'movimientos filtro malo',
    '{ movimientos(filtro: {tipo: "RETIRO", bodegaId: "0", productoId: "x"}) { siguienteCursor } }',
  ],
  ['existencia ids malos', '{ existencia(bodegaId: "0", productoId: "abc") { cantidad } }'],
  ['producto id malo', '{ producto(id: "1e3") { id } }'],
];

const withIds = (text: string) => text.replaceAll('{b}', String(bodegaId)).replaceAll('{p}', String(productoId));

async function answers(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, method, path, body] of REST) {
    const res = await stack.request(method, withIds(path), { rawBody: withIds(body) });
    out[`REST ${name}`] = { status: res.status, body: res.body };
  }
  for (const [name, document] of GRAPHQL) {
    const res = await stack.request('POST', '/api/graphql', {
      body: { query: withIds(document) },
      headers: { accept: 'application/json' },
    });
    const errors = (
      res.body.errors as { message: string; extensions?: { classification?: string } }[] | undefined
    )?.map((e) => ({
      message: e.message,
      classification: e.extensions?.classification,
    }));
    out[`GraphQL ${name}`] = { status: res.status, data: res.body.data, errors };
  }
  return out;
}

it('answers every malformed write with the same fields, order and words', async () => {
  const expected: unknown = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'validation-answers.json'), 'utf8'));
  expect(await answers()).toEqual(expected);
});
