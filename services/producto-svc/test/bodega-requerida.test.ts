import { status } from '@grpc/grpc-js';
import { DEPENDENCIA_NO_DISPONIBLE, errorDataOf, errorReasonOf, fieldViolationsOf } from '@inventario/platform';
import { rejectionOf } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

// A product's bodegaId must name a warehouse bodega-svc has: producto-svc asks it (GetBodega) before
// the write, as the BFF did before the thin gateway (docs/decisions.md, "The thin gateway").
// Component test: the whole service on real MariaDB and NATS, bodega-svc a stand-in (testkit's fake-libro.ts).

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('producto_bodega_requerida');
  await svc.app.ready;
});

afterAll(async () => {
  await svc?.close();
});

const countProductos = async () => Number((await svc.db('productos').count<{ n: number }[]>({ n: '*' }))[0]!.n);

async function expectBodegaInexistente(call: Promise<unknown>, bodegaId: number): Promise<void> {
  const err = await rejectionOf(call);
  expect(err.code).toBe(status.INVALID_ARGUMENT);
  expect(fieldViolationsOf(err)).toEqual([{ campo: 'bodegaId', mensaje: `no existe la bodega ${bodegaId}` }]);
}

describe('bodegaId on writes', () => {
  it('a create or an update naming a warehouse bodega-svc does not have is refused on bodegaId, and nothing is written', async () => {
    svc.libro.bodegasInexistentes.add(404);
    const { producto } = await svc.api.create({
      nombre: 'Con bodega',
      precio: '1.00',
      cantidadEnStock: 0,
      bodegaId: 7,
    });
    expect(producto?.bodegaId).toBe(7);
    const antes = await countProductos();

    await expectBodegaInexistente(
      svc.api.create({ nombre: 'Sin bodega', precio: '1.00', cantidadEnStock: 2, bodegaId: 404 }),
      404,
    );
    await expectBodegaInexistente(
      svc.api.update({ producto: { id: producto!.id, bodegaId: 404 }, updateMask: ['bodegaId'] }),
      404,
    );

    expect(await countProductos()).toBe(antes);
    const { producto: leido } = await svc.api.get(producto!.id);
    expect(leido).toMatchObject({ bodegaId: 7, version: 1 });
    // Nothing was recorded in the ledger for the refused create.
    expect(svc.libro.calls.filter((c) => c.method === 'registrarStockInicial')).toEqual([]);
  });

  it('an update that clears bodegaId or leaves it out asks nothing of bodega-svc', async () => {
    svc.libro.bodegasInexistentes.add(8);
    const { producto } = await svc.api.create({ nombre: 'Se queda', precio: '1.00', cantidadEnStock: 0 });
    const { producto: renombrado } = await svc.api.update({
      producto: { id: producto!.id, nombre: 'Renombrado' },
      updateMask: ['nombre'],
    });
    expect(renombrado).toMatchObject({ nombre: 'Renombrado', version: 2 });
  });
});

describe('bodega-svc unreachable', () => {
  let sinBodegas: TestService;

  beforeAll(async () => {
    // A port nothing listens on: bodega-svc cannot say whether the warehouse exists.
    sinBodegas = await startTestService('producto_sin_bodegas', { BODEGA_SVC_ADDR: '127.0.0.1:1' });
    await sinBodegas.app.ready;
  });

  afterAll(async () => {
    await sinBodegas?.close();
  });

  it('a write naming a warehouse is UNAVAILABLE naming bodega-svc (the BFF answers 503 for it), nothing written; one without is written', async () => {
    const err = await rejectionOf(
      sinBodegas.api.create({ nombre: 'Espera', precio: '1.00', cantidadEnStock: 0, bodegaId: 3 }),
    );
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(errorReasonOf(err)).toBe(DEPENDENCIA_NO_DISPONIBLE);
    expect(errorDataOf(err)).toMatchObject({ servicio: 'bodega-svc' });
    expect(Number((await sinBodegas.db('productos').count<{ n: number }[]>({ n: '*' }))[0]!.n)).toBe(0);
    const { producto } = await sinBodegas.api.create({ nombre: 'Sin bodega', precio: '1.00', cantidadEnStock: 0 });
    expect(producto?.bodegaId).toBeUndefined();
  });
});
