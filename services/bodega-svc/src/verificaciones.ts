import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@inventario/platform';
import type { Verificacion } from './store/existencia-store';

/** A completed verification and the moment it began: its figures describe that instant. */
export interface VerificacionHecha extends Verificacion {
  verificadoEn: Date;
}

export interface VerificacionesObserver {
  /** A verification completed: its differences. */
  completada(v: VerificacionHecha, fin: Date): void;
  /** A verification could not complete. */
  fallida(err: unknown): void;
}

/**
 * Who runs the stock verification (docs/contract.md §10.2), off the request path. One runs at a
 * time, and the next begins no sooner than the last one's own duration after it ended: however
 * many ask, the verification takes at most about half of one database connection's time. Each run
 * is the sliced, bounded one of the store (it completes at any ledger size).
 */
export interface Verificaciones {
  /**
   * The latest completed verification, waiting up to `esperaMs` for one that begins after this
   * call (at once when none is running or due): a small ledger answers with a verification of
   * now, a big one with the last completed. Undefined when none has completed yet.
   */
  ultima(esperaMs: number): Promise<VerificacionHecha | undefined>;
  /** Asks for a run (the periodic one) and resolves once it has ended, completed or not. */
  ejecutar(): Promise<void>;
  /** Stops a run between slices and waits for it. */
  stop(): Promise<void>;
}

export function createVerificaciones(
  verificar: (signal: AbortSignal) => Promise<Verificacion>,
  logger: Logger,
  observer?: VerificacionesObserver,
  now: () => number = Date.now,
): Verificaciones {
  const stopping = new AbortController();
  let ultima: VerificacionHecha | undefined;
  /** The run under way, and the one asked for after it (shared by everyone who asks meanwhile). */
  let enCurso: Promise<void> | undefined;
  let siguiente: Promise<void> | undefined;
  let finDeLaAnterior = 0;
  let duracionDeLaAnterior = 0;

  async function correr(): Promise<void> {
    const espera = finDeLaAnterior + duracionDeLaAnterior - now();
    if (espera > 0) await sleep(espera, undefined, { signal: stopping.signal }).catch(() => undefined);
    if (stopping.signal.aborted) return;
    const inicio = now();
    try {
      const v = await verificar(stopping.signal);
      const hecha = { ...v, verificadoEn: new Date(inicio) };
      ultima = hecha;
      observer?.completada(hecha, new Date(now()));
      if (!v.consistente)
        logger.error(
          { diferencias: v.diferencias.slice(0, 20), diferenciasReservas: v.diferenciasReservas?.slice(0, 20) },
          'stock differs from its ledger',
        );
    } catch (err) {
      if (!stopping.signal.aborted) {
        logger.error(
          { err: err instanceof Error ? err.message : String(err) },
          'stock verification could not complete',
        );
        observer?.fallida(err);
      }
    } finally {
      finDeLaAnterior = now();
      duracionDeLaAnterior = finDeLaAnterior - inicio;
    }
  }

  /** A run that begins from now on: the next one if one is under way, else a new one. */
  function pedir(): Promise<void> {
    if (!enCurso) {
      enCurso = correr().finally(() => {
        enCurso = undefined;
      });
      return enCurso;
    }
    siguiente ??= enCurso.then(() => {
      siguiente = undefined;
      return pedir();
    });
    return siguiente;
  }

  return {
    async ultima(esperaMs) {
      const run = pedir();
      await Promise.race([run, sleep(esperaMs, undefined, { ref: false })]);
      return ultima;
    },
    ejecutar: () => pedir(),
    async stop() {
      stopping.abort();
      await Promise.all([enCurso, siguiente]);
    },
  };
}
