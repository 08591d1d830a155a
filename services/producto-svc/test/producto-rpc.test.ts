import { status } from '@grpc/grpc-js';
import { fieldViolationsOf, PAGE_BYTE_BUDGET } from '@inventario/platform';
import { ListProductosResponse } from '@inventario/proto';
import { waitFor } from '@inventario/testkit';
import { rejectionOf, type ProductoApi } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

// Component test: the whole service on an ephemeral port, real MariaDB and NATS.

let svc: TestService;
let api: ProductoApi;

beforeAll(async () => {
  svc = await startTestService('producto_rpc');
  api = svc.api;
  await svc.app.ready;
});

afterAll(async () => {
  await svc?.close();
});

async function expectInvalid(call: Promise<unknown>, campo: string, mensaje?: string): Promise<void> {
  const err = await rejectionOf(call);
  expect(err.code).toBe(status.INVALID_ARGUMENT);
  const violations = fieldViolationsOf(err);
  expect(violations.map((v) => v.campo)).toContain(campo);
  if (mensaje !== undefined) expect(violations).toContainEqual({ campo, mensaje });
}

async function expectNotFound(call: Promise<unknown>): Promise<void> {
  expect((await rejectionOf(call)).code).toBe(status.NOT_FOUND);
}

describe('CreateProducto', () => {
  it('stores every field and answers the stored product, with fechaActualizacion equal to fechaCreacion', async () => {
    const { producto } = await api.create({
      nombre: 'Silla ergonómica',
      descripcion: 'Respaldo de malla',
      precio: '1234.5',
      cantidadEnStock: 7,
      bodegaId: 3,
    });
    expect(producto).toMatchObject({
      nombre: 'Silla ergonómica',
      descripcion: 'Respaldo de malla',
      precio: '1234.50',
      cantidadEnStock: 7,
      bodegaId: 3,
    });
    expect(producto?.id).toBeGreaterThan(0);
    expect(producto?.fechaCreacion).toBeInstanceOf(Date);
    expect(producto?.fechaCreacion?.getUTCMilliseconds()).toBe(0);
    expect(producto?.fechaActualizacion).toEqual(producto?.fechaCreacion);
    expect((await api.get(producto?.id ?? 0)).producto).toEqual(producto);
  });

  it('leaves descripcion and bodegaId unset when they are absent', async () => {
    const { producto } = await api.create({ nombre: 'Mesa', precio: '0', cantidadEnStock: 0 });
    expect(producto?.descripcion).toBeUndefined();
    expect(producto?.bodegaId).toBeUndefined();
    expect(producto?.precio).toBe('0.00');
  });

  it.each(['0.10', '12345678.99', '99999999.99'])(
    'keeps precio %s exactly, through storage and back',
    async (precio) => {
      const { producto } = await api.create({ nombre: `Precio ${precio}`, precio, cantidadEnStock: 1 });
      expect(producto?.precio).toBe(precio);
      expect((await api.get(producto?.id ?? 0)).producto?.precio).toBe(precio);
    },
  );

  // The BFF's rule (docs/contract.md §7.2): any exact decimal text, answered and stored canonical.
  it.each([
    ['1.500', '1.50'],
    ['-0', '0.00'],
    ['1e3', '1000.00'],
    ['1.5E2', '150.00'],
    ['1999e-2', '19.99'],
    ['007.50', '7.50'],
  ])('accepts precio %s as %s, through storage and back', async (precio, canonical) => {
    const { producto } = await api.create({ nombre: `Precio ${precio}`, precio, cantidadEnStock: 1 });
    expect(producto?.precio).toBe(canonical);
    expect((await api.get(producto?.id ?? 0)).producto?.precio).toBe(canonical);
    const { producto: updated } = await api.update({ producto: { id: producto?.id, precio }, updateMask: ['precio'] });
    expect(updated?.precio).toBe(canonical);
  });

  it('refuses other precio texts with the messages the BFF gives', async () => {
    await expectInvalid(
      api.create({ nombre: 'Texto', precio: 'diez', cantidadEnStock: 1 }),
      'precio',
      'debe ser un número',
    );
    await expectInvalid(
      api.create({ nombre: 'Punto', precio: '.5', cantidadEnStock: 1 }),
      'precio',
      'debe ser un número',
    );
    await expectInvalid(
      api.create({ nombre: 'Largo', precio: `1${'0'.repeat(64)}`, cantidadEnStock: 1 }),
      'precio',
      'tiene demasiados dígitos (como máximo 64 caracteres)',
    );
    await expectInvalid(
      api.create({ nombre: 'Doble', precio: '19.999999999999999999', cantidadEnStock: 1 }),
      'precio',
      'admite como máximo 2 decimales',
    );
  });

  it('answers INVALID_ARGUMENT naming every missing required field', async () => {
    const err = await rejectionOf(api.create({}));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err)).toEqual([
      { campo: 'nombre', mensaje: 'es obligatorio' },
      { campo: 'precio', mensaje: 'es obligatorio' },
      { campo: 'cantidadEnStock', mensaje: 'es obligatorio' },
    ]);
  });

  it.each([
    ['nombre', 'blank', { nombre: '   ' }],
    ['nombre', '256 characters', { nombre: 'x'.repeat(256) }],
    ['precio', 'negative', { precio: '-1' }],
    ['precio', 'with 3 decimals', { precio: '1.234' }],
    ['precio', 'above 99999999.99', { precio: '100000000' }],
    ['precio', 'with 3 decimals in exponent form', { precio: '1e-3' }],
    ['precio', 'not a number', { precio: 'abc' }],
    ['cantidadEnStock', 'negative', { cantidadEnStock: -1 }],
    ['bodegaId', '0 (no warehouse has it)', { bodegaId: 0 }],
  ])('answers INVALID_ARGUMENT naming %s when it is %s', async (campo, _case, override) => {
    await expectInvalid(api.create({ nombre: 'Válido', precio: '1.00', cantidadEnStock: 1, ...override }), campo);
  });
});

describe('GetProducto', () => {
  it('answers NOT_FOUND for an id that does not exist', async () => {
    await expectNotFound(api.get(999_999));
  });

  // Ids are uint32 on the wire, so 0 (what proto3 sends for a forgotten id) is the only invalid one.
  it('answers INVALID_ARGUMENT naming id for id 0', async () => {
    await expectInvalid(api.get(0), 'id', 'debe ser un entero positivo');
  });
});

describe('UpdateProducto', () => {
  async function seed(): Promise<number> {
    const { producto } = await api.create({
      nombre: 'Lámpara',
      descripcion: 'De pie',
      precio: '45.00',
      cantidadEnStock: 4,
      bodegaId: 8,
    });
    return producto?.id ?? 0;
  }

  it('changes only the fields named in the mask and keeps the others', async () => {
    const id = await seed();
    const { producto } = await api.update({
      producto: { id, nombre: 'ignorado', precio: '50.25', cantidadEnStock: 99 },
      updateMask: ['precio'],
    });
    expect(producto).toMatchObject({
      id,
      nombre: 'Lámpara',
      descripcion: 'De pie',
      precio: '50.25',
      cantidadEnStock: 4,
      bodegaId: 8,
    });
    expect((await api.get(id)).producto).toEqual(producto);
  });

  it('updates several fields at once', async () => {
    const id = await seed();
    const { producto } = await api.update({
      producto: { id, nombre: 'Lámpara LED', cantidadEnStock: 0, bodegaId: 12 },
      updateMask: ['nombre', 'cantidad_en_stock', 'bodega_id'],
    });
    expect(producto).toMatchObject({ nombre: 'Lámpara LED', cantidadEnStock: 0, bodegaId: 12, precio: '45.00' });
  });

  it('clears descripcion and bodegaId when the mask names them and they are absent', async () => {
    const id = await seed();
    const { producto } = await api.update({ producto: { id }, updateMask: ['descripcion', 'bodega_id'] });
    expect(producto?.descripcion).toBeUndefined();
    expect(producto?.bodegaId).toBeUndefined();
    expect(producto?.nombre).toBe('Lámpara');
  });

  it('ignores output-only paths in the mask', async () => {
    const id = await seed();
    const { producto } = await api.update({
      producto: { id: id, nombre: 'Otra' },
      updateMask: ['id', 'nombre', 'fecha_creacion'],
    });
    expect(producto).toMatchObject({ id, nombre: 'Otra' });
  });

  it('accepts camelCase mask paths as well as snake_case ones', async () => {
    const id = await seed();
    const { producto } = await api.update({
      producto: { id, cantidadEnStock: 9 },
      updateMask: ['cantidadEnStock', 'bodegaId', 'fechaActualizacion'],
    });
    expect(producto).toMatchObject({ id, cantidadEnStock: 9, nombre: 'Lámpara' });
    expect(producto?.bodegaId).toBeUndefined();
  });

  it('moves fechaActualizacion forward and keeps fechaCreacion', async () => {
    const { producto: created } = await api.create({ nombre: 'Reloj', precio: '10.00', cantidadEnStock: 1 });
    const creado = created?.fechaCreacion?.getTime() ?? 0;
    // Timestamps have whole-second precision: wait for the clock to pass the creation second.
    await waitFor(() => Date.now() >= creado + 1000, 'the next second');
    const { producto } = await api.update({
      producto: { id: created?.id, cantidadEnStock: 2 },
      updateMask: ['cantidad_en_stock'],
    });
    expect(producto?.fechaCreacion).toEqual(created?.fechaCreacion);
    expect(producto?.fechaActualizacion?.getTime()).toBeGreaterThan(creado);
  });

  it('answers INVALID_ARGUMENT for an empty mask', async () => {
    const id = await seed();
    await expectInvalid(
      api.update({ producto: { id, nombre: 'x' }, updateMask: [] }),
      'updateMask',
      'no hay campos para actualizar (admitidas: nombre, descripcion, precio, cantidad_en_stock, bodega_id)',
    );
    await expectInvalid(api.update({ producto: { id }, updateMask: ['fecha_actualizacion'] }), 'updateMask');
  });

  it('answers INVALID_ARGUMENT for an unknown mask path', async () => {
    const id = await seed();
    await expectInvalid(api.update({ producto: { id, nombre: 'x' }, updateMask: ['nombre', 'color'] }), 'updateMask');
  });

  it('answers INVALID_ARGUMENT when a masked field is invalid, and changes nothing', async () => {
    const id = await seed();
    await expectInvalid(
      api.update({ producto: { id, precio: '1.999' }, updateMask: ['precio'] }),
      'precio',
      'admite como máximo 2 decimales',
    );
    await expectInvalid(
      api.update({ producto: { id, nombre: '' }, updateMask: ['nombre'] }),
      'nombre',
      'es obligatorio',
    );
    expect((await api.get(id)).producto).toMatchObject({ nombre: 'Lámpara', precio: '45.00' });
  });

  it('answers INVALID_ARGUMENT naming id when the product has no id', async () => {
    await expectInvalid(api.update({ producto: { nombre: 'x' }, updateMask: ['nombre'] }), 'id');
  });

  it('answers NOT_FOUND for an id that does not exist', async () => {
    await expectNotFound(api.update({ producto: { id: 999_999, nombre: 'x' }, updateMask: ['nombre'] }));
  });
});

describe('DeleteProducto', () => {
  it('deletes the product; a second delete answers NOT_FOUND', async () => {
    const { producto } = await api.create({ nombre: 'Efímero', precio: '1.00', cantidadEnStock: 1 });
    const id = producto?.id ?? 0;
    await expect(api.delete(id)).resolves.toEqual({});
    await expectNotFound(api.get(id));
    await expectNotFound(api.delete(id));
  });

  it('answers INVALID_ARGUMENT naming id for id 0', async () => {
    await expectInvalid(api.delete(0), 'id');
  });
});

describe('UnassignBodega', () => {
  it('unassigns and returns the products of the warehouse; a second call returns none', async () => {
    const a = (await api.create({ nombre: 'A', precio: '1.00', cantidadEnStock: 1, bodegaId: 501 })).producto;
    const b = (await api.create({ nombre: 'B', precio: '2.00', cantidadEnStock: 2, bodegaId: 501 })).producto;
    const other = (await api.create({ nombre: 'C', precio: '3.00', cantidadEnStock: 3, bodegaId: 502 })).producto;

    const { productos } = await api.unassignBodega(501);
    expect(productos.map((p) => p.id)).toEqual([a?.id, b?.id]);
    expect(productos.every((p) => p.bodegaId === undefined)).toBe(true);
    expect((await api.get(a?.id ?? 0)).producto?.bodegaId).toBeUndefined();
    expect((await api.get(other?.id ?? 0)).producto?.bodegaId).toBe(502);

    expect((await api.unassignBodega(501)).productos).toEqual([]);
  });

  it('answers INVALID_ARGUMENT naming bodegaId for 0', async () => {
    await expectInvalid(api.unassignBodega(0), 'bodegaId');
  });
});

describe('ListProductos', () => {
  // Each case filters on warehouse ids of its own, so rows of other tests never interfere.
  async function createIn(bodegaId: number, nombres: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const nombre of nombres) {
      ids.push((await api.create({ nombre, precio: '1.00', cantidadEnStock: 1, bodegaId })).producto?.id ?? 0);
    }
    return ids;
  }

  it('walks several pages in id order with page_token, the last page has no token', async () => {
    const ids = await createIn(9001, ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    const seen: number[] = [];
    const sizes: number[] = [];
    let pageToken = '';
    do {
      const page = await api.list({ bodegaIds: [9001], pageSize: 3, pageToken });
      seen.push(...page.productos.map((p) => p.id));
      sizes.push(page.productos.length);
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).toEqual(ids);
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('skips matching rows before the page starts, and continues after the page with the token', async () => {
    const ids = await createIn(9002, ['s1', 's2', 's3', 's4', 's5', 's6']);
    const first = await api.list({ bodegaIds: [9002], pageSize: 2, skip: 2 });
    expect(first.productos.map((p) => p.id)).toEqual(ids.slice(2, 4));
    const second = await api.list({ bodegaIds: [9002], pageSize: 2, pageToken: first.nextPageToken });
    expect(second.productos.map((p) => p.id)).toEqual(ids.slice(4, 6));
    expect(second.nextPageToken).toBe('');
  });

  it('filters on several warehouses', async () => {
    const inA = await createIn(9003, ['a1', 'a2']);
    const inB = await createIn(9004, ['b1']);
    await createIn(9005, ['c1']);
    const page = await api.list({ bodegaIds: [9004, 9003] });
    expect(page.productos.map((p) => p.id)).toEqual([...inA, ...inB]);
    expect(page.nextPageToken).toBe('');
  });

  it('filters on product ids, with the other filters, in id order; unknown ids are simply absent', async () => {
    const [a1, a2, a3] = await createIn(9012, ['i1', 'i2', 'i3']);
    const [b1] = await createIn(9013, ['j1']);
    const page = await api.list({ ids: [b1!, a3!, a1!, 4_000_000_000] });
    expect(page.productos.map((p) => p.id)).toEqual([a1, a3, b1]);
    expect(page.nextPageToken).toBe('');
    expect((await api.list({ ids: [a1!, a2!, b1!], bodegaIds: [9012] })).productos.map((p) => p.id)).toEqual([a1, a2]);
    const first = await api.list({ ids: [a1!, a2!, a3!], pageSize: 2 });
    expect(first.productos.map((p) => p.id)).toEqual([a1, a2]);
    expect(
      (await api.list({ ids: [a1!, a2!, a3!], pageToken: first.nextPageToken })).productos.map((p) => p.id),
    ).toEqual([a3]);
  });

  it('filters on nombre, case-insensitively, taking % and _ literally', async () => {
    const [pct, , underscore] = await createIn(9006, [
      'Café 100% arábica',
      'Café 1000 arábica',
      'Taza_grande',
      'Tazagrande',
    ]);
    const names = async (nombreContains: string) =>
      (await api.list({ bodegaIds: [9006], nombreContains })).productos.map((p) => p.nombre);
    expect(await names('100%')).toEqual(['Café 100% arábica']);
    expect((await api.list({ bodegaIds: [9006], nombreContains: '100%' })).productos[0]?.id).toBe(pct);
    expect(await names('a_g')).toEqual(['Taza_grande']);
    expect((await api.list({ bodegaIds: [9006], nombreContains: 'a_g' })).productos[0]?.id).toBe(underscore);
    expect(await names('CAFÉ')).toEqual(['Café 100% arábica', 'Café 1000 arábica']);
    expect(await names('nada así')).toEqual([]);
  });

  it('tells emoji apart when filtering on nombre', async () => {
    await createIn(9010, ['Caja 🍎', 'Caja 🍌']);
    expect((await api.list({ bodegaIds: [9010], nombreContains: '🍎' })).productos.map((p) => p.nombre)).toEqual([
      'Caja 🍎',
    ]);
  });

  it('ends a page early once it holds the byte budget, page_size being a maximum, and the tokens still walk every product', async () => {
    // 40 products of 60 KB each: 2.4 MB, where a page of 1000 such rows would be 66 MB.
    const descripcion = 'ñ'.repeat(30_000);
    const at = new Date();
    const rows = Array.from({ length: 40 }, (_, i) => ({
      nombre: `grande ${i}`,
      descripcion,
      precio: '19.90',
      cantidad_en_stock: 1,
      bodega_id: 9011,
      fecha_creacion: at,
      fecha_actualizacion: at,
    }));
    await svc.db('productos').insert(rows);
    const ids = (await svc.db('productos').where({ bodega_id: 9011 }).orderBy('id').pluck('id')).map(Number);

    const seen: number[] = [];
    const pages: { items: number; bytes: number }[] = [];
    let pageToken = '';
    do {
      const page = await api.list({ bodegaIds: [9011], pageSize: 1000, pageToken });
      seen.push(...page.productos.map((p) => p.id));
      pages.push({ items: page.productos.length, bytes: ListProductosResponse.encode(page).finish().length });
      pageToken = page.nextPageToken;
    } while (pageToken !== '');

    expect(seen).toEqual(ids);
    // The page that passes the budget keeps the item that passed it: 18 items of ~60 KB.
    expect(pages.map((p) => p.items)).toEqual([18, 18, 4]);
    for (const page of pages) expect(page.bytes).toBeLessThan(PAGE_BYTE_BUDGET + 61_000);
  });

  it('answers rest_json pages: the products REST form joined by commas, their count, and the same walk as productos', async () => {
    const ids = await createIn(9014, ['r1 "comillas"', 'r2 ñandú', 'r3']);
    const proto = await api.list({ bodegaIds: [9014] });
    const page = await api.list({ bodegaIds: [9014], pageSize: 2, restJson: true });
    expect(page.productos).toEqual([]);
    expect(page.restJsonCount).toBe(2);
    const first = proto.productos[0]!;
    const local = (d: Date | undefined) => d!.toISOString().slice(0, 19);
    expect(Buffer.from(page.restJson).toString('utf8').split(',{')[0]).toBe(
      `{"id":${first.id},"nombre":"r1 \\"comillas\\"","descripcion":null,"precio":1.00,"cantidadEnStock":1,"bodegaId":9014,` +
        `"fechaCreacion":"${local(first.fechaCreacion)}","fechaActualizacion":"${local(first.fechaActualizacion)}","version":1}`,
    );
    const items = JSON.parse(`[${Buffer.from(page.restJson).toString('utf8')}]`) as { id: number; nombre: string }[];
    expect(items.map((p) => p.id)).toEqual(ids.slice(0, 2));
    const rest = await api.list({ bodegaIds: [9014], pageSize: 2, pageToken: page.nextPageToken, restJson: true });
    expect(JSON.parse(`[${Buffer.from(rest.restJson).toString('utf8')}]`)).toEqual([
      expect.objectContaining({ id: ids[2], nombre: 'r3' }),
    ]);
    expect(rest.restJsonCount).toBe(1);
    expect(rest.nextPageToken).toBe('');
  });

  it('ends a rest_json page at the byte budget of its JSON, escapes counted, and the tokens still walk every product', async () => {
    // 40 products whose descripcion is 30,000 control characters: 30 KB stored, 180 KB as JSON (\u0001 each).
    const descripcion = '\u0001'.repeat(30_000);
    const at = new Date();
    const rows = Array.from({ length: 40 }, (_, i) => ({
      nombre: `escapada ${i}`,
      descripcion,
      precio: '19.90',
      cantidad_en_stock: 1,
      bodega_id: 9015,
      fecha_creacion: at,
      fecha_actualizacion: at,
    }));
    await svc.db('productos').insert(rows);
    const ids = (await svc.db('productos').where({ bodega_id: 9015 }).orderBy('id').pluck('id')).map(Number);

    const seen: number[] = [];
    const pages: { items: number; bytes: number }[] = [];
    let pageToken = '';
    do {
      const page = await api.list({ bodegaIds: [9015], pageSize: 1000, pageToken, restJson: true });
      const items = JSON.parse(`[${Buffer.from(page.restJson).toString('utf8')}]`) as {
        id: number;
        descripcion: string;
      }[];
      expect(items).toHaveLength(page.restJsonCount);
      expect(items.every((p) => p.descripcion === descripcion)).toBe(true);
      seen.push(...items.map((p) => p.id));
      pages.push({ items: items.length, bytes: page.restJson.length });
      pageToken = page.nextPageToken;
    } while (pageToken !== '');

    expect(seen).toEqual(ids);
    // About 180 KB of JSON each: the page that passes 1 MiB keeps that item, 6 of them (the stored size would allow 34).
    expect(pages.map((p) => p.items)).toEqual([6, 6, 6, 6, 6, 6, 4]);
    for (const page of pages) expect(page.bytes).toBeLessThan(PAGE_BYTE_BUDGET + 181_000);
  });

  it('lists every product without filters', async () => {
    const [id] = await createIn(9007, ['sin filtro']);
    // Several pages: other cases hold products big enough to end a page early.
    const ids: number[] = [];
    let pageToken = '';
    do {
      const page = await api.list({ pageSize: 1000, pageToken });
      ids.push(...page.productos.map((p) => p.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(ids).toContain(id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  it.each([
    ['pageSize', { pageSize: -1 }],
    ['skip', { skip: -1 }],
    ['pageToken', { pageToken: 'no-es-un-token' }],
    ['pageToken', { pageToken: Buffer.from('abc').toString('base64url') }],
    ['bodegaIds', { bodegaIds: [0] }],
    ['bodegaIds', { bodegaIds: Array.from({ length: 1001 }, (_, i) => i + 1) }],
    ['ids', { ids: [0] }],
    ['ids', { ids: Array.from({ length: 1001 }, (_, i) => i + 1) }],
  ])('answers INVALID_ARGUMENT naming %s for %j', async (campo, request) => {
    await expectInvalid(api.list(request), campo);
  });
});
