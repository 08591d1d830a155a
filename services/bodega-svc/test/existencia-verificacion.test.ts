/**
 * VerificarExistencias and the gauge inventario_existencias_diferencias
 * (docs/contract.md §10.2): stock corrupted by SQL behind the service's
 * back is reported, level by level and warehouse by warehouse, with what is
 * stored and what the ledger says; nothing is corrected; the gauge on the
 * service's metrics port shows the count of the last verification. The
 * tests run in order on one database: each corrupts it, checks, and puts it
 * back.
 */
import { metricSample, scrapeMetrics } from '@inventario/testkit';
import { TIPO_MOVIMIENTO_NAMES } from '@inventario/proto';
import { startTestService, type TestService } from './support/test-service';

const GAUGE = 'inventario_existencias_diferencias';

let svc: TestService;
let bodegaId: number;
let otraBodegaId: number;

beforeAll(async () => {
  svc = await startTestService('bodega_stock_verif');
  bodegaId = (await svc.rpc.createBodega({ nombre: 'Verificada', capacidad: 100 })).bodega!.id;
  otraBodegaId = (await svc.rpc.createBodega({ nombre: 'Otra', capacidad: 100 })).bodega!.id;
  await svc.stock.asignarExistencia({ bodegaId, productoId: 1, cantidad: 20 });
  await svc.stock.asignarExistencia({ bodegaId, productoId: 2, cantidad: 7 });
  await svc.stock.transferir({ productoId: 1, origenId: bodegaId, destinoId: otraBodegaId, cantidad: 5 });
  await svc.stock.registrarMovimiento({
    bodegaId: otraBodegaId,
    productoId: 1,
    tipo: TIPO_MOVIMIENTO_NAMES.value('SALIDA'),
    cantidad: 2,
    motivo: 0,
  });
});

afterAll(async () => {
  await svc?.close();
});

async function gauge(): Promise<number | undefined> {
  return metricSample(await scrapeMetrics(svc.app.metricsPort), GAUGE);
}

describe('VerificarExistencias', () => {
  it('reports a consistent ledger as consistente, counting what it checked, and the gauge reads 0', async () => {
    const v = await svc.stock.verificarExistencias({});
    expect(v).toEqual({
      consistente: true,
      diferencias: [],
      nivelesVerificados: 3,
      bodegasVerificadas: 2,
      verificadoEn: expect.any(Date),
      diferenciasReservas: [],
    });
    expect(await gauge()).toBe(0);
  });

  it('reports a level changed by SQL (NIVEL) and the occupancy it no longer matches (OCUPACION), corrects nothing, and the gauge reads 2', async () => {
    await svc.db('existencias').where({ bodega_id: bodegaId, producto_id: 1 }).increment('cantidad', 5);

    const v = await svc.stock.verificarExistencias({});

    expect(v.consistente).toBe(false);
    expect(v.diferencias).toEqual([
      { tipo: 'NIVEL', bodegaId, productoId: 1, registrado: 20, calculado: 15 },
      { tipo: 'OCUPACION', bodegaId, productoId: 0, registrado: 22, calculado: 27 },
    ]);
    expect(await gauge()).toBe(2);
    // Reported, never corrected.
    expect(
      (await svc.db('existencias').where({ bodega_id: bodegaId, producto_id: 1 }).first('cantidad')).cantidad,
    ).toBe(20);

    await svc.db('existencias').where({ bodega_id: bodegaId, producto_id: 1 }).decrement('cantidad', 5);
    expect((await svc.stock.verificarExistencias({})).consistente).toBe(true);
    expect(await gauge()).toBe(0);
  });

  it('reports an occupancy changed by SQL alone (OCUPACION)', async () => {
    await svc.db('bodegas').where({ id: otraBodegaId }).decrement('ocupacion', 2);

    const v = await svc.stock.verificarExistencias({});

    expect(v.diferencias).toEqual([
      { tipo: 'OCUPACION', bodegaId: otraBodegaId, productoId: 0, registrado: 1, calculado: 3 },
    ]);
    expect(await gauge()).toBe(1);

    await svc.db('bodegas').where({ id: otraBodegaId }).increment('ocupacion', 2);
    expect((await svc.stock.verificarExistencias({})).consistente).toBe(true);
  });

  it('reports a level deleted by SQL while its lines still hold units (NIVEL with registrado 0)', async () => {
    const fila = await svc.db('existencias').where({ bodega_id: bodegaId, producto_id: 2 }).first();
    await svc.db('existencias').where({ id: fila.id }).delete();

    const v = await svc.stock.verificarExistencias({});

    expect(v.diferencias).toEqual([
      { tipo: 'NIVEL', bodegaId, productoId: 2, registrado: 0, calculado: 7 },
      { tipo: 'OCUPACION', bodegaId, productoId: 0, registrado: 22, calculado: 15 },
    ]);
    expect(v.nivelesVerificados).toBe(2);
    expect(await gauge()).toBe(2);

    await svc.db('existencias').insert(fila);
    expect(await svc.stock.verificarExistencias({})).toMatchObject({ consistente: true, nivelesVerificados: 3 });
    expect(await gauge()).toBe(0);
  });
  it("reports a level's reservada changed by SQL while no hold retains it (RESERVADA), and corrects nothing", async () => {
    await svc.db('existencias').where({ bodega_id: otraBodegaId, producto_id: 1 }).update({ reservada: 2 });

    const v = await svc.stock.verificarExistencias({});

    expect(v.consistente).toBe(false);
    expect(v.diferencias).toEqual([]);
    expect(v.diferenciasReservas).toEqual([
      { tipo: 'RESERVADA', reservaId: 0, bodegaId: otraBodegaId, productoId: 1, registrado: 2, calculado: 0 },
    ]);
    expect(await gauge()).toBe(1);
    expect(
      (await svc.db('existencias').where({ bodega_id: otraBodegaId, producto_id: 1 }).first('reservada')).reservada,
    ).toBe(2);

    await svc.db('existencias').where({ bodega_id: otraBodegaId, producto_id: 1 }).update({ reservada: 0 });
    expect((await svc.stock.verificarExistencias({})).consistente).toBe(true);
  });
});
