/**
 * What the database itself refuses (docs/contract.md §10.1), whatever the
 * code does: raw SQL through a separate pool on the service's database,
 * as an operator or a buggy release would send it. Lines and operations
 * are append-only (triggers), a line's figures must add up and never go
 * negative (CHECKs), two lines can never claim one version of a level
 * (unique), and a warehouse can never hold more than its capacity.
 */
import { TIPO_MOVIMIENTO_NAMES } from '@inventario/proto';
import { LIBRO_SOLO_ANEXADO } from '../src/store/migrations';
import { ledgerProblems } from '@inventario/testkit';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;
let bodegaId: number;
const productoId = 7;
let operacionId: number;

beforeAll(async () => {
  svc = await startTestService('bodega_stock_guards');
  bodegaId = (await svc.rpc.createBodega({ nombre: 'Libro', capacidad: 100 })).bodega!.id;
  await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10 });
  const { operacion } = await svc.stock.registrarMovimiento({
    bodegaId,
    productoId,
    tipo: TIPO_MOVIMIENTO_NAMES.value('SALIDA'),
    cantidad: 3,
    motivo: 0,
  });
  operacionId = operacion!.id;
});

afterAll(async () => {
  await svc?.close();
});

/** The ledger as it stands, to show a refused statement changed nothing. */
async function ledger() {
  return {
    operaciones: await svc.db('operaciones').orderBy('id').select(),
    movimientos: await svc.db('movimientos').orderBy('id').select(),
    existencias: await svc.db('existencias').orderBy('id').select(),
    bodegas: await svc.db('bodegas').orderBy('id').select('id', 'capacidad', 'ocupacion'),
  };
}

/** The error a statement failed with; fails the test when it succeeded. */
async function refused(statement: Promise<unknown>): Promise<Error & { errno?: number; sqlMessage?: string }> {
  try {
    await statement;
  } catch (err) {
    return err as Error & { errno?: number; sqlMessage?: string };
  }
  throw new Error('the database accepted the statement');
}

/** A line of the level after its two lines (version 3), with the given figures. */
function linea(overrides: Record<string, unknown>) {
  return {
    operacion_id: operacionId,
    bodega_id: bodegaId,
    producto_id: productoId,
    tipo: 'ENTRADA',
    motivo: 'RECEPCION',
    cantidad: 1,
    cantidad_anterior: 7,
    cantidad_posterior: 8,
    version: 3,
    usuario: 'sql',
    comentario: null,
    fecha: new Date('2026-11-25T10:00:00Z'),
    ...overrides,
  };
}

describe('the ledger in the database', () => {
  it.each([
    [
      'an UPDATE of a line',
      () => svc.db('movimientos').where({ operacion_id: operacionId }).update({ cantidad: -1, cantidad_posterior: 9 }),
    ],
    ['a DELETE of a line', () => svc.db('movimientos').where({ operacion_id: operacionId }).delete()],
    ['an UPDATE of an operation', () => svc.db('operaciones').where({ id: operacionId }).update({ usuario: 'otro' })],
    ['a DELETE of an operation', () => svc.db.raw('DELETE FROM operaciones WHERE id = ?', [operacionId])],
    ['an UPDATE of every line', () => svc.db.raw("UPDATE movimientos SET comentario = 'x'")],
  ])('refuses %s with the trigger message, changing nothing', async (_what, statement) => {
    const before = await ledger();
    const err = await refused(statement());
    expect(err.sqlMessage).toBe(LIBRO_SOLO_ANEXADO);
    expect(await ledger()).toEqual(before);
  });

  it.each([
    [
      'cantidadPosterior != cantidadAnterior + cantidad',
      { cantidad: 1, cantidad_anterior: 7, cantidad_posterior: 9 },
      'movimientos_suma_check',
    ],
    [
      'a negative cantidadPosterior',
      { cantidad: -8, cantidad_anterior: 7, cantidad_posterior: -1 },
      'movimientos_no_negativo_check',
    ],
    [
      'a negative cantidadAnterior',
      { cantidad: 1, cantidad_anterior: -1, cantidad_posterior: 0 },
      'movimientos_no_negativo_check',
    ],
    ['a tipo outside the closed list', { tipo: 'REGALO' }, 'movimientos_tipo_check'],
    ['a motivo outside the closed list', { motivo: 'CAPRICHO' }, 'movimientos_motivo_check'],
  ])('refuses a line with %s (CHECK)', async (_what, overrides, constraint) => {
    const before = await ledger();
    const err = await refused(svc.db('movimientos').insert(linea(overrides)));
    expect(err.sqlMessage).toContain(constraint);
    expect(await ledger()).toEqual(before);
  });

  it('refuses a second line for one version of a level (unique warehouse, product, version)', async () => {
    const before = await ledger();
    const err = await refused(
      svc.db('movimientos').insert(linea({ version: 2, cantidad: 1, cantidad_anterior: 7, cantidad_posterior: 8 })),
    );
    expect(err.sqlMessage).toContain('movimientos_nivel_version_unique');
    expect(await ledger()).toEqual(before);
  });

  it('accepts a well-formed next line: the guards refuse only what breaks the ledger', async () => {
    // In a transaction rolled back, so the ledger stays as the other tests expect it.
    const trx = await svc.db.transaction();
    try {
      await trx('movimientos').insert(linea({}));
      expect(
        await trx('movimientos').where({ bodega_id: bodegaId, producto_id: productoId }).max({ v: 'version' }).first(),
      ).toEqual({ v: 3 });
    } finally {
      await trx.rollback();
    }
  });

  it('refuses a negative level, and a warehouse holding more than its capacity (also by lowering the capacity by hand)', async () => {
    const before = await ledger();
    expect(
      (await refused(svc.db('existencias').where({ bodega_id: bodegaId }).update({ cantidad: -1 }))).sqlMessage,
    ).toContain('existencias_cantidad_check');
    expect((await refused(svc.db('bodegas').where({ id: bodegaId }).update({ ocupacion: 101 }))).sqlMessage).toContain(
      'bodegas_ocupacion_check',
    );
    expect((await refused(svc.db('bodegas').where({ id: bodegaId }).update({ capacidad: 6 }))).sqlMessage).toContain(
      'bodegas_ocupacion_check',
    );
    expect(await ledger()).toEqual(before);
    expect(await ledgerProblems(svc.db)).toEqual([]);
  });
});
