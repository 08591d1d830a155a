import type { Server } from 'node:http';
import express from 'express';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import { parseMysqlUrl } from '@inventario/platform';

/**
 * B_db, the yardstick: the least a Node.js HTTP service can do to answer a
 * product by id, or the whole list of products, from producto-svc's own
 * table. Express, one mysql2 pool (the services' size and connection
 * settings), the very SELECT that producto-svc's store sends, sent the same
 * way (a prepared statement, mysql2 `execute`), and the REST form of the
 * rows as JSON (`res.json`, so `precio` goes through a float: `19.9` where
 * the REST API writes `19.90`, a byte shorter, the same JSON form). No
 * auth, no gRPC hop, no validation library, no paging: every target is
 * judged as a ratio to this, measured in the same run.
 */

const SELECT_BY_ID =
  'SELECT `id`, `nombre`, `descripcion`, `precio`, `cantidad_en_stock`, `bodega_id`, `fecha_creacion`, ' +
  '`fecha_actualizacion` FROM `productos` WHERE `id` = ? LIMIT 1';

/** The list as `GET /api/productos` without parameters answers it: every product, in id order. */
const SELECT_ALL =
  'SELECT `id`, `nombre`, `descripcion`, `precio`, `cantidad_en_stock`, `bodega_id`, `fecha_creacion`, ' +
  '`fecha_actualizacion`, `version` FROM `productos` ORDER BY `id`';

/**
 * The REST timestamp form the plain way, as any express app would write it
 * (platform's formatLocalUtc computes the same text faster since issue 14;
 * the yardstick stays what it was measured as).
 */
const formatLocalUtc = (date: Date) => date.toISOString().slice(0, 19);

interface Row extends RowDataPacket {
  id: number;
  nombre: string;
  descripcion: string | null;
  precio: string;
  cantidad_en_stock: number;
  bodega_id: number | null;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
}

interface ListRow extends Row {
  version: number;
}

export function createBdbPool(databaseUrl: string): Pool {
  return createPool({
    ...parseMysqlUrl(databaseUrl),
    timezone: 'Z',
    charset: 'utf8mb4',
    decimalNumbers: false,
    supportBigNumbers: true,
    connectionLimit: 10,
  });
}

export function createBdbApp(pool: Pool): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/productos', async (_req, res) => {
    try {
      const [rows] = await pool.execute<ListRow[]>(SELECT_ALL);
      res.json(
        rows.map((row) => ({
          id: row.id,
          nombre: row.nombre,
          descripcion: row.descripcion,
          precio: Number(row.precio),
          cantidadEnStock: row.cantidad_en_stock,
          bodegaId: row.bodega_id,
          fechaCreacion: formatLocalUtc(row.fecha_creacion),
          fechaActualizacion: formatLocalUtc(row.fecha_actualizacion),
          version: row.version,
        })),
      );
    } catch {
      res.status(503).json({ error: 'SERVICE_UNAVAILABLE' });
    }
  });
  app.get('/productos/:id', async (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || id <= 0) return void res.status(400).json({ error: 'VALIDATION_ERROR' });
    try {
      const [rows] = await pool.execute<Row[]>(SELECT_BY_ID, [id]);
      const row = rows[0];
      if (!row) return void res.status(404).json({ error: 'NOT_FOUND' });
      res.json({
        id: row.id,
        nombre: row.nombre,
        descripcion: row.descripcion,
        precio: Number(row.precio),
        cantidadEnStock: row.cantidad_en_stock,
        bodegaId: row.bodega_id,
        fechaCreacion: formatLocalUtc(row.fecha_creacion),
        fechaActualizacion: formatLocalUtc(row.fecha_actualizacion),
      });
    } catch {
      res.status(503).json({ error: 'SERVICE_UNAVAILABLE' });
    }
  });
  return app;
}

/** Listens on 127.0.0.1:`port`; resolves once bound. */
export function listen(app: express.Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}
