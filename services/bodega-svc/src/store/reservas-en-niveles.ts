import type { TipoOperacion } from '@inventario/contract';
import { enqueueEvents, type Knex } from '@inventario/platform';
import { clave, type LineaPlaneada, type NivelActual } from '../domain/existencia';
import { stockReservado, type EstadoReserva, type LineaReserva } from '../domain/reserva';
import type { WriteContext } from '../events/bodega-events';
import type { ExistenciaEvents } from '../events/existencia-events';
import type { ReservaEvents } from '../events/reserva-events';
import { sincronizarAlertasDisponible } from './alertas-disponible';
import { enviarJuntas, filasDe, type Sentencia } from './sentencias';
import { insertarTerminal, nivelesConReservas, terminarFila } from './sentencias-fijas';

/**
 * The holds' side of every stock write (docs/decisions.md, "Reservations with an exact expiry").
 * Lock order, everywhere: warehouses, levels, reservations, their lines. A level's `reservada`
 * and its lines' `retenida` change only under that level's lock.
 */

/** The database clock as an SQL expression: UTC_TIMESTAMP(6) (replicas agree); tests put a controlled one in. */
export const RELOJ_BD = 'UTC_TIMESTAMP(6)';

export interface RelojReservas {
  /** SQL expression of "now": a constant of the configuration, never a request's value. */
  reloj: string;
  events: ReservaEvents;
  /** The low-stock alerts of levels watching `disponible`, which every change of a hold may cross (§13.9). */
  umbrales: ExistenciaEvents;
}

type Nivel = readonly [bodegaId: number, productoId: number];

/**
 * Ends the holds on these (locked) levels whose reservation is due (now >= expira_en); answers the units freed per
 * level.
 */
export async function expirarRetencionesVencidas(
  trx: Knex.Transaction,
  reloj: string,
  niveles: readonly Nivel[],
): Promise<Map<string, number>> {
  const liberadas = new Map<string, number>();
  if (niveles.length === 0) return liberadas;
  const [rows] = (await trx.raw(
    `SELECT l.id, l.bodega_id, l.producto_id, l.retenida FROM reserva_lineas l JOIN reservas r ON r.id = l.reserva_id
      WHERE (l.bodega_id, l.producto_id) IN (${niveles.map(() => '(?, ?)').join(', ')}) AND l.retenida > 0 AND ` +
      `r.expira_en <= ${reloj}
      ORDER BY l.id FOR UPDATE`,
    niveles.flat(),
  )) as [{ id: number; bodega_id: number; producto_id: number; retenida: number }[]];
  if (rows.length === 0) return liberadas;
  for (const r of rows)
    liberadas.set(
      clave(r.bodega_id, r.producto_id),
      (liberadas.get(clave(r.bodega_id, r.producto_id)) ?? 0) + r.retenida,
    );
  await trx('reserva_lineas')
    .whereIn(
      'id',
      rows.map((r) => r.id),
    )
    .update({ retenida: 0 });
  for (const [k, unidades] of liberadas) {
    const [b, p] = k.split(':').map(Number);
    await trx('existencias').where({ bodega_id: b, producto_id: p }).decrement('reservada', unidades);
  }
  return liberadas;
}

interface ReservaFila {
  id: number | string;
  referencia: string;
  estado: EstadoReserva;
  expira_en: Date;
  version: number;
}

export interface LineaFila {
  id: number | string;
  reserva_id: number | string;
  bodega_id: number;
  producto_id: number;
  cantidad: number;
  consumida: number;
  retenida: number;
}

export const lineaDe = (l: LineaFila): LineaReserva => ({
  id: Number(l.id),
  bodegaId: l.bodega_id,
  productoId: l.producto_id,
  cantidad: l.cantidad,
  consumida: l.consumida,
  retenida: l.retenida,
});

/**
 * The statements that record a reservation's terminal state (the row and reserva_terminales, whose
 * primary key lets it happen once), not sent. `instante`: the write's instant as the database
 * clock gave it (text, to the microsecond), when the caller read it; else the clock at each statement.
 */
export function sentenciasTerminales(
  trx: Knex.Transaction,
  deps: RelojReservas,
  reservaId: number,
  estado: Exclude<EstadoReserva, 'ACTIVA'>,
  instante?: string,
): Sentencia[] {
  if (instante !== undefined)
    return [
      { sentencia: terminarFila(reservaId, estado, instante) },
      { sentencia: insertarTerminal(reservaId, estado, instante) },
    ];
  const fecha = trx.raw(deps.reloj);
  return [
    {
      sentencia: trx('reservas')
        .where({ id: reservaId })
        .update({ estado, version: trx.raw('version + 1'), fecha_actualizacion: fecha }),
    },
    { sentencia: trx('reserva_terminales').insert({ reserva_id: reservaId, estado, fecha }) },
  ];
}

/**
 * The reservation's one terminal transition, its levels and its row locked by the caller: every
 * line lets go of what it holds, the state is recorded once (reserva_terminales' primary key),
 * and, unless the caller emits its own, one event. Answers the lines as they end.
 */
export async function terminarReserva(
  trx: Knex.Transaction,
  deps: RelojReservas,
  reservaId: number,
  estado: Exclude<EstadoReserva, 'ACTIVA'>,
  ctx: WriteContext,
  evento: { faltante?: { bodegaId: number; productoId: number; unidades: number }[] } | null = {},
  instante?: string,
): Promise<LineaReserva[]> {
  const lineas = await trx<LineaFila>('reserva_lineas').where({ reserva_id: reservaId }).orderBy('id').forUpdate();
  for (const l of lineas) {
    if (l.retenida > 0)
      await trx('existencias')
        .where({ bodega_id: l.bodega_id, producto_id: l.producto_id })
        .decrement('reservada', l.retenida);
  }
  await trx('reserva_lineas').where({ reserva_id: reservaId }).andWhere('retenida', '>', 0).update({ retenida: 0 });
  await enviarJuntas(trx, sentenciasTerminales(trx, deps, reservaId, estado, instante), false);
  const finales = lineas.map((l) => lineaDe({ ...l, retenida: 0 }));
  await sincronizarAlertasDisponible(
    trx,
    deps.umbrales,
    lineas.map((l) => [l.bodega_id, l.producto_id] as const),
    ctx,
    null,
  );
  if (evento) {
    const r = (await trx<ReservaFila>('reservas').where({ id: reservaId }).first())!;
    const tipo =
      estado === 'CONSUMIDA'
        ? 'ReservaConsumida'
        : estado === 'LIBERADA'
          ? 'ReservaLiberada'
          : estado === 'EXPIRADA'
            ? 'ReservaExpirada'
            : 'ReservaDescubierta';
    await enqueueEvents(trx, [
      deps.events.evento(
        tipo,
        {
          reservaId,
          referencia: r.referencia,
          estado,
          expiraEn: r.expira_en.toISOString(),
          version: r.version,
          lineas: finales,
          ...evento,
        },
        ctx,
      ),
    ]);
  }
  return finales;
}

/** What escribir (existencia-escritura.ts) knows of the levels it is about to write. */
export interface NivelesEnEscritura {
  actuales: ReadonlyMap<string, NivelActual>;
  filas: ReadonlyMap<string, number>;
  /** `reservada` of levels this transaction read FOR UPDATE (the figure can only have fallen since). */
  reservadas?: ReadonlyMap<string, number>;
}

/**
 * A count, an assignment and the write-outs of a deleted product or warehouse are never blocked: physical truth wins.
 */
const NUNCA_BLOQUEADAS: ReadonlySet<TipoOperacion> = new Set([
  'AJUSTE',
  'ASIGNACION',
  'PRODUCTO_ELIMINADO',
  'BODEGA_ELIMINADA',
]);

/**
 * Called by every stock write with its levels locked, before it writes them. Each level the write
 * lowers first lets go of its due holds, so `reservada` is exact; then an unreserved exit, a
 * transfer out, a reversal or a level removal that would take held units is refused (409
 * STOCK_RESERVADO) and writes nothing, while a count or a write-out makes the newest holds of the
 * level DESCUBIERTA until the level again covers what it holds. A reservation's own consumption
 * lowered its holds before it writes, so it passes.
 */
export async function respetarReservas(
  trx: Knex.Transaction,
  deps: RelojReservas,
  ctx: WriteContext,
  tipo: TipoOperacion,
  lineas: readonly LineaPlaneada[],
  niveles: NivelesEnEscritura,
): Promise<void> {
  const finales = new Map(lineas.map((l) => [clave(l.bodegaId, l.productoId), l]));
  const bajan = [...finales].filter(
    ([k, l]) => niveles.filas.has(k) && (!l.nivel.existe ? 0 : l.cantidadPosterior) < niveles.actuales.get(k)!.cantidad,
  );
  if (bajan.length === 0) return;
  // Locked levels read with no hold: nothing to respect, no second read (issue 23: one statement less per exit).
  if (bajan.every(([k]) => niveles.reservadas?.get(k) === 0)) return;
  const conReservas = await filasDe<{ bodega_id: number; producto_id: number; reservada: number }>(
    trx,
    nivelesConReservas(bajan.map(([k]) => niveles.filas.get(k)!)),
  );
  if (conReservas.length === 0) return;
  const liberadas = await expirarRetencionesVencidas(
    trx,
    deps.reloj,
    conReservas.map((n) => [n.bodega_id, n.producto_id] as const),
  );
  for (const n of conReservas) {
    const k = clave(n.bodega_id, n.producto_id);
    const reservada = n.reservada - (liberadas.get(k) ?? 0);
    const l = finales.get(k)!;
    const despues = l.nivel.existe ? l.cantidadPosterior : 0;
    if (despues >= reservada) continue;
    const antes = niveles.actuales.get(k)!.cantidad;
    if (!NUNCA_BLOQUEADAS.has(tipo))
      throw stockReservado(n.bodega_id, n.producto_id, antes - reservada, reservada, antes - despues);
    await descubrir(trx, deps, ctx, n.bodega_id, n.producto_id, reservada - despues);
  }
}

/**
 * The newest holds of a (locked) level become DESCUBIERTA until `exceso` units are let go. Each
 * such reservation ends on all its levels; those not yet locked are locked now (a deadlock this
 * may cause is retried by writeTransaction).
 */
async function descubrir(
  trx: Knex.Transaction,
  deps: RelojReservas,
  ctx: WriteContext,
  bodegaId: number,
  productoId: number,
  exceso: number,
): Promise<void> {
  const holds = await trx('reserva_lineas')
    .where({ bodega_id: bodegaId, producto_id: productoId })
    .andWhere('retenida', '>', 0)
    .orderBy('reserva_id', 'desc')
    .forUpdate()
    .select<{ reserva_id: number | string; retenida: number }[]>('reserva_id', 'retenida');
  let falta = exceso;
  for (const h of holds) {
    if (falta <= 0) break;
    const reservaId = Number(h.reserva_id);
    const pares = await trx('reserva_lineas')
      .where({ reserva_id: reservaId })
      .select<{ bodega_id: number; producto_id: number }[]>('bodega_id', 'producto_id');
    await trx('existencias')
      .whereIn(
        ['bodega_id', 'producto_id'],
        pares.map((p) => [p.bodega_id, p.producto_id]),
      )
      .orderBy('id')
      .forUpdate()
      .select('id');
    await trx('reservas').where({ id: reservaId }).forUpdate().first('id');
    const faltante = [{ bodegaId, productoId, unidades: Math.min(h.retenida, falta) }];
    await terminarReserva(trx, deps, reservaId, 'DESCUBIERTA', ctx, { faltante });
    falta -= h.retenida;
  }
}
