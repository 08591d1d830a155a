import type { AuditoriaStore } from '../store/auditoria-store';

/**
 * Failed logins become audit rows aggregated per client address and
 * window (docs/contract.md §12.5): a brute force of a million guesses
 * writes one row per address and window, not a million. Counts are kept in
 * memory and added to the database on each flush (summed across
 * replicas); a window is written to the trail once it has closed, by
 * whichever replica gets there first (the row's event id is unique).
 */
export interface RegistroFallos {
  anotar(direccion: string): void;
  /** Adds the counts kept since the last flush to the database. */
  volcar(): Promise<void>;
  /** Writes the audit row of every closed window; returns how many. */
  cerrar(): Promise<number>;
}

/** Distinct addresses kept between two flushes; more are counted under one entry rather than growing memory. */
const MAX_DIRECCIONES = 10_000;
const OTRAS = 'otras';

export function createRegistroFallos(options: {
  store: AuditoriaStore;
  ventanaMs: number;
  now?: () => number;
}): RegistroFallos {
  const now = options.now ?? Date.now;
  const ventanaDe = (ms: number) => Math.floor(ms / options.ventanaMs) * options.ventanaMs;
  /** window start → address → failures */
  let pendientes = new Map<number, Map<string, number>>();
  let distintas = 0;
  return {
    anotar(direccion) {
      const ventana = ventanaDe(now());
      let porDireccion = pendientes.get(ventana);
      if (!porDireccion) pendientes.set(ventana, (porDireccion = new Map<string, number>()));
      let clave = (direccion || 'desconocida').slice(0, 64);
      if (!porDireccion.has(clave) && distintas >= MAX_DIRECCIONES) clave = OTRAS;
      if (!porDireccion.has(clave)) distintas++;
      porDireccion.set(clave, (porDireccion.get(clave) ?? 0) + 1);
    },
    async volcar() {
      const lote = pendientes;
      pendientes = new Map();
      distintas = 0;
      for (const [ventana, porDireccion] of lote) {
        try {
          await options.store.sumarFallos(new Date(ventana), porDireccion);
        } catch (err) {
          // Not lost: counted again on the next flush.
          for (const [direccion, n] of porDireccion) {
            const again = pendientes.get(ventana) ?? new Map<string, number>();
            again.set(direccion, (again.get(direccion) ?? 0) + n);
            pendientes.set(ventana, again);
          }
          throw err;
        }
      }
    },
    cerrar: () => options.store.cerrarVentanas(new Date(ventanaDe(now())), options.ventanaMs),
  };
}
