import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger } from '@inventario/platform';
import { loadConfig } from '../src/config';
import { createDownstream, type Downstream } from '../src/downstream/downstream';
import { createGraphqlRouter } from '../src/graphql/router';
import { createBasicAuth } from '../src/http/auth';
import { createErrorMiddleware } from '../src/http/error-middleware';
import { createInventario } from '../src/inventario/inventario';
import type { Bodega, Producto } from '@inventario/contract';
import type { Caller, InventarioApi } from '../src/inventario/model';
import { startTestBackend, type TestBackend } from './support/stack';
import { basicAuth } from './support/stack';

/**
 * Producto.bodega and Bodega.productos, and the stock relations
 * (Bodega.existencias, Producto.existencias, a level's or a line's warehouse
 * and product), are batched per request (no N+1): the GraphQL router in front
 * of the real InventarioApi and both real services, with every downstream
 * gRPC call counted (each method of the service clients is one call), so an
 * N+1 anywhere between the resolvers and the services, InventarioApi
 * included, fails these tests.
 */
const CREDENTIALS = { usuario: 'lotes', password: 'lotes-secret' };
const caller: Caller = { usuario: 'lotes' };

let backend: TestBackend;
let downstream: Downstream;
let inventario: InventarioApi;
let server: Server;
let url: string;
const calls: string[] = [];
const productos: Producto[] = [];

/** The same service client, recording `<servicio>.<method>` for every call (one gRPC call each). */
function counted<C extends object>(servicio: string, client: C): C {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(client) as [string, (...args: unknown[]) => unknown][]) {
    wrapped[name] = (...args: unknown[]) => {
      calls.push(`${servicio}.${name}`);
      return method(...args);
    };
  }
  return wrapped as C;
}

async function query(text: string): Promise<{ data: Record<string, unknown>; errors?: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: basicAuth(CREDENTIALS.usuario, CREDENTIALS.password),
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({ query: text }),
  });
  const body = (await response.json()) as { data: Record<string, unknown>; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body;
}

/** How many times each method was called by `work`. */
async function countCalls(work: () => Promise<unknown>): Promise<Record<string, number>> {
  calls.length = 0;
  await work();
  const counts: Record<string, number> = {};
  for (const name of calls) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  backend = await startTestBackend('gqlbatch');
  const config = loadConfig({
    BFF_USER: CREDENTIALS.usuario,
    BFF_PASSWORD: CREDENTIALS.password,
    PRODUCTO_SVC_ADDR: backend.productoSvcAddr,
    BODEGA_SVC_ADDR: backend.bodegaSvcAddr,
  });
  const logger = createLogger('bff', process.env.TEST_LOG_LEVEL ?? 'silent');
  downstream = createDownstream(config, logger);
  inventario = createInventario({
    productos: counted('producto-svc', downstream.productos),
    bodegas: counted('bodega-svc', downstream.bodegas),
    existencias: counted('existencias', downstream.existencias),
  });

  const app = express();
  app.use(createBasicAuth(CREDENTIALS));
  app.use('/api/graphql', createGraphqlRouter({ inventario, logger, enableInit: false }));
  app.use(createErrorMiddleware(logger));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/graphql`;

  // 4 warehouses (one empty) and 9 products: 3 in A, 3 in B, 2 in C, 1 in none.
  const bodegas: Bodega[] = [];
  for (const nombre of ['Lote A', 'Lote B', 'Lote C', 'Lote Vacío']) {
    bodegas.push(await inventario.createBodega(caller, { nombre, ubicacion: 'X', capacidad: 10 }));
  }
  for (let i = 0; i < 9; i++) {
    const bodegaId = i < 8 ? bodegas[i % 3]!.id : null;
    // Created with no units: their stock is the levels set below (a create's units would fill the warehouses, docs/contract.md §10.6).
    productos.push(
      await inventario.createProducto(caller, { nombre: `Lote ${i}`, precio: '1.00', cantidadEnStock: 0, bodegaId }),
    );
  }
  // Stock: A holds products 0, 1 and 2; B 0 and 3; C 4; the fourth none.
  for (const [bodega, stocked] of [
    [bodegas[0]!, [0, 1, 2]],
    [bodegas[1]!, [0, 3]],
    [bodegas[2]!, [4]],
  ] as const) {
    for (const i of stocked)
      await inventario.asignarExistencia(caller, bodega.id, { productoId: productos[i]!.id, cantidad: 1 });
  }
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  downstream?.close();
  await backend?.close();
});

describe('GraphQL relation batching', () => {
  it('Producto.bodega of every product is one ListBodegas call, and their Bodega.productos one ListProductos call', async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query('{ productos { id bodega { id nombre productos { id } } } }'));
    });
    // The list itself, then one call per relation level.
    expect(counts).toEqual({ 'producto-svc.list': 2, 'bodega-svc.list': 1 });
    const productos = data.productos as { bodega: { productos: unknown[] } | null }[];
    expect(productos).toHaveLength(9);
    expect(productos.filter((p) => p.bodega === null)).toHaveLength(1);
    expect(
      productos
        .filter((p) => p.bodega !== null)
        .map((p) => p.bodega!.productos.length)
        .sort(),
    ).toEqual([2, 2, 3, 3, 3, 3, 3, 3]);
  });

  it('Bodega.productos of every warehouse is one ListProductos call; their Producto.bodega needs no call at all', async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query('{ bodegas { nombre productos { nombre bodega { nombre } } } }'));
    });
    expect(counts).toEqual({ 'bodega-svc.list': 1, 'producto-svc.list': 1 });
    const vacia = (data.bodegas as { nombre: string; productos: unknown[] }[]).find((b) => b.nombre === 'Lote Vacío');
    expect(vacia?.productos).toEqual([]);
  });

  it('Bodega.productos(first, after) of every warehouse is still one ListProductos call, each warehouse its own page', async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query('{ bodegas { nombre productos(first: 2) { id } } }'));
    });
    expect(counts).toEqual({ 'bodega-svc.list': 1, 'producto-svc.list': 1 });
    const bodegas = data.bodegas as { nombre: string; productos: { id: string }[] }[];
    expect(bodegas.map((b) => b.productos.length).sort()).toEqual([0, 2, 2, 2]);

    // After each warehouse's first product: one call again, the rest of each warehouse.
    const firsts = bodegas.filter((b) => b.productos.length > 0).map((b) => b.productos[0]!.id);
    const after = Buffer.from(String(Math.max(...firsts.map(Number))), 'utf8').toString('base64url');
    const next = await countCalls(() => query(`{ bodegas { productos(first: 5, after: "${after}") { id } } }`));
    expect(next).toEqual({ 'bodega-svc.list': 1, 'producto-svc.list': 1 });
  });

  it('a warehouse asked for by several root fields of one request is read once', async () => {
    const productos = await inventario.listProductos(caller);
    const [uno, dos] = productos.filter((p) => p.bodegaId !== null && p.bodegaId === productos[0]!.bodegaId);
    const counts = await countCalls(() =>
      query(`{ a: producto(id: "${uno!.id}") { bodega { id } } b: producto(id: "${dos!.id}") { bodega { id } } }`),
    );
    expect(counts).toEqual({ 'producto-svc.get': 2, 'bodega-svc.list': 1 });
  });

  it('batches belong to one request: the next request reads again', async () => {
    const q = '{ productos { bodega { nombre } } }';
    const counts = await countCalls(async () => {
      await query(q);
      await query(q);
    });
    expect(counts).toEqual({ 'producto-svc.list': 2, 'bodega-svc.list': 2 });
  });
});

describe('GraphQL stock relation batching', () => {
  const nombres = (items: { producto: { nombre: string } | null }[]) => items.map((e) => e.producto?.nombre);

  it('Bodega.existencias of every warehouse is one ListExistenciasPorLote call; their products one ListProductos call, their warehouse none', async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query(
        '{ bodegas { nombre ocupacion existencias { cantidad bodega { nombre } producto { nombre } } } }',
      ));
    });
    expect(counts).toEqual({ 'bodega-svc.list': 1, 'existencias.porLote': 1, 'producto-svc.list': 1 });
    type Fila = {
      nombre: string;
      ocupacion: number;
      existencias: { bodega: { nombre: string }; producto: { nombre: string } | null }[];
    };
    const bodegas = data.bodegas as Fila[];
    expect(bodegas.map((b) => [b.nombre, b.ocupacion, nombres(b.existencias)])).toEqual([
      ['Lote A', 3, ['Lote 0', 'Lote 1', 'Lote 2']],
      ['Lote B', 2, ['Lote 0', 'Lote 3']],
      ['Lote C', 1, ['Lote 4']],
      ['Lote Vacío', 0, []],
    ]);
    expect(bodegas.every((b) => b.existencias.every((e) => e.bodega.nombre === b.nombre))).toBe(true);
  });

  it('Bodega.existencias(first, after) of every warehouse is still one call, each warehouse its own page', async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query('{ bodegas { existencias(first: 1) { producto { nombre } } } }'));
    });
    expect(counts).toEqual({ 'bodega-svc.list': 1, 'existencias.porLote': 1, 'producto-svc.list': 1 });
    expect(
      (data.bodegas as { existencias: { producto: { nombre: string } }[] }[]).map((b) => nombres(b.existencias)),
    ).toEqual([['Lote 0'], ['Lote 0'], ['Lote 4'], []]);

    const after = Buffer.from(String(productos[0]!.id), 'utf8').toString('base64url');
    const next = await countCalls(async () => {
      ({ data } = await query(`{ bodegas { existencias(first: 5, after: "${after}") { producto { nombre } } } }`));
    });
    expect(next).toEqual({ 'bodega-svc.list': 1, 'existencias.porLote': 1, 'producto-svc.list': 1 });
    expect(
      (data.bodegas as { existencias: { producto: { nombre: string } }[] }[]).map((b) => nombres(b.existencias)),
    ).toEqual([['Lote 1', 'Lote 2'], ['Lote 3'], ['Lote 4'], []]);
  });

  it('Producto.existencias of every product is one ListExistenciasPorLote call; their warehouses one ListBodegas call', async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query(
        '{ productos { nombre existencias { cantidad bodega { nombre } producto { nombre } } } }',
      ));
    });
    expect(counts).toEqual({ 'producto-svc.list': 1, 'existencias.porLote': 1, 'bodega-svc.list': 1 });
    const porProducto = (data.productos as { nombre: string; existencias: { bodega: { nombre: string } }[] }[]).map(
      (p) => [p.nombre, p.existencias.map((e) => e.bodega.nombre)] as const,
    );
    expect(porProducto.slice(0, 5)).toEqual([
      ['Lote 0', ['Lote A', 'Lote B']],
      ['Lote 1', ['Lote A']],
      ['Lote 2', ['Lote A']],
      ['Lote 3', ['Lote B']],
      ['Lote 4', ['Lote C']],
    ]);
    expect(porProducto.slice(5).every(([, bodegas]) => bodegas.length === 0)).toBe(true);
  });

  it("the ledger's lines resolve their warehouses in one call and their products in one", async () => {
    let data: Record<string, unknown> = {};
    const counts = await countCalls(async () => {
      ({ data } = await query('{ movimientos(first: 100) { movimientos { bodega { nombre } producto { nombre } } } }'));
    });
    expect(counts).toEqual({ 'existencias.listMovimientos': 1, 'bodega-svc.list': 1, 'producto-svc.list': 1 });
    expect((data.movimientos as { movimientos: unknown[] }).movimientos).toHaveLength(6);
  });
});
