import { enqueueEvents, type Knex } from '@inventario/platform';
import { esBajo } from '../domain/existencia';
import type { WriteContext } from '../events/bodega-events';
import type { ExistenciaEvents } from '../events/existencia-events';
import type { NivelRow } from './existencia-tipos';

/**
 * The low-stock edge of levels whose threshold watches `disponible` (docs/contract.md §13.9).
 *
 * `disponible` moves with the units and with the holds: a reservation, a consumption, a release,
 * an expiry recorded by the sweeper or a count that uncovers holds. Rather than re-derive the edge
 * in each of those paths, each calls this once its holds are settled, with the levels it locked:
 * the alert raised is recorded on the level (`bajo_disponible`), so an edge is published exactly
 * once, whichever path crosses it, and a second call in the same transaction publishes nothing.
 * It judges the recorded `reservada`: an expired hold frees its units for the alert when it is
 * recorded EXPIRADA (the sweep, or the next write of the level), not at the microsecond.
 */
export async function sincronizarAlertasDisponible(
  trx: Knex.Transaction,
  events: ExistenciaEvents,
  niveles: readonly (readonly [bodegaId: number, productoId: number])[],
  ctx: WriteContext,
  operacionId: number | null,
): Promise<void> {
  if (niveles.length === 0) return;
  // The callers hold these levels' locks; a plain read sees their own writes.
  const [rows] = (await trx.raw(
    `SELECT id, bodega_id, producto_id, cantidad, umbral_minimo, version, fecha_creacion, fecha_actualizacion,
            reservada, bajo_disponible
       FROM existencias
      WHERE (bodega_id, producto_id) IN (${niveles.map(() => '(?, ?)').join(', ')}) AND alerta_sobre = 'DISPONIBLE'
      ORDER BY id`,
    niveles.flat(),
  )) as [(NivelRow & { reservada: number; bajo_disponible: number })[]];
  const eventos = [];
  for (const r of rows) {
    const bajo = esBajo(r.cantidad - r.reservada, r.umbral_minimo);
    if (bajo === (r.bajo_disponible === 1)) continue;
    await trx('existencias')
      .where({ id: r.id })
      .update({ bajo_disponible: bajo ? 1 : 0 });
    eventos.push(
      events.umbralDisponible(
        bajo ? 'StockBajo' : 'StockRepuesto',
        {
          bodegaId: r.bodega_id,
          productoId: r.producto_id,
          cantidad: r.cantidad,
          umbralMinimo: r.umbral_minimo,
          version: r.version,
          fechaCreacion: r.fecha_creacion,
          fechaActualizacion: r.fecha_actualizacion,
          reservada: r.reservada,
          alertaSobre: 'DISPONIBLE',
        },
        operacionId,
        ctx,
      ),
    );
  }
  if (eventos.length > 0) await enqueueEvents(trx, eventos);
}
