/**
 * bodega-svc's stores of stock and reservations on a fresh MariaDB, with the database clock
 * under the test's control: `reloj_prueba` holds the instant every statement reads as "now"
 * (the stores take the clock as an SQL expression; the service's is UTC_TIMESTAMP(6)). Events
 * are the outbox rows the writes committed (no relay runs).
 */
import { createDb, type CallContext, type Knex } from '@inventario/platform';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';
import { createBodegaEvents } from '../../src/events/bodega-events';
import { createExistenciaEvents } from '../../src/events/existencia-events';
import { createReservaEvents } from '../../src/events/reserva-events';
import { LIMITES_RESERVA } from '../../src/domain/reserva';
import { createBodegaStore, type BodegaStore } from '../../src/store/bodega-store';
import { createExistenciaStore, type ExistenciaStore } from '../../src/store/existencia-store';
import { migrations } from '../../src/store/migrations';
import { createReservaStore, type ReservaStore } from '../../src/store/reserva-store';

export const RELOJ_PRUEBA = '(SELECT ahora FROM reloj_prueba WHERE id = 1)';

export interface ReservasHarness {
  db: Knex;
  existencias: ExistenciaStore;
  reservas: ReservaStore;
  bodegas: BodegaStore;
  /** Sets the database clock to this instant, microseconds included ('2030-01-01 00:00:00.000001'). */
  fijarReloj(instante: string): Promise<void>;
  /** Moves the clock by `micros` microseconds. */
  avanzar(micros: number): Promise<void>;
  /** Another bodega-svc's stores on the same database (its own pool), as a second replica. */
  replica(): { reservas: ReservaStore; existencias: ExistenciaStore; close(): Promise<void> };
  close(): Promise<void>;
}

export const USUARIO: CallContext = { usuario: 'prueba' };

const opts = { namespace: 'test', subjectPrefix: 'test' };
const reloj = { reloj: RELOJ_PRUEBA, events: createReservaEvents(opts), umbrales: createExistenciaEvents(opts) };

/** The pool as bodega-svc opens it (app.ts): REPEATABLE READ sessions that take several statements in one query. */
const POOL = { acquireTimeoutMs: 60_000, transactionIsolation: 'REPEATABLE READ', multipleStatements: true } as const;

export async function startReservasHarness(label: string, poolMax = 20): Promise<ReservasHarness> {
  const testDb: TestDatabase = await createTestDatabase(label);
  const db = createDb(testDb.url, { poolMax, ...POOL });
  const storesOn = (conn: Knex) => {
    // The stores as app.ts builds them: the writes the service sends, in the round trips it sends them.
    const existencias = createExistenciaStore(conn, {
      events: createExistenciaEvents(opts),
      productos: { isLive: () => Promise.resolve(true) },
      idempotencyTtlSeconds: 3600,
      reservas: reloj,
      sesionRepeatableRead: true,
      sentenciasJuntas: true,
    });
    const reservas = createReservaStore(conn, {
      ...reloj,
      existencias,
      limites: LIMITES_RESERVA,
      idempotencyTtlSeconds: 3600,
      sentenciasJuntas: true,
    });
    return { existencias, reservas };
  };
  // Each migration's `up` in name order (the runner is internal to platform; these are the ones it runs).
  for (const [, m] of Object.entries(migrations).sort(([a], [b]) => a.localeCompare(b))) await m.up(db);
  await db.raw('CREATE TABLE reloj_prueba (id INT PRIMARY KEY, ahora DATETIME(6) NOT NULL)');
  await db.raw("INSERT INTO reloj_prueba VALUES (1, '2030-01-01 00:00:00.000000')");
  const { existencias, reservas } = storesOn(db);
  const bodegas = createBodegaStore(db, { events: createBodegaEvents(opts), idempotencyTtlSeconds: 3600, existencias });
  return {
    db,
    existencias,
    reservas,
    bodegas,
    async fijarReloj(instante) {
      await db.raw('UPDATE reloj_prueba SET ahora = ? WHERE id = 1', [instante]);
    },
    async avanzar(micros) {
      await db.raw('UPDATE reloj_prueba SET ahora = ahora + INTERVAL ? MICROSECOND WHERE id = 1', [micros]);
    },
    replica() {
      const otra = createDb(testDb.url, { poolMax, ...POOL });
      return { ...storesOn(otra), close: () => otra.destroy() };
    },
    async close() {
      await db.destroy();
      await testDb.drop();
    },
  };
}

/** The outbox's reservation events, oldest first: [subject suffix, reservaId, estado]. */
export async function eventosDeReserva(
  db: Knex,
): Promise<{ tipo: string; reservaId: number; estado: string; faltante?: unknown }[]> {
  const rows = await db('outbox')
    .where('subject', 'like', '%.reserva.%')
    .orderBy('id')
    .select<{ subject: string; payload: string }[]>('subject', 'payload');
  return rows.map((r) => {
    const env = JSON.parse(r.payload) as { data: { reservaId: number; estado: string; faltante?: unknown } };
    return {
      tipo: r.subject.split('.').slice(-1)[0]!,
      reservaId: env.data.reservaId,
      estado: env.data.estado,
      ...(env.data.faltante ? { faltante: env.data.faltante } : {}),
    };
  });
}

/** The invariants of holds in SQL: each level's reservada is its lines' sum, within 0..cantidad, and the verification finds nothing. */
export async function problemasDeReservas(h: ReservasHarness): Promise<unknown[]> {
  const [fuera] = (await h.db.raw(
    'SELECT bodega_id, producto_id, cantidad, reservada FROM existencias WHERE reservada < 0 OR reservada > cantidad',
  )) as [unknown[]];
  return [...fuera, ...(await h.reservas.verificar())];
}
