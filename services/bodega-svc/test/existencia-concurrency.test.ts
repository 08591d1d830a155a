/**
 * The stock under concurrency (docs/contract.md §10.1): many clients, each
 * on its own connection, against one real bodega-svc and its MariaDB. Each
 * test fires its calls at once and then checks every answer and the ledger
 * in SQL: no overselling, no overfilled warehouse, no deadlock reaching a
 * client, one operation per idempotency key, no stock left for a deleted
 * product.
 */
import { TIPO_MOVIMIENTO_NAMES } from '@inventario/proto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceError } from '@grpc/grpc-js';
import { errorDataOf, errorReasonOf } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { productoEliminadoDe } from './support/producto-eliminado';
import { answerOf, stockClients, tally, type Answer, type StockClients } from '@inventario/testkit/grpc';
import { ledgerProblems, lineVersions, ocupacionExacta } from '@inventario/testkit';
import { asUser, startTestService, type TestService } from './support/test-service';

const ENTRADA = TIPO_MOVIMIENTO_NAMES.value('ENTRADA');
const SALIDA = TIPO_MOVIMIENTO_NAMES.value('SALIDA');
const CLIENTS = 50;

let svc: TestService;
let many: StockClients;
let eliminarProducto: (productoId: number) => Promise<void>;

beforeAll(async () => {
  // Some cases hold a warehouse's row lock while calls queue behind it: the default statement
  // limit (4 s) could kill a queued call on a slow machine, which is not what is tested.
  svc = await startTestService('bodega_stock_conc', { env: { DB_STATEMENT_TIMEOUT_MS: '120000' } });
  many = stockClients(svc.address, CLIENTS);
  eliminarProducto = productoEliminadoDe(svc);
});

afterAll(async () => {
  many?.close();
  await svc?.close();
});

afterEach(async () => {
  expect(await ledgerProblems(svc.db)).toEqual([]);
});

let seq = 0;
async function bodega(capacidad: number): Promise<number> {
  seq += 1;
  const res = await svc.rpc.createBodega({ nombre: `Concurrente ${seq}`, capacidad });
  return res.bodega!.id;
}

/** A product id no other test here uses (products live in producto-svc; any positive id is one here). */
function producto(): number {
  seq += 1;
  return 5000 + seq;
}

/** The i-th client, round robin. */
const client = (i: number) => many.clients[i % CLIENTS]!;

async function nivel(bodegaId: number, productoId: number): Promise<number | undefined> {
  const row = await svc
    .db('existencias')
    .where({ bodega_id: bodegaId, producto_id: productoId })
    .first<{ cantidad: number } | undefined>('cantidad');
  return row?.cantidad;
}

describe('concurrent stock writes', () => {
  it('50 clients each taking 1 unit of a level of 10: exactly 10 succeed, 40 STOCK_INSUFICIENTE, the level ends at 0 with versions 1..11', async () => {
    const bodegaId = await bodega(100);
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10 });

    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        answerOf(
          client(i).registrarMovimiento(
            { bodegaId, productoId, tipo: SALIDA, cantidad: 1, motivo: 0 },
            asUser(`c${i}`),
          ),
        ),
      ),
    );

    expect(tally(answers)).toEqual({ ok: 10, 'FAILED_PRECONDITION STOCK_INSUFICIENTE': 40 });
    expect(await nivel(bodegaId, productoId)).toBe(0);
    expect(await lineVersions(svc.db, bodegaId, productoId)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    // Each success took the unit its version says: 10 -> 9 at version 2 ... 1 -> 0 at version 11.
    const lineas = await svc
      .db('movimientos')
      .where({ bodega_id: bodegaId, producto_id: productoId })
      .orderBy('version')
      .select('version', 'cantidad_anterior', 'cantidad_posterior');
    expect(lineas.slice(1)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ version: i + 2, cantidad_anterior: 10 - i, cantidad_posterior: 9 - i })),
    );
    expect(Number((await svc.db('bodegas').where({ id: bodegaId }).first(ocupacionExacta(svc.db))).ocupacion)).toBe(0);
  });

  it('20 clients filling one warehouse across 5 products never pass its capacity: exactly capacity / unit entries succeed', async () => {
    const capacidad = 60;
    const unidad = 3;
    const bodegaId = await bodega(capacidad);
    const productos = Array.from({ length: 5 }, producto);
    // 20 clients, 3 entries each: 180 units asked of 60 places.
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, c) => {
        const mine: Answer<unknown>[] = [];
        for (let k = 0; k < 3; k++) {
          const productoId = productos[(c + k) % productos.length]!;
          mine.push(
            await answerOf(
              client(c).registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: unidad, motivo: 0 }),
            ),
          );
        }
        return mine;
      }),
    );

    expect(tally(answers.flat())).toEqual({
      ok: capacidad / unidad,
      'FAILED_PRECONDITION CAPACIDAD_EXCEDIDA': 60 - capacidad / unidad,
    });
    const row = await svc
      .db('bodegas')
      .where({ id: bodegaId })
      .first<{ capacidad: number; ocupacion: number }>('capacidad', ocupacionExacta(svc.db));
    expect(row).toEqual({ capacidad, ocupacion: capacidad });
    const suma = (await svc.db('existencias').where({ bodega_id: bodegaId }).sum({ s: 'cantidad' }).first()) as {
      s: number | string;
    };
    expect(Number(suma.s)).toBe(capacidad);
  });

  it('opposite transfers between two warehouses from 40 clients all complete: no deadlock reaches a client, and the units are conserved', async () => {
    const [a, b] = [await bodega(1000), await bodega(1000)];
    const [p1, p2] = [producto(), producto()];
    for (const bodegaId of [a, b])
      for (const productoId of [p1, p2]) await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 100 });
    const ROUNDS = 5;

    // Half move p1 from a to b and p2 from b to a, half the opposite: every pair of transactions locks both warehouses.
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, c) => {
        const mine: Answer<unknown>[] = [];
        for (let k = 0; k < ROUNDS; k++) {
          const [origenId, destinoId] = (c + k) % 2 === 0 ? [a, b] : [b, a];
          mine.push(
            await answerOf(
              client(c).transferir({ productoId: c % 4 < 2 ? p1 : p2, origenId, destinoId, cantidad: 1 + (c % 3) }),
            ),
          );
        }
        return mine;
      }),
    );

    const failures = answers.flat().filter((x) => !x.ok);
    expect(failures).toEqual([]);
    for (const productoId of [p1, p2]) expect((await nivel(a, productoId))! + (await nivel(b, productoId))!).toBe(200);
    const ocupaciones = await svc
      .db('bodegas')
      .whereIn('id', [a, b])
      .select<{ ocupacion: number | string }[]>(ocupacionExacta(svc.db));
    expect(ocupaciones.reduce((s, r) => s + Number(r.ocupacion), 0)).toBe(400);
    const transferencias = await svc
      .db('operaciones')
      .where({ tipo: 'TRANSFERENCIA' })
      .count<{ n: number }[]>({ n: '*' });
    expect(Number(transferencias[0]!.n)).toBeGreaterThanOrEqual(40 * ROUNDS);
  });

  it('50 exits of 1 against 10 units of a full warehouse while 20 clients add units of other products: exactly 10 exits succeed, capacity never passed, no entry that fits refused', async () => {
    const capacidad = 10;
    const bodegaId = await bodega(capacidad);
    const vendido = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId: vendido, cantidad: 10 });
    const otros = Array.from({ length: 20 }, producto);
    const entradas = stockClients(svc.address, otros.length);

    // Exact occupancy and the sum of the levels, sampled in SQL for as long as the writes run.
    let corriendo = true;
    let maxima = 0;
    const muestreo = (async () => {
      while (corriendo) {
        const [row] = await svc
          .db('bodegas')
          .where({ id: bodegaId })
          .select<{ ocupacion: number | string; suma: number | string }[]>(
            ocupacionExacta(svc.db),
            svc.db.raw('(SELECT COALESCE(SUM(cantidad), 0) FROM existencias e WHERE e.bodega_id = bodegas.id) AS suma'),
          );
        maxima = Math.max(maxima, Number(row!.ocupacion), Number(row!.suma));
        await sleep(5);
      }
    })();

    let salidasTerminadas = false;
    const salidas = Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        answerOf(
          client(i).registrarMovimiento(
            { bodegaId, productoId: vendido, tipo: SALIDA, cantidad: 1, motivo: 0 },
            asUser(`s${i}`),
          ),
        ),
      ),
    ).finally(() => (salidasTerminadas = true));
    // Each client adds 1 unit of its own product: refused while the warehouse is full, it tries again until it
    // gets in or the exits are over, and then once more. Every refusal must name a full warehouse.
    const refusals: unknown[] = [];
    const entradasOk = await Promise.all(
      otros.map(async (productoId, c) => {
        for (;;) {
          const ultima = salidasTerminadas;
          try {
            await entradas.clients[c]!.registrarMovimiento({
              bodegaId,
              productoId,
              tipo: ENTRADA,
              cantidad: 1,
              motivo: 0,
            });
            return 1;
          } catch (err) {
            if (errorReasonOf(err as ServiceError) !== 'CAPACIDAD_EXCEDIDA') throw err;
            refusals.push(errorDataOf(err as ServiceError));
          }
          if (ultima) return 0;
          await sleep(2);
        }
      }),
    );
    const exits = await salidas;
    corriendo = false;
    await muestreo;
    entradas.close();

    expect(tally(exits)).toEqual({ ok: 10, 'FAILED_PRECONDITION STOCK_INSUFICIENTE': 40 });
    expect(await nivel(bodegaId, vendido)).toBe(0);
    // The room the 10 exits freed is taken, by exactly as many entries: none that fitted was refused, none overflowed.
    expect(entradasOk.reduce<number>((a, b) => a + b, 0)).toBe(10);
    expect(refusals).toEqual(refusals.map(() => ({ bodegaId, capacidad, ocupacion: capacidad, solicitado: 1 })));
    const row = await svc
      .db('bodegas')
      .where({ id: bodegaId })
      .first<{ capacidad: number; ocupacion: number }>('capacidad', ocupacionExacta(svc.db));
    expect(row).toEqual({ capacidad, ocupacion: capacidad });
    expect(maxima).toBeLessThanOrEqual(capacidad);
  });

  it('exits do not wait for the warehouse row: one completes while another transaction holds it shared', async () => {
    const bodegaId = await bodega(100);
    const [p1, p2] = [producto(), producto()];
    await svc.stock.asignarExistencia({ bodegaId, productoId: p1, cantidad: 10 });
    const trx = await svc.db.transaction();
    try {
      // What an exit in flight holds of the warehouse: the row, shared. Another exit completes beside it
      // (with the exclusive lock every stock write took before issue 23, it waited for this transaction).
      await trx('bodegas').where({ id: bodegaId }).forShare().first('id');
      await client(0).registrarMovimiento({ bodegaId, productoId: p1, tipo: SALIDA, cantidad: 1, motivo: 0 });
    } finally {
      await trx.commit();
    }
    // An entry, which holds the row exclusively to know its exact room, then finds the unit the exit freed.
    await client(1).registrarMovimiento({ bodegaId, productoId: p2, tipo: ENTRADA, cantidad: 1, motivo: 0 });
    const row = await svc
      .db('bodegas')
      .where({ id: bodegaId })
      .first<{ ocupacion: number | string }>(ocupacionExacta(svc.db));
    expect(Number(row?.ocupacion)).toBe(10);
  });

  it('first entries of many products in many warehouses at once all succeed: creating levels side by side deadlocks no client', async () => {
    const bodegas = [await bodega(10_000), await bodega(10_000), await bodega(10_000), await bodega(10_000)];
    const productos = Array.from({ length: 10 }, producto);
    // Every client starts new levels all over the index, keyed or not, so their gap locks meet.
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, c) => {
        const mine: Answer<unknown>[] = [];
        for (let k = 0; k < 5; k++) {
          const [bodegaId, productoId] = [
            bodegas[(c + k) % bodegas.length]!,
            productos[(c * 3 + k) % productos.length]!,
          ];
          const requestId = c % 2 === 0 ? `nuevo-${c}-${k}` : undefined;
          mine.push(
            await answerOf(
              client(c).registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: 1, motivo: 0, requestId }),
            ),
          );
        }
        return mine;
      }),
    );

    expect(tally(answers.flat())).toEqual({ ok: 200 });
    const suma = (await svc.db('existencias').whereIn('bodega_id', bodegas).sum({ s: 'cantidad' }).first()) as {
      s: number | string;
    };
    expect(Number(suma.s)).toBe(200);
  });

  it('20 clients sending one request_id at once get one operation: every answer the same, once those told IN_USE retry', async () => {
    const bodegaId = await bodega(100);
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10 });
    const requestId = `conc-${productoId}`;
    const request = { bodegaId, productoId, tipo: ENTRADA, cantidad: 5, motivo: 0, requestId };
    const user = asUser('una-clave');

    const first = await Promise.all(
      Array.from({ length: 20 }, (_, i) => answerOf(client(i).registrarMovimiento(request, user))),
    );
    // A repeat that arrives while the first is still in its transaction is told to retry (IN_USE); none may do anything else.
    expect(Object.keys(tally(first)).filter((k) => k !== 'ok' && k !== 'ABORTED IDEMPOTENCY_KEY_IN_USE')).toEqual([]);
    const answers = await Promise.all(
      first.map(async (a, i) => {
        let got = a;
        while (!got.ok) {
          await new Promise((r) => setTimeout(r, 10));
          got = await answerOf(client(i).registrarMovimiento(request, user));
        }
        return got.res;
      }),
    );

    expect(new Set(answers.map((x) => JSON.stringify(x))).size).toBe(1);
    const ops = await svc.db('operaciones').where({ clave_idempotencia: requestId }).select('id');
    expect(ops).toHaveLength(1);
    expect(Number(ops[0].id)).toBe(answers[0]!.operacion!.id);
    expect(await nivel(bodegaId, productoId)).toBe(15);
    expect(await lineVersions(svc.db, bodegaId, productoId)).toEqual([1, 2]);
  });

  it('reversals of one operation from 20 clients: exactly one succeeds, the others OPERACION_YA_REVERTIDA', async () => {
    const bodegaId = await bodega(100);
    const productoId = producto();
    const { operacion } = await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 30 });

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => answerOf(client(i).revertirOperacion({ operacionId: operacion!.id }))),
    );

    expect(tally(answers)).toEqual({ ok: 1, 'FAILED_PRECONDITION OPERACION_YA_REVERTIDA': 19 });
    expect(await nivel(bodegaId, productoId)).toBe(0);
    expect(await svc.db('operaciones').where({ revierte_a: operacion!.id }).count<{ n: number }[]>({ n: '*' })).toEqual(
      [{ n: 1 }],
    );
  });

  it('assignments and entries racing a product deletion (delivered twice) never leave stock for the deleted product', async () => {
    const bodegas = [await bodega(10_000), await bodega(10_000), await bodega(10_000)];
    const refusedAfter: string[] = [];
    for (let round = 0; round < 8; round++) {
      const productoId = producto();
      // Some levels exist before, so the deletion has stock to write out while writes arrive.
      await svc.stock.asignarExistencia({ bodegaId: bodegas[round % 3]!, productoId, cantidad: 5 });
      const writes = Array.from({ length: 24 }, (_, i) => {
        const bodegaId = bodegas[i % 3]!;
        return i % 2 === 0
          ? answerOf(client(i).asignarExistencia({ bodegaId, productoId, cantidad: 1 + i }))
          : answerOf(client(i).registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: 2, motivo: 0 }));
      });
      // The deletion lands part way through the writes, and again (a redelivery).
      const deletions = [
        new Promise((r) => setTimeout(r, round)).then(() => eliminarProducto(productoId)),
        eliminarProducto(productoId),
      ];
      const answers = await Promise.all(writes);
      await Promise.all(deletions);

      expect(
        Object.keys(tally(answers)).filter((k) => k !== 'ok' && k !== 'FAILED_PRECONDITION PRODUCTO_ELIMINADO'),
      ).toEqual([]);
      expect(await svc.db('existencias').where({ producto_id: productoId }).select('bodega_id', 'cantidad')).toEqual(
        [],
      );
      // Written after the deletion: refused.
      const later = await answerOf(
        svc.stock.registrarMovimiento({ bodegaId: bodegas[0]!, productoId, tipo: ENTRADA, cantidad: 1, motivo: 0 }),
      );
      refusedAfter.push(later.ok ? 'ok' : `${later.reason}`);
      // Every warehouse's last line of the product leaves it at 0.
      const ultimas = (await svc.db.raw(
        `SELECT m.bodega_id, m.cantidad_posterior FROM movimientos m
          WHERE m.producto_id = ? AND m.version = (SELECT MAX(version) FROM movimientos x WHERE x.bodega_id = m.bodega_id AND x.producto_id = m.producto_id)`,
        [productoId],
      )) as [{ bodega_id: number; cantidad_posterior: number }[]];
      expect(ultimas[0].filter((r) => r.cantidad_posterior !== 0)).toEqual([]);
    }
    expect(refusedAfter).toEqual(Array.from({ length: 8 }, () => 'PRODUCTO_ELIMINADO'));
  });
});

/** Transactions on this service's database waiting for a lock. */
async function lockWaits(): Promise<number> {
  const [rows] = (await svc.db.raw(
    `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
      WHERE t.trx_state = 'LOCK WAIT' AND p.DB = ?`,
    [svc.database],
  )) as [{ n: number | string }[]];
  return Number(rows[0]!.n);
}

/**
 * Holds a warehouse's row lock, as a stock write of another replica would,
 * while `calls` are sent one by one, each once the previous ones wait
 * behind the lock; then lets them run, in that order. Fixes an interleaving
 * that concurrency only makes likely.
 */
async function queuedBehindLock(
  bodegaId: number,
  calls: (() => Promise<Answer<unknown>>)[],
): Promise<Answer<unknown>[]> {
  const holder = await svc.db.transaction();
  const pending: Promise<Answer<unknown>>[] = [];
  try {
    await holder('bodegas').where({ id: bodegaId }).forUpdate();
    for (const call of calls) {
      pending.push(call());
      // Polled no faster than InnoDB refreshes INNODB_TRX (a cache re-read within 0.1 s is served stale).
      await waitFor(
        async () => (await lockWaits()) >= pending.length,
        `call ${pending.length} to wait for the warehouse lock`,
        10_000,
        200,
      );
    }
  } finally {
    await holder.rollback();
  }
  return Promise.all(pending);
}

describe('writes that waited for a warehouse while others committed', () => {
  it('a keyed write whose level was created and removed while it waited continues from the latest version', async () => {
    const bodegaId = await bodega(100);
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 5 });
    await svc.stock.retirarExistencia({ bodegaId, productoId });

    // The keyed request reads its key before it waits: the creation (v3) and removal (v4) commit after that read.
    const answers = await queuedBehindLock(bodegaId, [
      () => answerOf(svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 7 })),
      () => answerOf(svc.stock.retirarExistencia({ bodegaId, productoId })),
      () =>
        answerOf(svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 3, requestId: `espera-${productoId}` })),
    ]);

    expect(answers.map((a) => (a.ok ? 'ok' : `${a.code} ${a.details}`))).toEqual(['ok', 'ok', 'ok']);
    expect(await lineVersions(svc.db, bodegaId, productoId)).toEqual([1, 2, 3, 4, 5]);
    expect(await nivel(bodegaId, productoId)).toBe(3);
  });

  it('a keyed warehouse delete that waited while stock was assigned there writes that stock out, or refuses it without force', async () => {
    const [conForce, sinForce] = [await bodega(100), await bodega(100)];
    const productoId = producto();
    // Known to bodega-svc already (as after its ProductoCreado): the race under test is the warehouse's lock, not the first lookup of a product.
    await svc.db.raw('INSERT IGNORE INTO productos_conocidos (producto_id) VALUES (?)', [productoId]);

    const [asignada, eliminada] = await queuedBehindLock(conForce, [
      () => answerOf(svc.stock.asignarExistencia({ bodegaId: conForce, productoId, cantidad: 5 })),
      () => answerOf(svc.rpc.deleteBodega({ id: conForce, retirarExistencias: true, requestId: `borrar-${conForce}` })),
    ]);
    expect([asignada!.ok, eliminada]).toEqual([
      true,
      {
        ok: true,
        res: {
          existenciasRetiradas: 1,
          unidadesRetiradas: 5,
          pendiente: false,
          productosDesasignados: [],
          totalDesasignados: 0,
        },
      },
    ]);
    expect(await svc.db('existencias').where({ bodega_id: conForce }).select()).toEqual([]);

    const [, refusal] = await queuedBehindLock(sinForce, [
      () => answerOf(svc.stock.asignarExistencia({ bodegaId: sinForce, productoId, cantidad: 5 })),
      () => answerOf(svc.rpc.deleteBodega({ id: sinForce, requestId: `borrar-${sinForce}` })),
    ]);
    expect(refusal).toMatchObject({ ok: false, code: 'FAILED_PRECONDITION', reason: 'BODEGA_CON_EXISTENCIAS' });
    expect(await nivel(sinForce, productoId)).toBe(5);
  });
});
