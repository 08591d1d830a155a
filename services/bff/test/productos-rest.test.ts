/**
 * /api/productos end to end (docs/contract.md §2): the BFF over real
 * producto-svc and bodega-svc, MariaDB and NATS.
 */
import { MENSAJES } from '../src/http/rest-fields';
import { FIELD_MENSAJES } from '@inventario/platform';
import { crearBodega, crearProducto, uniqueNombre } from '@inventario/testkit';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_productos');
});

afterAll(async () => {
  await stack?.close();
});

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** The ids of the products in the whole list right now. */
async function listedIds(): Promise<number[]> {
  const res = await stack.request('GET', '/api/productos');
  expect(res.status).toBe(200);
  return (res.body as { id: number }[]).map((p) => p.id);
}

describe('POST /api/productos', () => {
  test('creates the product: 201, the product with its id at the top level, and a Location header', async () => {
    const bodegaId = await crearBodega(stack);
    const nombre = uniqueNombre('Tornillo');
    const res = await stack.request('POST', '/api/productos', {
      body: { nombre, descripcion: 'M6 x 20', precio: 0.25, cantidadEnStock: 500, bodegaId },
    });

    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.any(Number),
      nombre,
      descripcion: 'M6 x 20',
      precio: 0.25,
      cantidadEnStock: 500,
      bodegaId,
      fechaCreacion: expect.stringMatching(TIMESTAMP),
      fechaActualizacion: expect.stringMatching(TIMESTAMP),
      version: 1,
    });
    expect(res.body.fechaActualizacion).toBe(res.body.fechaCreacion);
    expect(res.headers.get('location')).toBe(`/api/productos/${res.body.id}`);

    const read = await stack.request('GET', `/api/productos/${res.body.id}`);
    expect(read.body).toEqual(res.body);
  });

  test('the /api/v1 alias creates too and answers a /api/v1 Location', async () => {
    const res = await stack.request('POST', '/api/v1/productos', {
      body: { nombre: uniqueNombre('Alias'), precio: 1, cantidadEnStock: 0 },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/productos/${res.body.id}`);
  });

  test('precio keeps the exact decimals the client wrote, as a JSON number', async () => {
    const res = await stack.request('POST', '/api/productos', {
      rawBody: `{"nombre":"${uniqueNombre('Exacto')}","precio":99999999.99,"cantidadEnStock":1}`,
    });
    expect(res.status).toBe(201);
    expect(res.text).toContain('"precio":99999999.99');

    const tenths = await stack.request('POST', '/api/productos', {
      rawBody: `{"nombre":"${uniqueNombre('Decimos')}","precio":19.9,"cantidadEnStock":1}`,
    });
    expect(tenths.text).toContain('"precio":19.90');
  });

  test('a price with more than 2 decimals is rejected, never rounded, and nothing is created', async () => {
    const before = await listedIds();
    const res = await stack.request('POST', '/api/productos', {
      rawBody: `{"nombre":"${uniqueNombre('Redondeo')}","precio":19.999999999999999999,"cantidadEnStock":1}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'VALIDATION_ERROR',
      mensaje: expect.any(String),
      detalles: [{ campo: 'precio', mensaje: 'admite como máximo 2 decimales' }],
    });
    expect(await listedIds()).toEqual(before);
  });

  test.each([
    ['nombre missing', { precio: 1, cantidadEnStock: 1 }, 'nombre', 'es obligatorio'],
    ['nombre null', { nombre: null, precio: 1, cantidadEnStock: 1 }, 'nombre', 'es obligatorio'],
    ['nombre blank', { nombre: '   ', precio: 1, cantidadEnStock: 1 }, 'nombre', 'no puede estar en blanco'],
    [
      'nombre over 255 characters',
      { nombre: 'x'.repeat(256), precio: 1, cantidadEnStock: 1 },
      'nombre',
      'no puede superar 255 caracteres',
    ],
    ['nombre not text', { nombre: 42, precio: 1, cantidadEnStock: 1 }, 'nombre', 'debe ser texto'],
    [
      'descripcion not text',
      { nombre: 'x', descripcion: 5, precio: 1, cantidadEnStock: 1 },
      'descripcion',
      'debe ser texto',
    ],
    ['precio missing', { nombre: 'x', cantidadEnStock: 1 }, 'precio', 'es obligatorio'],
    ['precio as a string', { nombre: 'x', precio: '19.90', cantidadEnStock: 1 }, 'precio', 'debe ser un número'],
    ['precio negative', { nombre: 'x', precio: -0.01, cantidadEnStock: 1 }, 'precio', 'no puede ser negativo'],
    [
      'precio over 99999999.99',
      { nombre: 'x', precio: 100000000, cantidadEnStock: 1 },
      'precio',
      'no puede superar 99999999.99',
    ],
    [
      'precio with 3 decimals',
      { nombre: 'x', precio: 1.001, cantidadEnStock: 1 },
      'precio',
      'admite como máximo 2 decimales',
    ],
    ['cantidadEnStock missing', { nombre: 'x', precio: 1 }, 'cantidadEnStock', 'es obligatorio'],
    [
      'cantidadEnStock fractional',
      { nombre: 'x', precio: 1, cantidadEnStock: 1.5 },
      'cantidadEnStock',
      'debe ser un número entero',
    ],
    [
      'cantidadEnStock negative',
      { nombre: 'x', precio: 1, cantidadEnStock: -1 },
      'cantidadEnStock',
      'no puede ser negativo',
    ],
    [
      'cantidadEnStock as a string',
      { nombre: 'x', precio: 1, cantidadEnStock: '5' },
      'cantidadEnStock',
      'debe ser un número',
    ],
    [
      'cantidadEnStock beyond INT',
      { nombre: 'x', precio: 1, cantidadEnStock: 2147483648 },
      'cantidadEnStock',
      'no puede superar 2147483647',
    ],
    [
      'bodegaId zero',
      { nombre: 'x', precio: 1, cantidadEnStock: 1, bodegaId: 0 },
      'bodegaId',
      'debe ser un entero positivo',
    ],
    [
      'bodegaId as a string',
      { nombre: 'x', precio: 1, cantidadEnStock: 1, bodegaId: '1' },
      'bodegaId',
      'debe ser un número',
    ],
    [
      'an unknown field',
      { nombre: 'x', precio: 1, cantidadEnStock: 1, cantidad: 3 },
      'cantidad',
      'no es un campo admitido',
    ],
    [
      'nombre with a lone UTF-16 surrogate',
      { nombre: 'Caja \ud800', precio: 1, cantidadEnStock: 1 },
      'nombre',
      FIELD_MENSAJES.malFormado,
    ],
    [
      'descripcion with a lone UTF-16 surrogate',
      { nombre: 'x', descripcion: '\udfff', precio: 1, cantidadEnStock: 1 },
      'descripcion',
      FIELD_MENSAJES.malFormado,
    ],
  ])('%s: 400 naming the field', async (_case, body, campo, mensaje) => {
    const res = await stack.request('POST', '/api/productos', { body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.detalles).toEqual([{ campo, mensaje }]);
  });

  test('every offending field is named at once', async () => {
    const res = await stack.request('POST', '/api/productos', {
      body: { nombre: '', precio: 'caro', cantidadEnStock: -2 },
    });
    expect(res.status).toBe(400);
    expect((res.body.detalles as { campo: string }[]).map((d) => d.campo).sort()).toEqual([
      'cantidadEnStock',
      'nombre',
      'precio',
    ]);
  });

  test('a bodegaId that names no warehouse is 400 on bodegaId, and nothing is created', async () => {
    const before = await listedIds();
    const res = await stack.request('POST', '/api/productos', {
      body: { nombre: 'Huérfano', precio: 1, cantidadEnStock: 1, bodegaId: 999999 },
    });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo: 'bodegaId', mensaje: 'no existe la bodega 999999' }]);
    expect(await listedIds()).toEqual(before);
  });

  test('a body that is not a JSON object, or no body at all, is 400 on cuerpo', async () => {
    for (const rawBody of ['[1,2]', '"texto"', 'null', '']) {
      const res = await stack.request('POST', '/api/productos', { rawBody });
      expect(res.status).toBe(400);
      expect(res.body.detalles[0].campo).toBe('cuerpo');
    }
  });

  test('read-only fields in the body are ignored: the service assigns id and dates', async () => {
    const res = await stack.request('POST', '/api/productos', {
      body: {
        id: 777777,
        nombre: uniqueNombre('Eco'),
        precio: 2,
        cantidadEnStock: 2,
        fechaCreacion: '2000-01-01T00:00:00',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(777777);
    expect(res.body.fechaCreacion).not.toBe('2000-01-01T00:00:00');
  });
});

describe('GET /api/productos/{id}', () => {
  test('an unknown id is 404 with a JSON error', async () => {
    const res = await stack.request('GET', '/api/productos/999999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'NOT_FOUND', mensaje: expect.stringContaining('999999') });
  });

  test.each(['abc', '0', '-1', '1.5', '4294967296', '1e3', '%zz', '%'])('id %s is 400 naming id', async (id) => {
    const res = await stack.request('GET', `/api/productos/${id}`);
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo: 'id', mensaje: expect.any(String) }]);
  });
});

describe('GET /api/productos', () => {
  test('without parameters answers the whole list, beyond one page of the service', async () => {
    // producto-svc serves 100 per page by default: the BFF must follow the pages.
    const created = await Promise.all(
      Array.from({ length: 105 }, () => crearProducto(stack, { nombre: uniqueNombre('Lote') })),
    );
    const ids = await listedIds();
    for (const p of created) expect(ids).toContain(p.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test('limit, offset, bodegaId and q filter the list', async () => {
    const bodegaId = await crearBodega(stack);
    const marca = uniqueNombre('Filtro').replace(/\s/g, '');
    const enBodega = [];
    for (let i = 0; i < 4; i++) enBodega.push(await crearProducto(stack, { nombre: `${marca}-${i}`, bodegaId }));
    await crearProducto(stack, { nombre: `${marca}-fuera` });

    const porBodega = await stack.request('GET', `/api/productos?bodegaId=${bodegaId}`);
    expect((porBodega.body as { id: number }[]).map((p) => p.id)).toEqual(enBodega.map((p) => p.id));

    const porNombre = await stack.request('GET', `/api/productos?q=${encodeURIComponent(marca.toUpperCase())}`);
    expect(porNombre.body).toHaveLength(5);

    const pagina = await stack.request('GET', `/api/v1/productos?bodegaId=${bodegaId}&limit=2&offset=1`);
    expect(pagina.status).toBe(200);
    expect((pagina.body as { id: number }[]).map((p) => p.id)).toEqual([enBodega[1]!.id, enBodega[2]!.id]);

    const vacia = await stack.request('GET', `/api/productos?q=${encodeURIComponent(marca)}&offset=50`);
    expect(vacia.body).toEqual([]);
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1.5', 'offset'],
    ['bodegaId=0', 'bodegaId'],
    ['bodegaId=x', 'bodegaId'],
    ['q=<256 characters>', 'q'],
    ['bodegaid=13', 'bodegaid'],
    ['bodegaId[]=1', 'bodegaId[]'],
    ['limit[]=1', 'limit[]'],
    ['limit=5&pagina=2', 'pagina'],
  ])('?%s is 400 naming %s', async (query, campo) => {
    const res = await stack.request('GET', `/api/productos?${query.replace('<256 characters>', 'x'.repeat(256))}`);
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo, mensaje: expect.any(String) }]);
  });
});

describe('PUT /api/productos/{id}', () => {
  test('changes only the fields present; the others keep their value', async () => {
    const p = await crearProducto(stack, { descripcion: 'original', cantidadEnStock: 9 });
    const res = await stack.request('PUT', `/api/productos/${p.id}`, { rawBody: '{"precio":12.30}' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...p, precio: 12.3, fechaActualizacion: expect.stringMatching(TIMESTAMP), version: 2 });
    expect(res.text).toContain('"precio":12.30');
  });

  test('read-only fields are ignored, so a client may send back the whole resource', async () => {
    const p = await crearProducto(stack);
    const res = await stack.request('PUT', `/api/v1/productos/${p.id}`, {
      body: { ...p, id: 1, fechaCreacion: '2000-01-01T00:00:00', nombre: `${p.nombre} v2` },
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(p.id);
    expect(res.body.fechaCreacion).toBe(p.fechaCreacion);
    expect(res.body.nombre).toBe(`${p.nombre} v2`);
  });

  test('null clears descripcion and bodegaId; a new bodegaId must exist', async () => {
    const bodegaId = await crearBodega(stack);
    const p = await crearProducto(stack, { descripcion: 'algo', bodegaId });
    const cleared = await stack.request('PUT', `/api/productos/${p.id}`, {
      body: { descripcion: null, bodegaId: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ descripcion: null, bodegaId: null });

    const missing = await stack.request('PUT', `/api/productos/${p.id}`, { body: { bodegaId: 999999 } });
    expect(missing.status).toBe(400);
    expect(missing.body.detalles).toEqual([{ campo: 'bodegaId', mensaje: 'no existe la bodega 999999' }]);

    const assigned = await stack.request('PUT', `/api/productos/${p.id}`, { body: { bodegaId } });
    expect(assigned.body.bodegaId).toBe(bodegaId);
  });

  test('a body with no updatable field is 400, even when it carries read-only fields', async () => {
    const p = await crearProducto(stack);
    for (const body of [{}, { id: p.id, fechaCreacion: p.fechaCreacion }]) {
      const res = await stack.request('PUT', `/api/productos/${p.id}`, { body });
      expect(res.status).toBe(400);
      expect(res.body.detalles).toEqual([
        { campo: 'cuerpo', mensaje: expect.stringContaining('ningún campo actualizable') },
      ]);
    }
  });

  test('an invalid value is 400 naming it, and the product is unchanged', async () => {
    const p = await crearProducto(stack);
    const res = await stack.request('PUT', `/api/productos/${p.id}`, { body: { nombre: '', precio: 1.234 } });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([
      { campo: 'nombre', mensaje: 'no puede estar en blanco' },
      { campo: 'precio', mensaje: 'admite como máximo 2 decimales' },
    ]);
    expect((await stack.request('GET', `/api/productos/${p.id}`)).body).toEqual(p);
  });

  test('null for a field that cannot be null is 400 saying so (absent keeps the value)', async () => {
    const p = await crearProducto(stack);
    const res = await stack.request('PUT', `/api/productos/${p.id}`, {
      body: { nombre: null, precio: null, cantidadEnStock: null },
    });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([
      { campo: 'nombre', mensaje: MENSAJES.noNulo },
      { campo: 'precio', mensaje: MENSAJES.noNulo },
      { campo: 'cantidadEnStock', mensaje: MENSAJES.noNulo },
    ]);
    expect((await stack.request('GET', `/api/productos/${p.id}`)).body).toEqual(p);
  });

  test('a lone UTF-16 surrogate is 400 naming the field, and nothing changes (it would be stored as U+FFFD)', async () => {
    const p = await crearProducto(stack);
    const res = await stack.request('PUT', `/api/productos/${p.id}`, { rawBody: '{"nombre":"Caja \\ud800"}' });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo: 'nombre', mensaje: FIELD_MENSAJES.malFormado }]);
    expect((await stack.request('GET', `/api/productos/${p.id}`)).body).toEqual(p);
  });

  test('a bad id and a bad body are named together', async () => {
    const res = await stack.request('PUT', '/api/productos/cero', { body: { cantidadEnStock: -1 } });
    expect(res.status).toBe(400);
    expect((res.body.detalles as { campo: string }[]).map((d) => d.campo)).toEqual(['id', 'cantidadEnStock']);
  });

  test('an unknown id is 404', async () => {
    const res = await stack.request('PUT', '/api/productos/999999', { body: { cantidadEnStock: 1 } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
  });
});

describe('DELETE /api/productos/{id}', () => {
  test('answers 204 with an empty body; the product is gone', async () => {
    const p = await crearProducto(stack);
    const res = await stack.request('DELETE', `/api/productos/${p.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await stack.request('GET', `/api/productos/${p.id}`)).status).toBe(404);
    expect((await stack.request('DELETE', `/api/productos/${p.id}`)).status).toBe(404);
  });
});

describe('events', () => {
  test('each REST write publishes one event carrying the Basic-auth user; rejected writes publish none', async () => {
    const p = await crearProducto(stack);
    await stack.request('PUT', `/api/productos/${p.id}`, { body: { cantidadEnStock: 4 } });
    await stack.request('PUT', `/api/productos/${p.id}`, { body: { cantidadEnStock: -4 } });
    await stack.request('DELETE', `/api/productos/${p.id}`);

    const events = (await stack.settledEvents()).filter((e) => e.body.subject === `/productos/${p.id}`);
    expect(events.map((e) => e.body.eventType)).toEqual([
      'Service.Inventario.ProductoCreado',
      'Service.Inventario.ProductoActualizado',
      'Service.Inventario.ProductoEliminado',
    ]);
    for (const e of events) expect(e.body.data.usuario).toBe('tester');
  });
});
