// The transitions that move no units: a release, an extension, and the expiry of due reservations (the sweep).

import { InvalidArgumentError, withDbErrors, type CallContext, type Knex } from '@inventario/platform';
import { reservaNoActiva, type EstadoReserva, type Reserva } from '../domain/reserva';
import { terminarReserva } from './reservas-en-niveles';
import type { ReservaOptions, ReservaStoreDeps } from './reserva-tipos';
import { leer } from './reserva-lecturas';
import { bloquear, ctxDe, requireVersion, SISTEMA, write } from './reserva-escritura';

/** One due reservation: EXPIRADA with its event, unless something else ended or extended it first. */
export async function expirar(db: Knex, deps: ReservaStoreDeps, id: number): Promise<boolean> {
  return write(db, deps, SISTEMA, async (trx) => {
    const { reserva: r } = await bloquear(trx, deps, id);
    // estado_actual EXPIRADA with estado ACTIVA: due and not yet recorded.
    const [rows] = (await trx.raw(`SELECT estado FROM reservas WHERE id = ? FOR UPDATE`, [id])) as [
      { estado: EstadoReserva }[],
    ];
    if (r.estado !== 'EXPIRADA' || rows[0]!.estado !== 'ACTIVA') return false;
    await terminarReserva(trx, deps, id, 'EXPIRADA', await ctxDe(trx, deps.reloj, SISTEMA));
    return true;
  });
}

export function liberar(
  db: Knex,
  deps: ReservaStoreDeps,
  { id, caller, opts }: { id: number; caller: CallContext; opts: ReservaOptions },
): Promise<Reserva> {
  return write(db, deps, caller, async (trx) => {
    const { reserva } = await bloquear(trx, deps, id);
    // A repeat answers the current state without a second event.
    if (reserva.estado === 'LIBERADA') return leer(trx, deps.reloj, id, { bloquear: true });
    if (reserva.estado !== 'ACTIVA') throw reservaNoActiva(id, reserva.estado);
    requireVersion(reserva, opts.expectedVersion);
    await terminarReserva(trx, deps, id, 'LIBERADA', await ctxDe(trx, deps.reloj, caller));
    return leer(trx, deps.reloj, id, { bloquear: true });
  });
}

export function extender(
  db: Knex,
  deps: ReservaStoreDeps,
  { id, expiraEn, caller, opts }: { id: number; expiraEn: Date; caller: CallContext; opts: ReservaOptions },
): Promise<Reserva> {
  const { reloj } = deps;
  return write(db, deps, caller, async (trx) => {
    // Only the row: extending moves no units, and a write expiring the holds locks it after their levels.
    const reserva = await leer(trx, reloj, id, { bloquear: true });
    requireVersion(reserva, opts.expectedVersion);
    if (reserva.estado !== 'ACTIVA') throw reservaNoActiva(id, reserva.estado);
    const [rows] = (await trx.raw(
      `SELECT ? > expira_en AS despues, ? <= ${reloj} + INTERVAL ? SECOND AS dentro FROM reservas WHERE id = ?`,
      [expiraEn, expiraEn, deps.limites.ttlMaximoSegundos, id],
    )) as [{ despues: number; dentro: number }[]];
    if (!Number(rows[0]!.despues))
      throw InvalidArgumentError.field('expiraEn', 'debe ser posterior a la expiración actual');
    if (!Number(rows[0]!.dentro))
      throw InvalidArgumentError.field(
        'expiraEn',
        `no puede pasar de ${deps.limites.ttlMaximoSegundos} segundos desde ahora`,
      );
    await trx.raw(
      `UPDATE reservas SET expira_en = ?, version = version + 1, fecha_actualizacion = ${reloj} WHERE id = ?`,
      [expiraEn, id],
    );
    return leer(trx, reloj, id, { bloquear: true });
  });
}

export async function barrer(db: Knex, deps: ReservaStoreDeps, limite: number): Promise<number> {
  const { reloj } = deps;
  const [rows] = (await withDbErrors(() =>
    db.raw(`SELECT id FROM reservas WHERE estado = 'ACTIVA' AND expira_en <= ${reloj} ORDER BY expira_en, id LIMIT ?`, [
      limite,
    ]),
  )) as [{ id: number | string }[]];
  let n = 0;
  for (const r of rows) if (await expirar(db, deps, Number(r.id))) n += 1;
  return n;
}
