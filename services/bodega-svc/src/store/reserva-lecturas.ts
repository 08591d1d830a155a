// The reservation store's reads: a reservation's row (its state at the database clock) and lines, a page of
// reservations; and how their rows become a Reserva.

import { NotFoundError, withDbErrors, type Knex } from '@inventario/platform';
import type { EstadoReserva, Reserva } from '../domain/reserva';
import { lineaDe, type LineaFila } from './reservas-en-niveles';
import type { ReservaQuery } from './reserva-tipos';

interface ReservaFila {
  id: number | string;
  referencia: string;
  estado: EstadoReserva;
  estado_actual: EstadoReserva;
  expira_en: Date;
  version: number;
  usuario: string;
  comentario: string | null;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
}

/** A row read with the database clock of its statement: `ahora` as a Date, `instante` as text to the microsecond. */
export interface ReservaFilaAhora extends ReservaFila {
  ahora: Date;
  instante: string;
}

/** The state at the database clock: a hold counts only while now < expira_en. */
const columnas = (reloj: string) =>
  `r.*, IF(r.estado = 'ACTIVA' AND r.expira_en <= ${reloj}, 'EXPIRADA', r.estado) AS estado_actual`;

export async function ahora(conn: Knex | Knex.Transaction, reloj: string): Promise<Date> {
  const [rows] = (await conn.raw(`SELECT ${reloj} AS ahora`)) as [{ ahora: Date }[]];
  return rows[0]!.ahora;
}

export const sqlDeFila = (reloj: string, id: number, bloquear: boolean) => ({
  sql:
    `SELECT ${columnas(reloj)}, ${reloj} AS ahora, DATE_FORMAT(${reloj}, '%Y-%m-%d %H:%i:%s.%f') AS instante ` +
    `FROM reservas r WHERE r.id = ?${bloquear ? ' FOR UPDATE' : ''}`,
  bindings: [id],
});

/**
 * The row, with the clock of its statement (one statement: the state and "now" agree), and
 * its lines. In a write, locking reads: what the rows are now, not the transaction's first snapshot.
 */
export async function leerFila(
  conn: Knex | Knex.Transaction,
  reloj: string,
  id: number,
  { bloquear = false, lineas = true } = {},
): Promise<{ fila: ReservaFilaAhora; lineas: LineaFila[] }> {
  const { sql, bindings } = sqlDeFila(reloj, id, bloquear);
  const [rows] = (await conn.raw(sql, bindings)) as [ReservaFilaAhora[]];
  const fila = rows[0];
  if (!fila) throw NotFoundError.campos([{ campo: 'id', mensaje: `no existe la reserva ${id}` }]);
  if (!lineas) return { fila, lineas: [] };
  const q = conn<LineaFila>('reserva_lineas').where({ reserva_id: id }).orderBy('id');
  return { fila, lineas: await (bloquear ? q.forUpdate() : q) };
}

export async function leer(
  conn: Knex | Knex.Transaction,
  reloj: string,
  id: number,
  { bloquear = false } = {},
): Promise<Reserva> {
  const { fila, lineas } = await leerFila(conn, reloj, id, { bloquear });
  return aReserva(fila, lineas);
}

export function aReserva(r: ReservaFila, lineas: LineaFila[]): Reserva {
  const activa = r.estado_actual === 'ACTIVA';
  return {
    id: Number(r.id),
    referencia: r.referencia,
    estado: r.estado_actual,
    expiraEn: r.expira_en,
    // A due hold holds nothing, whether or not it has been swept.
    lineas: lineas.map((l) => ({ ...lineaDe(l), retenida: activa ? l.retenida : 0 })),
    version: r.version,
    usuario: r.usuario,
    comentario: r.comentario,
    fechaCreacion: r.fecha_creacion,
    fechaActualizacion: r.fecha_actualizacion,
  };
}

export async function list(
  db: Knex,
  reloj: string,
  query: ReservaQuery,
): Promise<{ reservas: Reserva[]; hasMore: boolean }> {
  const rows = await withDbErrors(async () => {
    const q = db
      .from('reservas as r')
      .select(db.raw(columnas(reloj)))
      .orderBy('r.id', 'desc')
      .limit(query.pageSize + 1);
    if (query.beforeId !== null) q.where('r.id', '<', query.beforeId);
    if (query.referencia !== undefined) q.where('r.referencia', query.referencia);
    if (query.estado === 'ACTIVA') q.where('r.estado', 'ACTIVA').whereRaw(`r.expira_en > ${reloj}`);
    else if (query.estado === 'EXPIRADA')
      q.whereRaw(`(r.estado = 'EXPIRADA' OR (r.estado = 'ACTIVA' AND r.expira_en <= ${reloj}))`);
    else if (query.estado !== undefined) q.where('r.estado', query.estado);
    if (query.bodegaId !== undefined || query.productoId !== undefined) {
      q.whereExists(function () {
        this.from('reserva_lineas as l').whereRaw('l.reserva_id = r.id');
        if (query.bodegaId !== undefined) this.where('l.bodega_id', query.bodegaId);
        if (query.productoId !== undefined) this.where('l.producto_id', query.productoId);
      });
    }
    const visibles = query.bodegasVisibles;
    if (visibles !== undefined) {
      q.whereNotExists(function () {
        this.from('reserva_lineas as v').whereRaw('v.reserva_id = r.id').whereNotIn('v.bodega_id', visibles);
      });
    }
    return (await q) as ReservaFila[];
  });
  const page = rows.slice(0, query.pageSize);
  const lineas =
    page.length === 0
      ? []
      : await withDbErrors(() =>
          db<LineaFila>('reserva_lineas')
            .whereIn(
              'reserva_id',
              page.map((r) => r.id),
            )
            .orderBy('id'),
        );
  return {
    reservas: page.map((r) =>
      aReserva(
        r,
        lineas.filter((l) => Number(l.reserva_id) === Number(r.id)),
      ),
    ),
    hasMore: rows.length > query.pageSize,
  };
}
