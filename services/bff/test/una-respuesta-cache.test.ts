/**
 * The read cache and one answer (docs/contract.md §10.6, §11): a product's cantidadEnStock is its
 * ledger total, which stock writes move without a ProductoActualizado. So a stock write through a
 * replica drops the product there before it answers (read-your-writes), and its
 * MovimientoRegistrado drops it on the other replica. Two BFF replicas with their cache on,
 * following the real stream; the first read of each is a cache fill, proved by the hit counter.
 */
import { waitFor } from '@inventario/testkit';
import { startCacheStack, type CacheReplica, type CacheStack } from './support/cache-stack';

let stack: CacheStack;

beforeAll(async () => {
  stack = await startCacheStack('cache_una_respuesta');
  await stack.allServing();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

async function figura(replica: CacheReplica, id: number): Promise<number> {
  const res = await replica.request('GET', `/api/productos/${id}`);
  expect(res.status).toBe(200);
  return res.body.cantidadEnStock as number;
}

test('a stock write through a replica is seen there at once, and on the other once its event arrives, though the product was cached', async () => {
  const [a, b] = stack.replicas;
  const bodega = await a.request('POST', '/api/bodegas', {
    body: { nombre: `Cache una respuesta ${Date.now()}`, capacidad: 100 },
  });
  const producto = await a.request('POST', '/api/productos', {
    body: { nombre: 'Cacheado', precio: 1, cantidadEnStock: 10, bodegaId: bodega.body.id },
  });
  const id = producto.body.id as number;
  // Filled, then served from the cache on both replicas. The create's own events (its initial units'
  // MovimientoRegistrado among them) may still arrive and drop a fresh fill, so fill and read again until
  // the second read is a hit.
  for (const replica of [a, b]) {
    await waitFor(
      async () => {
        expect(await figura(replica, id)).toBe(10);
        const hits = await replica.metric('bff_read_cache_hits_total', { kind: 'producto' });
        expect(await figura(replica, id)).toBe(10);
        return (await replica.metric('bff_read_cache_hits_total', { kind: 'producto' })) === hits + 1;
      },
      `${replica.name} to serve the product from its cache`,
      10_000,
    );
  }
  const salida = await a.request('POST', `/api/bodegas/${bodega.body.id as number}/movimientos`, {
    body: { productoId: id, tipo: 'SALIDA', cantidad: 4 },
  });
  expect(salida.status).toBe(201);
  expect(await figura(a, id)).toBe(6);
  await waitFor(
    async () => (await figura(b, id)) === 6,
    'the other replica to drop the product on MovimientoRegistrado',
    10_000,
  );
  // A count (PUT) through the other replica, the same way round.
  expect((await b.request('PUT', `/api/productos/${id}`, { body: { cantidadEnStock: 9 } })).status).toBe(200);
  expect(await figura(b, id)).toBe(9);
  await waitFor(async () => (await figura(a, id)) === 9, 'the first replica to drop the product', 10_000);
}, 60_000);
