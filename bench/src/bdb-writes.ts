import { randomUUID } from 'node:crypto';
import express from 'express';
import { createPool, type Pool, type PoolConnection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { parseMysqlUrl } from '@inventario/platform';

/**
 * B_db's write yardsticks (issue 23): the least a Node.js HTTP service can do
 * to make each write durable the way the services make theirs, in one InnoDB
 * transaction with its outbox row, on tables of the same schema as the
 * services' own (CREATE TABLE ... LIKE, in a database of B_db's own, so the
 * services' relays never see these rows):
 *
 * - (a) `POST /productos`: INSERT a product row and an outbox row, COMMIT.
 * - (b) `POST /niveles/salida`: lock a level (SELECT ... FOR UPDATE), UPDATE
 *   it, INSERT a ledger line and an outbox row, COMMIT.
 *
 * Prepared statements (`execute`), a pool of the services' size, `res.json`.
 * No auth, no validation library, no gRPC hop, no relay publishing the rows.
 */

/** Warehouses and products of B_db's own levels: (b) moves units of one of them. */
export const BDB_BODEGAS = 10;
export const BDB_PRODUCTOS = 200;
export const BDB_UNIDADES = 1_000_000;

const INSERT_PRODUCTO =
  'INSERT INTO `productos` (`nombre`, `descripcion`, `precio`, `cantidad_en_stock`, `bodega_id`, `fecha_creacion`, ' +
  '`fecha_actualizacion`) VALUES (?, ?, ?, ?, ?, ?, ?)';
const INSERT_OUTBOX = 'INSERT INTO `outbox` (`event_id`, `subject`, `payload`, `headers`) VALUES (?, ?, ?, ?)';
const LOCK_NIVEL =
  'SELECT `id`, `cantidad`, `version` FROM `existencias` WHERE `bodega_id` = ? AND `producto_id` = ? FOR UPDATE';
const UPDATE_NIVEL = 'UPDATE `existencias` SET `cantidad` = ?, `version` = ?, `fecha_actualizacion` = ? WHERE `id` = ?';
const INSERT_LINEA =
  'INSERT INTO `movimientos` (`operacion_id`, `bodega_id`, `producto_id`, `tipo`, `motivo`, `cantidad`, ' +
  '`cantidad_anterior`, `cantidad_posterior`, `version`, `usuario`, `comentario`, `fecha`) VALUES (0, ?, ?, ?, ?, ' +
  '?, ?, ?, ?, ?, NULL, ?)';

const toSecond = () => new Date(Math.floor(Date.now() / 1000) * 1000);

/**
 * Creates B_db's write tables in `bdbUrl`'s database, shaped like producto-svc's
 * (`productos`, `outbox`) and bodega-svc's (`existencias`, `movimientos`), and
 * stocks BDB_PRODUCTOS products x BDB_UNIDADES in each of BDB_BODEGAS warehouses.
 * CREATE TABLE ... LIKE copies columns, indexes and CHECKs, not foreign keys or
 * triggers: the line needs no operation row, which the yardstick does not write.
 */
export async function prepareBdbWrites(bdbUrl: string, productoDb: string, bodegaDb: string): Promise<void> {
  const pool = createPool({ ...parseMysqlUrl(bdbUrl), timezone: 'Z', connectionLimit: 1 });
  try {
    for (const [table, from] of [
      ['productos', productoDb],
      ['outbox', productoDb],
      ['existencias', bodegaDb],
      ['movimientos', bodegaDb],
    ] as const) {
      await pool.query(`CREATE TABLE IF NOT EXISTS \`${table}\` LIKE \`${from}\`.\`${table}\``);
    }
    const at = toSecond();
    const rows: unknown[][] = [];
    for (let b = 1; b <= BDB_BODEGAS; b++)
      for (let p = 1; p <= BDB_PRODUCTOS; p++) rows.push([b, p, BDB_UNIDADES, null, 1, at, at]);
    await pool.query(
      'INSERT INTO `existencias` (`bodega_id`, `producto_id`, `cantidad`, `umbral_minimo`, `version`, ' +
        '`fecha_creacion`, `fecha_actualizacion`) VALUES ?',
      [rows],
    );
  } finally {
    await pool.end();
  }
}

export function createBdbWritePool(bdbUrl: string): Pool {
  return createPool({
    ...parseMysqlUrl(bdbUrl),
    timezone: 'Z',
    charset: 'utf8mb4',
    decimalNumbers: false,
    supportBigNumbers: true,
    connectionLimit: 10,
  });
}

/** Runs `work` in one transaction on one pooled connection; rolls back on any error. */
async function inTransaction<T>(pool: Pool, work: (conn: PoolConnection) => Promise<T>): Promise<T> {
  const conn = await pool.getConnection();
  try {
    await conn.query('START TRANSACTION');
    try {
      const out = await work(conn);
      await conn.query('COMMIT');
      return out;
    } catch (err) {
      await conn.query('ROLLBACK');
      throw err;
    }
  } finally {
    conn.release();
  }
}

class Conflicto extends Error {}

interface NivelRow extends RowDataPacket {
  id: number;
  cantidad: number;
  version: number;
}

/** Adds the write routes to B_db's app. */
export function addBdbWriteRoutes(app: express.Express, pool: Pool): void {
  app.post('/productos', express.json(), async (req, res) => {
    const body = req.body as {
      nombre?: string;
      descripcion?: string | null;
      precio?: number;
      cantidadEnStock?: number;
      bodegaId?: number | null;
    };
    const at = toSecond();
    try {
      const producto = await inTransaction(pool, async (conn) => {
        const [result] = await conn.execute<ResultSetHeader>(INSERT_PRODUCTO, [
          body.nombre ?? '',
          body.descripcion ?? null,
          String(body.precio ?? 0),
          body.cantidadEnStock ?? 0,
          body.bodegaId ?? null,
          at,
          at,
        ]);
        const producto = {
          id: result.insertId,
          ...body,
          fechaCreacion: at.toISOString().slice(0, 19),
          fechaActualizacion: at.toISOString().slice(0, 19),
        };
        const eventId = randomUUID();
        await conn.execute(INSERT_OUTBOX, [
          eventId,
          'bdb.producto.creado',
          JSON.stringify({ eventId, tipo: 'ProductoCreado', datos: producto }),
          null,
        ]);
        return producto;
      });
      res.status(201).json(producto);
    } catch {
      res.status(503).json({ error: 'SERVICE_UNAVAILABLE' });
    }
  });

  app.post('/niveles/salida', express.json(), async (req, res) => {
    const { bodegaId, productoId, cantidad } = req.body as { bodegaId: number; productoId: number; cantidad: number };
    const at = toSecond();
    try {
      const linea = await inTransaction(pool, async (conn) => {
        const [rows] = await conn.execute<NivelRow[]>(LOCK_NIVEL, [bodegaId, productoId]);
        const nivel = rows[0];
        if (!nivel || nivel.cantidad < cantidad) throw new Conflicto();
        const posterior = nivel.cantidad - cantidad;
        await conn.execute(UPDATE_NIVEL, [posterior, nivel.version + 1, at, nivel.id]);
        const linea = {
          bodegaId,
          productoId,
          tipo: 'SALIDA',
          motivo: 'VENTA',
          cantidad: -cantidad,
          cantidadAnterior: nivel.cantidad,
          cantidadPosterior: posterior,
          version: nivel.version + 1,
        };
        await conn.execute(INSERT_LINEA, [
          bodegaId,
          productoId,
          'SALIDA',
          'VENTA',
          -cantidad,
          nivel.cantidad,
          posterior,
          nivel.version + 1,
          'bench',
          at,
        ]);
        const eventId = randomUUID();
        await conn.execute(INSERT_OUTBOX, [
          eventId,
          'bdb.movimiento.registrado',
          JSON.stringify({ eventId, tipo: 'MovimientoRegistrado', datos: linea }),
          null,
        ]);
        return linea;
      });
      res.status(201).json(linea);
    } catch (err) {
      if (err instanceof Conflicto) return void res.status(409).json({ error: 'STOCK_INSUFICIENTE' });
      res.status(503).json({ error: 'SERVICE_UNAVAILABLE' });
    }
  });
}
