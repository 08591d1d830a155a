/**
 * What a GraphQL request may cost while it executes (issue 16, item 1 (b)
 * and (c)), whatever its document passed before:
 * - the guard: a node cap and a deadline per request, a failure that sticks;
 * - the handler (graphql-http core, in front of an in-memory InventarioApi):
 *   the cap stops execution before the fan-out below the list that passed
 *   it and bounds what is read; the deadline answers while a call is still
 *   pending, and nothing downstream starts after it;
 * - the BFF over HTTP in front of a fake producto-svc that never answers:
 *   GRAPHQL_DEADLINE_MS ends the request before the call's own deadline.
 */
import { createLogger } from '@inventario/platform';
import { Producto as ProductoProto } from '@inventario/proto';
import { createExecutionGuard, deadlineError, nodeCapError } from '../src/graphql/execution-limits';
import { createGraphqlHandler } from '../src/graphql/handler';
import type { Bodega, Existencia, Producto } from '@inventario/contract';
import type { InventarioApi, Movimiento, ProductoFilter } from '../src/inventario/model';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';
import { graphql } from './graphql-support/graphql-client';

const logger = createLogger('bff', process.env.TEST_LOG_LEVEL ?? 'silent');

describe('the execution guard', () => {
  it('fails at the deadline, once, and aborts its signal', () => {
    let now = 1_000;
    const guard = createExecutionGuard({ maxNodes: 10, deadlineMs: 50 }, () => now);
    guard.check();
    expect(guard.msLeft()).toBe(50);
    now += 50;
    expect(() => guard.check()).toThrow(deadlineError(50).message);
    expect(guard.signal.aborted).toBe(true);
    expect(guard.failure?.extensions.classification).toBe('DEADLINE_EXCEEDED');
    expect(guard.msLeft()).toBe(0);
  });

  it('fails past maxNodes, not at it, and the failure sticks', () => {
    const guard = createExecutionGuard({ maxNodes: 10, deadlineMs: 60_000 });
    guard.count(4);
    guard.count(6);
    expect(guard.remainingNodes()).toBe(0);
    expect(() => guard.count(1)).toThrow(nodeCapError(10).message);
    expect(guard.failure?.extensions.classification).toBe('ValidationError');
    expect(() => guard.check()).toThrow(nodeCapError(10).message);
    guard.expire();
    expect(guard.failure?.message).toBe(nodeCapError(10).message);
  });

  it('sibling lists share the cap before they read: the second waits, then may read one row past what is left (issue 21, item 1)', async () => {
    const guard = createExecutionGuard({ maxNodes: 10, deadlineMs: 60_000 });
    const limits: number[] = [];
    let release!: (items: number[]) => void;
    const first = guard.readList(undefined, (limit) => {
      limits.push(limit);
      return new Promise<number[]>((resolve) => (release = resolve));
    });
    const second = guard.readList(undefined, (limit) => {
      limits.push(limit);
      return Promise.resolve(Array.from({ length: limit }, (_, i) => i));
    });
    await new Promise((resolve) => setImmediate(resolve));
    // The first holds the whole cap (reading one more shows it passed); the second has not read.
    expect(limits).toEqual([11]);
    release([1, 2, 3, 4, 5, 6, 7]);
    expect(await first).toHaveLength(7);
    // 3 left: it reads 4, which shows the cap passed.
    await expect(second).rejects.toThrow(nodeCapError(10).message);
    expect(limits).toEqual([11, 4]);
  });

  it('a list with first reserves only first, so a sibling reads beside it', async () => {
    const guard = createExecutionGuard({ maxNodes: 10, deadlineMs: 60_000 });
    const limits: number[] = [];
    const read = (limit: number) => {
      limits.push(limit);
      return Promise.resolve([1]);
    };
    await Promise.all([guard.readList(3, read), guard.readList(undefined, read)]);
    expect(limits).toEqual([3, 8]);
    expect(guard.remainingNodes()).toBe(8);
    expect(guard.failure).toBeUndefined();
  });

  it('a client that disconnects fails the request and wakes a waiting list', async () => {
    const gone = new AbortController();
    const guard = createExecutionGuard({ maxNodes: 1, deadlineMs: 60_000 }, Date.now, gone.signal);
    const holding = guard.readList(undefined, () => new Promise<number[]>(() => undefined));
    const waiting = guard.readList(undefined, () => Promise.resolve([]));
    gone.abort();
    await expect(waiting).rejects.toThrow('El cliente cerró la conexión');
    expect(guard.signal.aborted).toBe(true);
    void holding.catch(() => undefined);
  });
});

function producto(id: number, bodegaId: number | null): Producto {
  return {
    id,
    nombre: `P${id}`,
    descripcion: null,
    precio: '1.00',
    cantidadEnStock: 1,
    bodegaId,
    fechaCreacion: '2026-01-01T00:00:00',
    fechaActualizacion: '2026-01-01T00:00:00',
    version: 1,
  };
}

const BODEGA: Bodega = {
  id: 1,
  nombre: 'B',
  ubicacion: null,
  capacidad: 1,
  ocupacion: 0,
  fechaCreacion: '2026-01-01T00:00:00',
  fechaActualizacion: '2026-01-01T00:00:00',
  version: 1,
};

/** An in-memory InventarioApi over `productos` (all in warehouse 1), recording its calls; `listProductos` answers when `gate` resolves. */
function memoryInventario(productos: Producto[], gate: Promise<void> = Promise.resolve()) {
  const calls: { method: string; filter?: ProductoFilter }[] = [];
  const unused = () => Promise.reject(new Error('not used by this test'));
  const unusedPages = (): AsyncIterable<never[]> => ({ [Symbol.asyncIterator]: () => ({ next: unused }) });
  const inventario: InventarioApi = {
    async listProductos(_caller, filter = {}) {
      calls.push({ method: 'listProductos', filter });
      await gate;
      return productos.slice(0, filter.limit ?? Infinity);
    },
    bodegasPorIds(_caller, ids) {
      calls.push({ method: 'bodegasPorIds' });
      return Promise.resolve(ids.includes(BODEGA.id) ? [BODEGA] : []);
    },
    productosDeBodegas() {
      calls.push({ method: 'productosDeBodegas' });
      return Promise.resolve(productos);
    },
    getProducto: unused,
    productoPages: unusedPages,
    productoPagesOfBodega: unusedPages,
    createProducto: unused,
    updateProducto: unused,
    deleteProducto: unused,
    listBodegas: unused,
    bodegaPages: unusedPages,
    getBodega: unused,
    createBodega: unused,
    updateBodega: unused,
    deleteBodega: unused,
    asignarExistencia: unused,
    retirarProducto: unused,
    cambiarUmbralMinimo: unused,
    registrarMovimiento: unused,
    transferir: unused,
    revertirOperacion: unused,
    getOperacion: unused,
    getExistencia: unused,
    existenciasDeBodega: unused,
    existenciasDeProducto: unused,
    listExistencias: unused,
    listMovimientos: unused,
    verificarExistencias: unused,
    existenciasDeBodegas: unused,
    existenciasDeProductos: unused,
    productosPorIds: unused,
  };
  return { inventario, calls };
}

async function execute(inventario: InventarioApi, limits: { maxNodes: number; deadlineMs: number }, query: string) {
  const handle = createGraphqlHandler<null>({ inventario, logger, enableInit: false, executionLimits: limits });
  const [body, init] = await handle({
    method: 'POST',
    url: '/api/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
    raw: null,
    context: { caller: { usuario: 'tester' } },
  });
  return {
    status: init.status,
    body: JSON.parse(body ?? 'null') as { data?: unknown; errors?: { message: string; extensions: object }[] },
  };
}

/** Lets every pending promise job, nextTick (DataLoader's batch) and timer-free continuation run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the node cap while executing', () => {
  const productos = Array.from({ length: 20 }, (_, i) => producto(i + 1, BODEGA.id));

  it('stops at the list that passes it: its items are not resolved, no warehouse is read', async () => {
    const { inventario, calls } = memoryInventario(productos);
    const result = await execute(
      inventario,
      { maxNodes: 10, deadlineMs: 60_000 },
      '{ productos { id bodega { productos { id } } } }',
    );
    expect(result).toEqual({
      status: 200,
      body: {
        data: null,
        errors: [{ message: nodeCapError(10).message, extensions: { classification: 'ValidationError' } }],
      },
    });
    await settle();
    expect(calls.map((c) => c.method)).toEqual(['listProductos']);
  });

  it('reads no more than one item past what the cap leaves', async () => {
    const { inventario, calls } = memoryInventario(productos);
    await execute(inventario, { maxNodes: 10, deadlineMs: 60_000 }, '{ productos { id } }');
    expect(calls[0]!.filter?.limit).toBe(11);
  });

  it("reads a warehouse's levels and the ledger no further than one item past what the cap leaves, and stops there", async () => {
    const levels: Existencia[] = Array.from({ length: 50 }, (_, i) => ({
      bodegaId: BODEGA.id,
      productoId: i + 1,
      cantidad: 1,
      umbralMinimo: null,
      version: 1,
      fechaCreacion: '2026-01-01T00:00:00',
      fechaActualizacion: '2026-01-01T00:00:00',
    }));
    const lineas: Movimiento[] = levels.map((l, i) => ({
      id: i + 1,
      operacionId: i + 1,
      bodegaId: l.bodegaId,
      productoId: l.productoId,
      tipo: 'ENTRADA',
      motivo: 'RECEPCION',
      cantidad: 1,
      cantidadAnterior: 0,
      cantidadPosterior: 1,
      version: 1,
      usuario: 'tester',
      comentario: null,
      fecha: '2026-01-01T00:00:00',
    }));
    const asked: { method: string; limit?: number }[] = [];
    const inventario: InventarioApi = {
      ...memoryInventario([]).inventario,
      getBodega: () => Promise.resolve(BODEGA),
      existenciasDeBodegas(_caller, _ids, page = {}) {
        asked.push({ method: 'existenciasDeBodegas', limit: page.maxTotal });
        return Promise.resolve(levels.slice(0, Math.min(page.perParent ?? Infinity, page.maxTotal ?? Infinity)));
      },
      listMovimientos(_caller, _filter, page = {}) {
        asked.push({ method: 'listMovimientos', limit: page.limit });
        return Promise.resolve({ items: lineas.slice(0, page.limit ?? 100), siguienteCursor: 'MQ' });
      },
    };
    const capped = { message: nodeCapError(10).message, extensions: { classification: 'ValidationError' } };
    // The warehouse is 1 node: 9 remain, so 10 levels are read.
    const existencias = await execute(
      inventario,
      { maxNodes: 10, deadlineMs: 60_000 },
      '{ bodega(id: "1") { existencias(first: 1000) { cantidad } } }',
    );
    expect(existencias.body).toEqual({ data: null, errors: [capped] });
    // Nothing is counted yet when the ledger is read: 11 lines.
    const movimientos = await execute(
      inventario,
      { maxNodes: 10, deadlineMs: 60_000 },
      '{ movimientos(first: 1000) { movimientos { id } } }',
    );
    expect(movimientos.body).toEqual({ data: null, errors: [capped] });
    expect(asked).toEqual([
      { method: 'existenciasDeBodegas', limit: 10 },
      { method: 'listMovimientos', limit: 11 },
    ]);
  });

  it('answers in full when the result fits: nodes are objects and list items', async () => {
    const { inventario } = memoryInventario(productos);
    // 20 products + their 20 warehouses.
    const result = await execute(
      inventario,
      { maxNodes: 40, deadlineMs: 60_000 },
      '{ productos { id bodega { id } } }',
    );
    expect(result.body.errors).toBeUndefined();
    expect((result.body.data as { productos: unknown[] }).productos).toHaveLength(20);
  });
});

describe('the deadline while executing', () => {
  it('answers at the deadline while a call is still pending, and starts nothing downstream after it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { inventario, calls } = memoryInventario([producto(1, BODEGA.id)], gate);
    const result = await execute(
      inventario,
      { maxNodes: 1000, deadlineMs: 100 },
      '{ productos { id bodega { nombre } } }',
    );
    expect(result).toEqual({
      status: 200,
      body: {
        data: null,
        errors: [{ message: deadlineError(100).message, extensions: { classification: 'DEADLINE_EXCEEDED' } }],
      },
    });
    // The call answers only now; what the request would have done next is not done.
    release();
    await settle();
    await settle();
    expect(calls.map((c) => c.method)).toEqual(['listProductos']);
  });
});

describe('GRAPHQL_DEADLINE_MS over HTTP, in front of a producto-svc that never answers', () => {
  let fake: FakeDownstream;
  let bff: BareBff;
  const pending: ((err: unknown, res?: unknown) => void)[] = [];

  beforeAll(async () => {
    fake = await startFakeDownstream({ producto: { listProductos: (_call, callback) => void pending.push(callback) } });
    const address = `127.0.0.1:${fake.port}`;
    // The call's own deadline is far away: only the request's can end it.
    bff = await startBareBff({
      PRODUCTO_SVC_ADDR: address,
      BODEGA_SVC_ADDR: address,
      GRPC_DEADLINE_MS: '600000',
      GRAPHQL_DEADLINE_MS: '300',
    });
  });

  afterAll(async () => {
    for (const callback of pending.splice(0)) callback(null, { productos: [], nextPageToken: '' });
    await bff?.close();
    await fake?.close();
  });

  it('the request ends with DEADLINE_EXCEEDED and no data while the call is still unanswered', async () => {
    const response = await graphql(bff, '{ productos { id nombre } }');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: null,
      errors: [
        {
          message: 'La consulta superó su tiempo máximo de ejecución (300 ms)',
          extensions: { classification: 'DEADLINE_EXCEEDED' },
        },
      ],
    });
    expect(pending).toHaveLength(1);
    pending.shift()!(null, {
      productos: [ProductoProto.fromPartial({ id: 1, nombre: 'Tarde', precio: '1.00' })],
      nextPageToken: '',
    });
  });
});
