/**
 * Orphans from a race (issue 16 item 4): a product created naming a
 * warehouse while that warehouse is being force-deleted must not keep a
 * bodegaId that no longer exists. Each round force-deletes a warehouse while
 * products naming it are created: one through the BFF (its existence check
 * racing the delete) and others sent straight to producto-svc at growing
 * delays, as a BFF whose check passed just before the delete and whose write
 * arrives late. Every such write ends either refused (400 on bodegaId, once
 * producto-svc recorded the BodegaEliminada) or unassigned by the
 * reconciliation; none points at a deleted warehouse once it is idle.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { jetstreamManager } from '@nats-io/jetstream';
import { USUARIO_METADATA_KEY } from '@inventario/platform';
import { CreateProductoRequest, ProductoServiceClient, type CreateProductoResponse } from '@inventario/proto';
import { waitFor, crearBodega, crearProducto } from '@inventario/testkit';
import { BODEGA_ELIMINADA_CONSUMER } from '../../producto-svc/src/events/bodega-eliminada-consumer';
import { startSafeWriteStack, type SafeWriteStack } from './support/safe-write-stack';

const ROUNDS = 100;
/** When the late writes reach producto-svc, after the forced delete was sent. */
const LATE_WRITE_DELAYS_MS = [0, 5, 20, 60];

let stack: SafeWriteStack;
let client: ProductoServiceClient;

beforeAll(async () => {
  stack = await startSafeWriteStack('bff_race');
  client = new ProductoServiceClient(stack.productoSvcAddr, credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await stack?.close();
});

/** CreateProducto straight to producto-svc (no existence check): 'created', or 'refused' on bodegaId. */
function createDirect(bodegaId: number, nombre: string): Promise<'created' | 'refused'> {
  const metadata = new Metadata();
  metadata.set(USUARIO_METADATA_KEY, 'tester');
  const request = CreateProductoRequest.fromPartial({ nombre, precio: '1.00', cantidadEnStock: 1, bodegaId });
  return new Promise((resolve, reject) => {
    client.createProducto(
      request,
      metadata,
      { deadline: Date.now() + 10_000 },
      (err: ServiceError | null, res?: CreateProductoResponse) => {
        if (!err && res) resolve('created');
        else if (err?.details.includes('bodegaId')) resolve('refused');
        else reject(err ?? new Error('no answer'));
      },
    );
  });
}

/** Both outboxes drained, and the reconciliation consumer has handled every BodegaEliminada in the stream. */
async function reconciliationIdle(): Promise<void> {
  await stack.settledEvents();
  const jsm = await jetstreamManager(stack.nc);
  await waitFor(
    async () => {
      const info = await jsm.consumers.info(stack.namespace.stream, BODEGA_ELIMINADA_CONSUMER);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    'the reconciliation consumer to handle every BodegaEliminada',
    60_000,
  );
}

test(`${ROUNDS} rounds of creates naming a warehouse racing its forced delete leave no product pointing at a deleted warehouse`, async () => {
  const deleted: number[] = [];
  const outcomes = { created: 0, refused: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const bodegaId = await crearBodega(stack);
    await crearProducto(stack, { bodegaId });
    const forced = stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`);
    const viaBff = stack.request('POST', '/api/productos', {
      body: { nombre: `Carrera ${round}`, precio: 1, cantidadEnStock: 1, bodegaId },
    });
    const late = LATE_WRITE_DELAYS_MS.map((ms) =>
      sleep(ms).then(() => createDirect(bodegaId, `Carrera ${round} +${ms} ms`)),
    );
    const [deleteRes, bffRes, ...lateOutcomes] = await Promise.all([forced, viaBff, ...late]);
    expect(deleteRes.status).toBe(200);
    // 201 before the delete; 400 on bodegaId once the warehouse is gone (the BFF's check or producto-svc's record).
    expect([201, 400]).toContain(bffRes.status);
    if (bffRes.status === 400)
      expect(bffRes.body.detalles).toEqual([{ campo: 'bodegaId', mensaje: expect.any(String) }]);
    for (const outcome of lateOutcomes) outcomes[outcome] += 1;
    deleted.push(bodegaId);
  }

  await reconciliationIdle();
  const orphans = await stack
    .productoDb('productos')
    .whereIn('bodega_id', deleted)
    .count<{ n: number | string }[]>({ n: '*' })
    .first();
  process.stdout.write(
    `bodega-race: late writes created ${outcomes.created}, refused ${outcomes.refused}; orphans ${Number(orphans?.n)}\n`,
  );
  expect(Number(orphans?.n)).toBe(0);
  // And later ones, whenever they come, are refused rather than orphaned.
  for (const bodegaId of deleted.slice(0, 5)) expect(await createDirect(bodegaId, 'Después')).toBe('refused');
}, 180_000);
