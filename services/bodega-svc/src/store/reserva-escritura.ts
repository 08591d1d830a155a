// What every reservation write shares: its transaction (READ COMMITTED), its locks in the stock's order
// (bloquear), the version it is conditioned on, and its event.

import {
  jsonResultCodec,
  NotFoundError,
  VersionMismatchError,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import type { Reserva } from '../domain/reserva';
import type { WriteContext } from '../events/bodega-events';
import type { NivelRow } from './existencia-tipos';
import { bloquearBodegas, lecturasDeBodegas, plegarSiHaceFalta, type BodegaBloqueada } from './ocupacion';
import { lineaDe, type LineaFila } from './reservas-en-niveles';
import { enviarJuntas, filasDe, type Sentencia } from './sentencias';
import { leerLineasDeReserva, leerNiveles, nivelesDeReserva } from './sentencias-fijas';
import type { ReservaStoreDeps } from './reserva-tipos';
import { ahora, aReserva, leerFila, sqlDeFila, type ReservaFilaAhora } from './reserva-lecturas';

/** The reservation's row and lines, locked, and what its write locked before them (bloquear). */
export interface ReservaBloqueada {
  reserva: Reserva;
  ahora: Date;
  instante: string;
  /** Its warehouses, held shared (conBodegas). */
  bodegas: Map<number, BodegaBloqueada>;
  /** Its levels' whole rows, as locked before any change. */
  niveles: NivelRow[];
}

const RESULTS = jsonResultCodec(['expiraEn', 'fechaCreacion', 'fechaActualizacion']);

export const SISTEMA: CallContext = { usuario: 'system' };

/**
 * READ COMMITTED: a hold's rows change only under its levels' locks, which every write here takes
 * first, so record locks are all it needs. Under REPEATABLE READ the locking scans of the lines of
 * a level also lock the gaps beside them, where concurrent reservations of neighbouring levels
 * insert their lines: 200 multi-line reservations at once deadlocked past writeTransaction's retries.
 */
export function write<T>(
  db: Knex,
  deps: ReservaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, work, {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
    isolationLevel: 'read committed',
  });
}

export const enviar = (trx: Knex.Transaction, deps: ReservaStoreDeps, sentencias: readonly Sentencia[]) =>
  enviarJuntas(trx, sentencias, deps.sentenciasJuntas === true);

/**
 * Locks the reservation's levels (its warehouses shared first when it will write lines) and then its row and
 * lines. The reservation answered keeps its lines' `retenida` as recorded, whatever its state.
 */
export async function bloquear(
  trx: Knex.Transaction,
  deps: ReservaStoreDeps,
  id: number,
  { conBodegas = false } = {},
): Promise<ReservaBloqueada> {
  // Which levels a reservation has never changes after its creation: a plain read says which to lock.
  const pares = await filasDe<{ bodega_id: number; producto_id: number }>(trx, nivelesDeReserva(id));
  const bloqueos = new Map(conBodegas ? pares.map((p) => [p.bodega_id, 'compartido' as const]) : []);
  // Whole rows: a consumption's exit writes these levels without reading them again (issue 24).
  const leerSusNiveles = leerNiveles(pares.map((p) => [p.bodega_id, p.producto_id] as const));
  if (deps.sentenciasJuntas && pares.length > 0) {
    // The same locking reads in the same order, in one query (issue 24).
    const lecturas = bloqueos.size > 0 ? lecturasDeBodegas(bloqueos) : [];
    const partes = [
      ...lecturas.map((l) => l.consulta),
      leerSusNiveles,
      sqlDeFila(deps.reloj, id, true),
      leerLineasDeReserva(id),
    ];
    const [resultados] = (await trx.raw(
      partes.map((p) => p.sql).join(';\n'),
      partes.flatMap((p) => p.bindings),
    )) as [unknown[][]];
    const n = lecturas.length;
    const bodegas = await plegarSiHaceFalta(
      trx,
      lecturas.flatMap((l, i) => l.leidas(resultados[i] as Parameters<typeof l.leidas>[0])),
    );
    const fila = (resultados[n + 1] as ReservaFilaAhora[])[0];
    if (!fila) throw NotFoundError.campos([{ campo: 'id', mensaje: `no existe la reserva ${id}` }]);
    const lineas = resultados[n + 2] as LineaFila[];
    const reserva = { ...aReserva(fila, lineas), lineas: lineas.map(lineaDe) };
    return { reserva, ahora: fila.ahora, instante: fila.instante, bodegas, niveles: resultados[n] as NivelRow[] };
  }
  const bodegas = bloqueos.size > 0 ? await bloquearBodegas(trx, bloqueos) : new Map<number, BodegaBloqueada>();
  const niveles = pares.length > 0 ? await filasDe<NivelRow>(trx, leerSusNiveles) : [];
  const { fila, lineas } = await leerFila(trx, deps.reloj, id, { bloquear: true });
  const reserva = { ...aReserva(fila, lineas), lineas: lineas.map(lineaDe) };
  return { reserva, ahora: fila.ahora, instante: fila.instante, bodegas, niveles };
}

export function requireVersion(reserva: Reserva, expected: number | undefined): void {
  if (expected !== undefined && expected !== reserva.version) throw VersionMismatchError.of(reserva.version, expected);
}

export const ctxDe = async (trx: Knex.Transaction, reloj: string, caller: CallContext): Promise<WriteContext> => ({
  ...caller,
  at: await ahora(trx, reloj),
});

export function evento(
  deps: ReservaStoreDeps,
  tipo: 'ReservaCreada' | 'ReservaConsumida',
  reserva: Reserva,
  ctx: WriteContext,
  operacionId?: number,
) {
  const data = {
    reservaId: reserva.id,
    referencia: reserva.referencia,
    estado: reserva.estado,
    expiraEn: reserva.expiraEn.toISOString(),
    version: reserva.version,
    lineas: reserva.lineas,
    ...(operacionId !== undefined ? { operacionId } : {}),
  };
  return deps.events.evento(tipo, data, ctx);
}
