// The reservation store's surface (ReservaStore) and its factory, which binds the pool and the dependencies to the
// module functions of its helper files (reserva-*.ts).

import { withDbErrors, type CallContext, type Knex } from '@inventario/platform';
import type { ConsumoSolicitado, NuevaReserva, Reserva } from '../domain/reserva';
import type { ReservaOptions, ReservaQuery, ReservaStoreDeps } from './reserva-tipos';
import { verificar, type DiferenciaReserva } from './reserva-verificacion';
import { leer, list } from './reserva-lecturas';
import { crear } from './reserva-creacion';
import { consumir } from './reserva-consumo';
import { barrer, extender, liberar } from './reserva-transiciones';

export type { DiferenciaReserva } from './reserva-verificacion';

/**
 * docs/contract.md §13. Every write is one transaction in the stock's lock order: warehouses, levels, the reservation,
 * its lines.
 */
export interface ReservaStore {
  crear(nueva: NuevaReserva, caller: CallContext): Promise<Reserva>;
  get(id: number): Promise<Reserva>;
  list(query: ReservaQuery): Promise<{ reservas: Reserva[]; hasMore: boolean }>;
  consumir(
    id: number,
    consumo: ConsumoSolicitado,
    caller: CallContext,
    opts: ReservaOptions,
  ): Promise<{ reserva: Reserva; operacionId: number | null }>;
  /** A repeat of a release answers the current state and writes nothing. */
  liberar(id: number, caller: CallContext, opts: ReservaOptions): Promise<Reserva>;
  extender(id: number, expiraEn: Date, caller: CallContext, opts: ReservaOptions): Promise<Reserva>;
  /**
   * Records EXPIRADA (with its event) for at most `limite` due reservations, each in its own transaction; answers how
   * many.
   */
  barrer(limite: number): Promise<number>;
  /** What the stock verification adds for holds; a difference is reported, never corrected. */
  verificar(): Promise<DiferenciaReserva[]>;
}

export function createReservaStore(db: Knex, deps: ReservaStoreDeps): ReservaStore {
  return {
    crear: (nueva, caller) => crear(db, deps, { nueva, caller }),
    get: (id) => withDbErrors(() => leer(db, deps.reloj, id)),
    list: (query) => list(db, deps.reloj, query),
    consumir: (id, consumo, caller, opts) => consumir(db, deps, { id, consumo, caller, opts }),
    liberar: (id, caller, opts) => liberar(db, deps, { id, caller, opts }),
    extender: (id, expiraEn, caller, opts) => extender(db, deps, { id, expiraEn, caller, opts }),
    barrer: (limite) => barrer(db, deps, limite),
    verificar: () => verificar(db),
  };
}
