/**
 * The invariants of the stock ledger (docs/contract.md §10.1), checked with
 * SQL of their own against the service's database, so a test does not take
 * the service's verification on trust. Each returns a readable problem per
 * violation; [] when the ledger holds.
 */
import type { Knex } from '@inventario/platform';

interface Row {
  [column: string]: number | string | null;
}

async function rows(db: Knex, sql: string): Promise<Row[]> {
  const [result] = (await db.raw(sql)) as [Row[]];
  return result;
}

const CHECKS: { what: string; sql: string }[] = [
  {
    what: 'a level differs from the sum of its lines',
    sql: `SELECT e.bodega_id, e.producto_id, e.cantidad, COALESCE(SUM(m.cantidad), 0) AS suma
            FROM existencias e LEFT JOIN movimientos m ON m.bodega_id = e.bodega_id AND m.producto_id = e.producto_id
           GROUP BY e.id, e.bodega_id, e.producto_id, e.cantidad
          HAVING e.cantidad <> suma`,
  },
  {
    what: 'the lines of a removed level do not sum to zero',
    sql: `SELECT m.bodega_id, m.producto_id, SUM(m.cantidad) AS suma
            FROM movimientos m LEFT JOIN existencias e ON e.bodega_id = m.bodega_id AND e.producto_id = m.producto_id
           WHERE e.id IS NULL
           GROUP BY m.bodega_id, m.producto_id
          HAVING suma <> 0`,
  },
  { what: 'a level is negative', sql: 'SELECT bodega_id, producto_id, cantidad FROM existencias WHERE cantidad < 0' },
  {
    what: "a warehouse's ocupacion differs from the sum of its levels, or exceeds its capacidad",
    // Exact occupancy: the row less the exits not yet folded into it (bodega_salidas, issue 23).
    sql:
      `SELECT b.id, b.capacidad, b.ocupacion - COALESCE((SELECT SUM(s.unidades) FROM bodega_salidas s WHERE ` +
      `s.bodega_id = b.id), 0) AS ocupacion,
                 COALESCE((SELECT SUM(e.cantidad) FROM existencias e WHERE e.bodega_id = b.id), 0) AS suma
            FROM bodegas b
          HAVING ocupacion <> suma OR suma > b.capacidad`,
  },
  // A threshold change takes a version of the level without writing a line (docs/contract.md §10.1),
  // so a level's line versions may skip one; they still grow with the lines and never repeat.
  {
    what: "a level's line versions do not grow with its lines (from 1 up, none repeated)",
    sql:
      `SELECT m.id, m.bodega_id, m.producto_id, m.version
            FROM movimientos m
           WHERE m.version < 1
              OR EXISTS (SELECT 1 FROM movimientos p
                          WHERE p.bodega_id = m.bodega_id AND p.producto_id = m.producto_id AND p.id < m.id AND ` +
      `p.version >= m.version)`,
  },
  {
    what: "a level's version is below the version of its last line",
    sql: `SELECT e.bodega_id, e.producto_id, e.version, MAX(m.version) AS ultima
            FROM existencias e LEFT JOIN movimientos m ON m.bodega_id = e.bodega_id AND m.producto_id = e.producto_id
           GROUP BY e.id, e.bodega_id, e.producto_id, e.version
          HAVING ultima IS NULL OR e.version < ultima`,
  },
  {
    // The running balance: each line starts where the previous line of its level ended.
    what: 'a line does not start where the previous line of its level ended',
    sql:
      `SELECT m.id, m.bodega_id, m.producto_id, m.version, m.cantidad_anterior, p.cantidad_posterior AS previa
            FROM movimientos m
            LEFT JOIN movimientos p ON p.bodega_id = m.bodega_id AND p.producto_id = m.producto_id
                 AND p.version = (SELECT MAX(q.version) FROM movimientos q
                                   WHERE q.bodega_id = m.bodega_id AND q.producto_id = m.producto_id AND ` +
      `q.version < m.version)
           WHERE (p.id IS NULL AND m.cantidad_anterior <> 0) OR (p.id IS NOT NULL AND p.cantidad_posterior <> ` +
      `m.cantidad_anterior)`,
  },
  {
    what: 'an operation has no lines',
    sql: `SELECT o.id, o.tipo FROM operaciones o LEFT JOIN movimientos m ON m.operacion_id = o.id WHERE m.id IS NULL`,
  },
  {
    what: 'a deleted product holds stock',
    sql:
      `SELECT e.bodega_id, e.producto_id, e.cantidad FROM existencias e JOIN productos_eliminados d ON ` +
      `d.producto_id = e.producto_id`,
  },
];

/**
 * A warehouse's exact occupancy as a select column of `bodegas`: the row less
 * the exits not yet folded into it (bodega_salidas, issue 23). Always a
 * whole number, as the column it replaces.
 */
export function ocupacionExacta(db: Knex): Knex.Raw {
  return db.raw(
    'CAST(ocupacion - COALESCE((SELECT SUM(s.unidades) FROM bodega_salidas s WHERE s.bodega_id = bodegas.id), 0) ' +
      'AS SIGNED) AS ocupacion',
  );
}

/** Every violation of the ledger's invariants in the whole database. */
export async function ledgerProblems(db: Knex): Promise<string[]> {
  const out: string[] = [];
  for (const check of CHECKS) {
    for (const row of await rows(db, check.sql)) out.push(`${check.what}: ${JSON.stringify(row)}`);
  }
  return out;
}

/** The versions of one level's lines, in version order. */
export async function lineVersions(db: Knex, bodegaId: number, productoId: number): Promise<number[]> {
  const found = (await db('movimientos')
    .where({ bodega_id: bodegaId, producto_id: productoId })
    .orderBy('version')
    .pluck('version')) as number[];
  return found.map(Number);
}
