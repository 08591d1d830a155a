import { randomBytes, randomUUID } from 'node:crypto';
import { createPool, type Pool, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { parseMysqlUrl } from '@inventario/platform';
import { productoBody } from './seed';

/**
 * The harness's own reads and writes on producto-svc's database: what only
 * the database can tell (when a write committed, whether the outbox is
 * drained, and bodega-svc's outbox too) and the bench-only shortcuts (trimming POSTed rows so list
 * targets keep their size, and the keys of keyed windows so every keyed
 * window starts from the same table; a backlog of keys; filling the outbox
 * to time the relay).
 */
export interface BenchDb {
  /**
   * Outbox rows not yet acknowledged by JetStream: producto-svc's, plus
   * bodega-svc's when its database is known (the stock writes' events,
   * MovimientoRegistrado, leave through it).
   */
  pendingOutbox(): Promise<number>;
  /** Deletes products above `maxId` (created by a POST window), without events. */
  trimProductos(maxId: number): Promise<number>;
  /**
   * Inserts `count` products in `bodegaIds`, without events (nothing has
   * seen them: a read is their first appearance), and returns their ids.
   * The cached BFF's soak reads more products than its cache holds.
   */
  insertProductos(count: number, bodegaIds: readonly number[]): Promise<number[]>;
  /**
   * Inserts `count` keys of earlier requests (method BACKLOG_METHOD, valid
   * for a day): the table a running service has, not an empty one.
   */
  fillIdempotencyKeys(count: number): Promise<void>;
  /**
   * Deletes every idempotency key but the backlog: those of keyed write windows (nothing else in the bench sends keys).
   */
  trimIdempotencyKeys(): Promise<number>;
  /** Commit time (the outbox row's created_at, epoch ms) of each event id. */
  commitTimes(eventIds: readonly string[]): Promise<Map<string, number>>;
  /** Inserts `count` outbox rows on `subject` in one transaction; returns their event ids. */
  fillOutbox(subject: string, count: number): Promise<string[]>;
  close(): Promise<void>;
}

/** The `method` of the backlog keys, which trimIdempotencyKeys keeps. */
export const BACKLOG_METHOD = 'bench/backlog';

/** About the size of a recorded product, so the backlog's pages look like a service's. */
const BACKLOG_RESPONSE = Buffer.from(
  JSON.stringify({
    id: 0,
    nombre: 'x'.repeat(40),
    descripcion: 'y'.repeat(60),
    precio: '0.00',
    padding: 'z'.repeat(150),
  }),
);

async function pendingIn(pool: Pool): Promise<number> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM outbox WHERE published_at IS NULL');
  return Number(rows[0]?.n ?? 0);
}

/** `bodegaUrl`: bodega-svc's database, read only for its pending outbox rows. */
export function openBenchDb(url: string, bodegaUrl?: string): BenchDb {
  const pool: Pool = createPool({ ...parseMysqlUrl(url), timezone: 'Z', connectionLimit: 2 });
  const bodegaPool: Pool | undefined =
    bodegaUrl === undefined
      ? undefined
      : createPool({ ...parseMysqlUrl(bodegaUrl), timezone: 'Z', connectionLimit: 1 });
  return {
    async pendingOutbox() {
      return (await pendingIn(pool)) + (bodegaPool ? await pendingIn(bodegaPool) : 0);
    },
    async trimProductos(maxId) {
      const [result] = await pool.query<ResultSetHeader>('DELETE FROM productos WHERE id > ?', [maxId]);
      return result.affectedRows;
    },
    async insertProductos(count, bodegaIds) {
      // A tag of this call, so its rows are found again whatever else inserts meanwhile.
      const tag = `bench soak ${randomUUID().slice(0, 8)}`;
      for (let done = 0; done < count; done += 1000) {
        const rows = Array.from({ length: Math.min(1000, count - done) }, () => {
          const body = productoBody(tag, bodegaIds);
          return [body.nombre, body.descripcion, body.precio.toFixed(2), body.cantidadEnStock, body.bodegaId];
        });
        const values = rows.map(() => '(?, ?, ?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP())').join(', ');
        await pool.query(
          `INSERT INTO productos (nombre, descripcion, precio, cantidad_en_stock, bodega_id, fecha_creacion, ` +
            `fecha_actualizacion) VALUES ${values}`,
          rows.flat(),
        );
      }
      const [rows] = await pool.query<RowDataPacket[]>('SELECT id FROM productos WHERE nombre LIKE ? ORDER BY id', [
        `${tag} %`,
      ]);
      return rows.map((row) => Number(row.id));
    },
    async fillIdempotencyKeys(count) {
      for (let done = 0; done < count; done += 1000) {
        const rows = Array.from({ length: Math.min(1000, count - done) }, () => [
          randomBytes(32),
          BACKLOG_METHOD,
          randomBytes(32),
          BACKLOG_RESPONSE,
        ]);
        const values = rows.map(() => '(?, ?, ?, ?, CURRENT_TIMESTAMP(3) + INTERVAL 1 DAY)').join(', ');
        await pool.query(
          `INSERT INTO idempotency_keys (scope_hash, method, request_hash, response, expires_at) VALUES ${values}`,
          rows.flat(),
        );
      }
    },
    async trimIdempotencyKeys() {
      const [result] = await pool.query<ResultSetHeader>('DELETE FROM idempotency_keys WHERE method <> ?', [
        BACKLOG_METHOD,
      ]);
      return result.affectedRows;
    },
    async commitTimes(eventIds) {
      const out = new Map<string, number>();
      for (let i = 0; i < eventIds.length; i += 500) {
        const chunk = eventIds.slice(i, i + 500);
        if (chunk.length === 0) continue;
        // UNIX_TIMESTAMP reads created_at in the session's zone, whatever the server's default.
        const [rows] = await pool.query<RowDataPacket[]>(
          'SELECT event_id, UNIX_TIMESTAMP(created_at) AS t FROM outbox WHERE event_id IN (?)',
          [chunk],
        );
        for (const row of rows) out.set(String(row.event_id), Number(row.t) * 1000);
      }
      return out;
    },
    async fillOutbox(subject, count) {
      const ids = Array.from({ length: count }, () => randomUUID());
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        for (let i = 0; i < ids.length; i += 500) {
          const rows = ids.slice(i, i + 500).map((id) => [id, subject, JSON.stringify({ id, bench: true })]);
          await connection.query('INSERT INTO outbox (event_id, subject, payload) VALUES ?', [rows]);
        }
        await connection.commit();
      } catch (err) {
        await connection.rollback();
        throw err;
      } finally {
        connection.release();
      }
      return ids;
    },
    close: async () => {
      await pool.end();
      await bodegaPool?.end();
    },
  };
}
