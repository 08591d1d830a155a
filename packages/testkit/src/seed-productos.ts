import type { Knex } from '@inventario/platform';

export interface SeedOptions {
  /** How many products. */
  count: number;
  /** The warehouse they point at. */
  bodegaId: number;
  /** Their descripcion (null when absent). */
  descripcion?: string | null;
  /** Prefix of their names (`<prefix> <n>`). */
  nombre?: string;
}

/**
 * Writes products straight into producto-svc's `productos` table, in the
 * service's own row format (what CreateProducto stores: version 1, equal
 * dates, canonical precio), without their ProductoCreado events: thousands
 * of rows in seconds, for tests about what happens to them afterwards.
 * Inserts in batches that keep every statement far below max_allowed_packet.
 * Returns the ids of every product pointing at the warehouse afterwards, in
 * order (a fresh warehouse: the seeded ones).
 */
export async function seedProductos(db: Knex, options: SeedOptions): Promise<number[]> {
  const descripcion = options.descripcion ?? null;
  const perRow = 200 + (descripcion === null ? 0 : Buffer.byteLength(descripcion, 'utf8') * 2);
  const batch = Math.max(1, Math.min(1000, Math.floor((4 * 1024 * 1024) / perRow)));
  const at = new Date(Math.floor(Date.now() / 1000) * 1000);
  for (let start = 0; start < options.count; start += batch) {
    const rows = Array.from({ length: Math.min(batch, options.count - start) }, (_, i) => ({
      nombre: `${options.nombre ?? 'Sembrado'} ${start + i + 1}`,
      descripcion,
      precio: '1.50',
      cantidad_en_stock: 1,
      bodega_id: options.bodegaId,
      fecha_creacion: at,
      fecha_actualizacion: at,
      version: 1,
    }));
    await db('productos').insert(rows);
  }
  const rows = (await db('productos').select('id').where({ bodega_id: options.bodegaId }).orderBy('id')) as {
    id: number;
  }[];
  return rows.map((r) => Number(r.id));
}
