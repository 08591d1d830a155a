/**
 * What producto-svc asks bodega-svc's ledger (docs/contract.md §10.6), seen by a stand-in ledger
 * (testkit's fake-libro.ts): a create's cantidadEnStock as the product's initial stock (once per
 * product by bodega-svc's own table); a PUT of it as a count, keyed by the product's new version; nothing for writes without
 * units. The ledger's side is bodega-svc's tests' and, across the real services, the BFF's.
 */
import { MOTIVO_MOVIMIENTO_NAMES } from '@inventario/proto';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('p_libro_de_stock');
});

afterAll(async () => {
  await svc?.close();
});

beforeEach(() => {
  svc.libro.calls.length = 0;
});

it('a create with units records them as its initial stock, in its warehouse when it has one; a create with none asks nothing', async () => {
  const { producto } = await svc.api.create({
    nombre: 'Con unidades',
    precio: '1.00',
    cantidadEnStock: 12,
    bodegaId: 4,
  });
  await svc.api.create({ nombre: 'Sin unidades', precio: '1.00', cantidadEnStock: 0 });
  expect(svc.libro.calls).toEqual([
    {
      method: 'registrarStockInicial',
      request: expect.objectContaining({
        productoId: producto!.id,
        bodegaId: 4,
        cantidad: 12,
        motivo: MOTIVO_MOVIMIENTO_NAMES.value('STOCK_INICIAL'),
      }),
    },
  ]);
});

it('a PUT of cantidadEnStock records a count keyed by the new version, with the warehouse after the update; other fields ask nothing', async () => {
  const { producto } = await svc.api.create({ nombre: 'Contado', precio: '1.00', cantidadEnStock: 0 });
  await svc.api.update({ producto: { id: producto!.id, nombre: 'Renombrado' }, updateMask: ['nombre'] });
  expect(svc.libro.calls).toEqual([]);
  const { producto: contado } = await svc.api.update({
    producto: { id: producto!.id, cantidadEnStock: 9, bodegaId: 7 },
    updateMask: ['cantidad_en_stock', 'bodega_id'],
  });
  expect(contado!.version).toBe(3);
  expect(svc.libro.calls).toEqual([
    {
      method: 'contarProducto',
      request: expect.objectContaining({
        productoId: producto!.id,
        bodegaId: 7,
        cantidad: 9,
        requestId: `producto-${producto!.id}-v3-conteo`,
      }),
    },
  ]);
});
