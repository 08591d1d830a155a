/**
 * Issue 16, item 2: the REST full lists are streamed a downstream page at a
 * time. Against the real services, each streamed body is byte for byte the
 * body the whole list collected and written at once gave (precio texts,
 * unicode, short pages the services end at their byte budget). Against a
 * fake producto-svc whose list never ends: a client that leaves stops the
 * reading, a client that reads nothing is cut off after
 * HTTP_WRITE_TIMEOUT_MS, and a failure after the first byte truncates the
 * response instead of completing it. Timing is the fault suite's
 * (test/faults/list-streaming.test.ts).
 */
import { request as httpGet } from 'node:http';
import { connect } from 'node:net';
import { status } from '@grpc/grpc-js';
import { stringify } from 'lossless-json';
import pino from 'pino';
import { createDb, createLogger, decodePageToken, encodePageToken, type Knex } from '@inventario/platform';
import { metricSample, scrapeMetrics, waitFor, logLineSink } from '@inventario/testkit';
import { loadConfig } from '../src/config';
import { createDownstream, type Downstream } from '../src/downstream/downstream';
import { createInventario } from '../src/inventario/inventario';
import { conTotalesDelLibro } from '../src/inventario/totales-del-libro';
import type { Caller, InventarioApi, ProductoFilter } from '../src/inventario/model';
import { bodegaJson, productoDeBodegaJson, productoJson } from '../src/http/rest-json';
import { startTestBackend, type TestBackend } from './support/stack';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';

const caller: Caller = { usuario: 'tester' };

describe('streamed lists against the real services', () => {
  let backend: TestBackend;
  let bff: BareBff;
  let downstream: Downstream;
  let inventario: InventarioApi;
  let db: Knex;
  let bodegaA: number;
  let bodegaB: number;

  const PRECIOS = ['19.90', '0.00', '99999999.99', '1.05', '12345.60'];
  const DESCRIPCIONES = [
    null,
    '',
    'ñandú, "comillas", \\barra\\ y /',
    'separadores \u2028 \u2029, control \u0001 \u001f, salto\nde línea\t',
    'emoji 🍎 👩‍👩‍👧 y 𝄞',
    // 60,000 bytes: about 17 of these fill a service page (PAGE_BYTE_BUDGET).
    'ñ'.repeat(30_000),
  ];

  beforeAll(async () => {
    backend = await startTestBackend('list_stream');
    const env = { PRODUCTO_SVC_ADDR: backend.productoSvcAddr, BODEGA_SVC_ADDR: backend.bodegaSvcAddr };
    bff = await startBareBff(env);
    // The list as the BFF read it before streaming: every page collected, then one stringify.
    downstream = createDownstream(
      loadConfig({ BFF_USER: 'tester', BFF_PASSWORD: 'x', ...env }),
      createLogger('bff', 'silent'),
    );
    // With each product's figure its ledger total, as the BFF answers it (docs/contract.md §10.6).
    inventario = conTotalesDelLibro(createInventario(downstream), downstream.existencias);

    const created = [];
    for (const nombre of ['Almacén Ñandú', 'Depósito "B"', 'Bodega 🍎']) {
      const res = await bff.request('POST', '/api/bodegas', {
        body: { nombre, ubicacion: `${nombre} \u2028 sur`, capacidad: 10 },
      });
      expect(res.status).toBe(201);
      created.push(res.body.id as number);
    }
    [bodegaA, bodegaB] = created as [number, number];

    db = createDb(backend.databaseUrls.producto);
    const at = new Date('2026-03-04T05:06:07Z');
    const rows = Array.from({ length: 300 }, (_, i) => ({
      nombre: `Producto ${i} ${i % 7 === 0 ? 'ñandú 🍎' : 'común'}`,
      descripcion: DESCRIPCIONES[i % DESCRIPCIONES.length],
      precio: PRECIOS[i % PRECIOS.length],
      cantidad_en_stock: i % 11 === 0 ? 0 : i * 3,
      bodega_id: i % 3 === 0 ? null : i % 3 === 1 ? bodegaA : bodegaB,
      fecha_creacion: at,
      fecha_actualizacion: new Date(at.getTime() + i * 1000),
      version: 1 + (i % 4),
    }));
    for (let i = 0; i < rows.length; i += 50) await db('productos').insert(rows.slice(i, i + 50));
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    downstream?.close();
    await bff?.close();
    await backend?.close();
  });

  async function listCalls(): Promise<number> {
    const text = await scrapeMetrics(bff.app.metricsPort);
    return metricSample(text, 'grpc_client_handled_total', { grpc_method: 'ListProductos', grpc_code: 'OK' }) ?? 0;
  }

  /**
   * The count once it stops moving. A call counts at its status, which grpc-js may deliver after the message
   * the BFF already answered with: read at once, a count can miss a page that was read (a HEAD that read a
   * second page passed this way until a CI run on Node 24 counted it).
   */
  async function settledListCalls(): Promise<number> {
    let last = await listCalls();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const now = await listCalls();
      if (now === last) return now;
      last = now;
    }
  }

  it('GET /api/productos is byte for byte the collected list, read over several short pages', async () => {
    const expected = stringify((await inventario.listProductos(caller)).map(productoJson));
    const before = await settledListCalls();
    const res = await bff.request('GET', '/api/productos');
    const pages = (await settledListCalls()) - before;

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(expected);
    expect(res.body).toHaveLength(300);
    expect(res.text).toContain('"precio":19.90,');
    expect(res.text).toContain('"precio":0.00,');
    expect(res.text).toContain('"precio":99999999.99,');
    // 50 products of 60 KB: at least 3 pages of about 1 MiB.
    expect(pages).toBeGreaterThanOrEqual(3);
  });

  it.each<[string, () => string, () => ProductoFilter]>([
    ['offset past the first page', () => '?offset=7', () => ({ offset: 7 })],
    ['a warehouse filter', () => `?bodegaId=${bodegaA}`, () => ({ bodegaIds: [bodegaA] })],
    ['a search', () => `?q=${encodeURIComponent('ÑANDU 🍎')}`, () => ({ q: 'ÑANDU 🍎' })],
    ['limit', () => '?limit=250&offset=3', () => ({ limit: 250, offset: 3 })],
  ])('GET /api/productos with %s is byte for byte the collected list', async (_case, query, filter) => {
    const expected = stringify((await inventario.listProductos(caller, filter())).map(productoJson));
    const res = await bff.request('GET', `/api/productos${query()}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(expected);
    expect((res.body as unknown[]).length).toBeGreaterThan(0);
  });

  it('GET /api/bodegas/{id}/productos and GET /api/bodegas are byte for byte the collected lists', async () => {
    // No stock there: each assigned product with its cantidadEnStock, as before the ledger.
    const asignados = await inventario.listProductos(caller, { bodegaIds: [bodegaA] });
    const deA = stringify(asignados.map((p) => productoDeBodegaJson({ ...p, cantidad: p.cantidadEnStock })));
    const resA = await bff.request('GET', `/api/v1/bodegas/${bodegaA}/productos`);
    expect(resA.status).toBe(200);
    expect(resA.text).toBe(deA);
    expect(resA.body).toHaveLength(100);

    const bodegas = stringify((await inventario.listBodegas(caller)).map(bodegaJson));
    const resB = await bff.request('GET', '/api/bodegas');
    expect(resB.status).toBe(200);
    expect(resB.text).toBe(bodegas);
    expect(resB.body).toHaveLength(3);
  });

  it('an empty list is [] and a missing warehouse is still a 404 JSON error, answered before any byte of a list', async () => {
    const empty = await bff.request('GET', '/api/productos?q=no-existe-nada');
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('[]');

    const missing = await bff.request('GET', '/api/bodegas/999999/productos');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('HEAD answers the headers after the first page and reads no further', async () => {
    const before = await settledListCalls();
    const res = await fetch(`${bff.baseUrl}/api/productos`, { method: 'HEAD', headers: { authorization: bff.auth } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    await waitFor(async () => (await listCalls()) > before, 'the first page of the HEAD counted');
    expect((await settledListCalls()) - before).toBe(1);
  });
});

describe('streamed lists against a producto-svc whose list never ends', () => {
  const PAGE = 100;
  /** Pages served, by the nombreContains (the `q`) of the request: each test its own. */
  const served = new Map<string, number>();
  const lines: Record<string, unknown>[] = [];
  let fake: FakeDownstream;
  let bff: BareBff;

  const producto = (id: number) => ({
    id,
    nombre: `Sin fin ${id}`,
    descripcion: 'x'.repeat(200),
    precio: '19.90',
    cantidadEnStock: 1,
    fechaCreacion: new Date('2026-01-02T03:04:05Z'),
    fechaActualizacion: new Date('2026-01-02T03:04:05Z'),
    version: 1,
  });

  beforeAll(async () => {
    fake = await startFakeDownstream({
      producto: {
        // Pages of 100 without end; `q=falla` fails its second page.
        listProductos: (call, callback) => {
          const { pageToken, nombreContains } = call.request as { pageToken: string; nombreContains: string };
          const after = decodePageToken(pageToken) ?? 0;
          served.set(nombreContains, (served.get(nombreContains) ?? 0) + 1);
          if (nombreContains === 'falla' && after > 0) {
            callback({ code: status.UNAVAILABLE, details: 'la base de datos no responde' });
            return;
          }
          const productos = Array.from({ length: PAGE }, (_, i) => producto(after + i + 1));
          callback(null, { productos, nextPageToken: encodePageToken(after + PAGE) });
        },
      },
      // Each product's figure is its ledger total (docs/contract.md §10.6): here, the one it was made with.
      existencia: {
        getTotalesDeProductos: (call, callback) => {
          const { productoIds } = call.request as { productoIds: number[] };
          callback(null, {
            totales: productoIds.map((id) => ({ productoId: id, total: producto(id).cantidadEnStock, sinUbicar: 0 })),
          });
        },
      },
    });
    const sink = logLineSink(lines);
    const address = `127.0.0.1:${fake.port}`;
    bff = await startBareBff(
      {
        PRODUCTO_SVC_ADDR: address,
        BODEGA_SVC_ADDR: address,
        HTTP_WRITE_TIMEOUT_MS: '300',
        BREAKER_VOLUME_THRESHOLD: '1000',
      },
      pino({ level: 'debug' }, sink),
    );
  });

  afterAll(async () => {
    await bff?.close();
    await fake?.close();
  });

  const logged = (msg: string) => waitFor(() => lines.find((l) => l.msg === msg && l.path === '/api/productos'), msg);

  it('a client that leaves mid-list stops the reading: no page is fetched after the one in flight', async () => {
    const pagesWhenLeft = await new Promise<number>((resolve, reject) => {
      const req = httpGet(`${bff.baseUrl}/api/productos?q=sale`, { headers: { authorization: bff.auth } }, (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          // Well into the list: several pages were sent.
          if (received > 5 * PAGE * 250) {
            const pages = served.get('sale') ?? 0;
            req.destroy();
            resolve(pages);
          }
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
    await logged('list stream: the client left, reading stopped');
    // Any page call after the stop would come from a request that no longer reads: none comes.
    expect(served.get('sale')).toBeLessThanOrEqual(pagesWhenLeft + 1);
    const afterStop = served.get('sale');
    await bff.request('GET', '/actuator/health/liveness');
    expect(served.get('sale')).toBe(afterStop);
  });

  it('a client that reads nothing is cut off after HTTP_WRITE_TIMEOUT_MS, and the reading stops', async () => {
    const socket = connect(Number(new URL(bff.baseUrl).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/productos?q=lento HTTP/1.1\r\nHost: x\r\nAuthorization: ${bff.auth}\r\n\r\n`);
    // Never read: the kernel buffers fill, then the BFF's write waits in vain.
    socket.pause();
    const cut = await logged('list stream: the client took nothing in time, connection cut');
    expect(cut).toMatchObject({ writeTimeoutMs: 300 });
    const pages = served.get('lento');
    // Once read, what did arrive is a truncated chunked body: the connection ends without its last chunk.
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.resume();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text.endsWith('\r\n0\r\n\r\n')).toBe(false);
    expect(served.get('lento')).toBe(pages);
  });

  it('a failure after the first byte truncates the response, so the client sees it failed', async () => {
    const res = await fetch(`${bff.baseUrl}/api/productos?q=falla`, { headers: { authorization: bff.auth } });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(await logged('list stream failed after its first byte: connection cut')).toMatchObject({ items: PAGE });
  });
});
