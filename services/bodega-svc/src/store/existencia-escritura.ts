// How every stock write writes (escribir): its transaction, its operation's row and lines, its levels, events and
// occupancy, in one fixed order. The commands, write-outs and initial stocks all go through it.

import {
  isDuplicateEntry,
  jsonResultCodec,
  nowToSecond,
  writeTransaction,
  type CallContext,
  type Knex,
  type OutboxEvent,
} from '@inventario/platform';
import type { TipoOperacion } from '@inventario/contract';
import {
  clave,
  planOperation,
  type Cambio,
  type LineaPlaneada,
  type Movimiento,
  type Operacion,
  type Plan,
} from '../domain/existencia';
import { cambioDeOcupacion, type BodegaBloqueada } from './ocupacion';
import { respetarReservas } from './reservas-en-niveles';
import { sincronizarAlertasDisponible } from './alertas-disponible';
import { enviarJuntas, idInsertado, type Sentencia } from './sentencias';
import {
  actualizarNivel,
  insertarEventos,
  insertarMovimientos,
  insertarNivel,
  insertarOperacion,
  type SqlFija,
} from './sentencias-fijas';
import type { ExistenciaStoreDeps } from './existencia-tipos';
import { yaRevertida } from './existencia-errores';
import { toMovimiento, type MovimientoRow } from './existencia-lecturas';
import type { Niveles } from './existencia-bloqueos';

/** A line as written (toMovimiento of its row, without reading it back). */
function lineaEscrita(
  id: number,
  operacionId: number,
  l: LineaPlaneada,
  usuario: string,
  comentario: string | null,
  fecha: Date,
): Movimiento {
  return {
    id,
    operacionId,
    bodegaId: l.bodegaId,
    productoId: l.productoId,
    tipo: l.tipo,
    motivo: l.motivo,
    cantidad: l.cantidad,
    cantidadAnterior: l.cantidadAnterior,
    cantidadPosterior: l.cantidadPosterior,
    version: l.version,
    usuario,
    comentario,
    fecha,
  };
}

export const RESULTS = jsonResultCodec(['fecha', 'fechaCreacion', 'fechaActualizacion']);

/**
 * What a store keeps from one call to the next, made by its factory and passed to the writes that use it: whether
 * the server hands a multi-row INSERT consecutive ids (idsConsecutivos), asked once per store.
 */
export interface EstadoExistencias {
  consecutivos?: Promise<boolean>;
}

export function write<T>(
  db: Knex,
  deps: ExistenciaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction, at: Date) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
    // requireProductosVivos's shared lock on a missing record is a gap lock only under REPEATABLE READ
    // (the session's own level when sesionRepeatableRead).
    ...(deps.sesionRepeatableRead ? {} : { isolationLevel: 'repeatable read' as const }),
  });
}

/** enviarJuntas (sentencias.ts): one query when the pool takes several statements in one (deps.sentenciasJuntas). */
const enviar = (trx: Knex.Transaction, deps: ExistenciaStoreDeps, sentencias: readonly Sentencia[]) =>
  enviarJuntas(trx, sentencias, deps.sentenciasJuntas === true);

/**
 * Whether a multi-row INSERT's ids are its first id + 0, 1, 2...: InnoDB gives a "simple insert"
 * (rows known in advance) one consecutive block in auto-increment lock modes 0 and 1, with an
 * increment of 1. Asked once, on the asking write's own connection (another from the pool could
 * wait for one that writes hold); mode 2 (interleaved, Galera's) or another increment: read back.
 */
function idsConsecutivos(trx: Knex.Transaction, estado: EstadoExistencias): Promise<boolean> {
  estado.consecutivos ??= trx
    .raw('SELECT @@innodb_autoinc_lock_mode AS modo, @@auto_increment_increment AS paso')
    .then(
      ([rows]: [{ modo: number | string; paso: number | string }[]]) =>
        Number(rows[0]?.modo) <= 1 && Number(rows[0]?.paso) === 1,
    )
    .catch(() => {
      estado.consecutivos = undefined;
      return false;
    });
  return estado.consecutivos;
}

export interface OperacionNueva {
  tipo: TipoOperacion;
  comentario: string | null;
  revierteA?: number;
  claveIdempotencia?: string;
}

/** The INSERT of an operation's row, not sent. */
export function filaDeOperacion(at: Date, caller: CallContext, nueva: OperacionNueva): SqlFija {
  return insertarOperacion({
    tipo: nueva.tipo,
    usuario: caller.usuario,
    // Who exactly (issue 26), when the call carried a verified principal.
    principal_id: caller.principal?.id ?? null,
    metodo_auth: caller.principal?.metodoAuth ?? null,
    token_id: caller.principal?.tokenId ?? null,
    comentario: nueva.comentario,
    clave_idempotencia: nueva.claveIdempotencia ?? null,
    revierte_a: nueva.revierteA ?? null,
    fecha: at,
  });
}

/** An operation escribir writes. Everything it writes must already be locked. */
interface Escritura {
  at: Date;
  caller: CallContext;
  nueva: OperacionNueva;
  cambios: Cambio[];
  niveles: Niveles;
  bodegas: Map<number, BodegaBloqueada>;
  /** The operation's row when the caller already inserted it (comando, with its locking reads). */
  insertada?: number;
}

/** escribir's first step: the operation's row, its plan (held units respected) and its lines, as written. */
async function insertarLineas(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { at, caller, nueva, cambios, niveles, bodegas, insertada }: Escritura,
): Promise<{ operacionId: number; plan: Plan; movimientos: Movimiento[] }> {
  let operacionId: number;
  // The row goes in before the plan. A reversal that waited on the locks of another reversal of
  // the same operation read that operation before the other committed: the unique revierte_a
  // refuses it as already reversed, where its plan would refuse it for the units the other moved.
  // A refused plan rolls the row back.
  if (insertada !== undefined) operacionId = insertada;
  else
    try {
      operacionId = await idInsertado(trx, filaDeOperacion(at, caller, nueva));
    } catch (err) {
      // Two reversals of one operation at once: the unique revierte_a lets one commit.
      if (nueva.revierteA !== undefined && isDuplicateEntry(err)) throw yaRevertida(nueva.revierteA);
      throw err;
    }
  const plan = planOperation(cambios, niveles.actuales, bodegas);
  if (deps.reservas) await respetarReservas(trx, deps.reservas, { ...caller, at }, nueva.tipo, plan.lineas, niveles);
  const primeraLinea = await idInsertado(
    trx,
    insertarMovimientos(
      plan.lineas.map((l) => ({
        operacion_id: operacionId,
        bodega_id: l.bodegaId,
        producto_id: l.productoId,
        tipo: l.tipo,
        motivo: l.motivo,
        cantidad: l.cantidad,
        cantidad_anterior: l.cantidadAnterior,
        cantidad_posterior: l.cantidadPosterior,
        version: l.version,
        usuario: caller.usuario,
        comentario: nueva.comentario,
        fecha: at,
      })),
    ),
  );
  // One line (a movement's): its id is the insert's, the rest is what was written, so no read back.
  // Several: their ids are consecutive from the insert's when the server hands a multi-row INSERT one
  // block of them (idsConsecutivos); otherwise (interleaved auto-increment, as Galera's) read back.
  const movimientos =
    plan.lineas.length === 1 || (await idsConsecutivos(trx, estado))
      ? plan.lineas.map((l, i) =>
          lineaEscrita(Number(primeraLinea) + i, operacionId, l, caller.usuario, nueva.comentario, at),
        )
      : (await trx<MovimientoRow>('movimientos').where({ operacion_id: operacionId }).orderBy('id')).map(toMovimiento);
  return { operacionId, plan, movimientos };
}

/** The statements that leave each level as the operation's last line of it (`finales`) says; not sent. */
function sentenciasDeNiveles(
  trx: Knex.Transaction,
  { finales, niveles, at }: { finales: Map<string, LineaPlaneada>; niveles: Niveles; at: Date },
): Sentencia[] {
  const ultimas: Sentencia[] = [];
  // Removed levels go in one statement: a write-out of hundreds of levels stays a few statements.
  const quitadas: number[] = [];
  for (const [k, l] of finales) {
    const fila = niveles.filas.get(k);
    if (!l.nivel.existe) {
      if (fila !== undefined) quitadas.push(fila);
    } else if (fila === undefined) {
      const escrito = { cantidad: l.nivel.cantidad, umbral_minimo: l.nivel.umbralMinimo, version: l.version };
      ultimas.push({ sentencia: insertarNivel(l.bodegaId, l.productoId, escrito, at) });
    } else {
      const escrito = { cantidad: l.nivel.cantidad, umbral_minimo: l.nivel.umbralMinimo, version: l.version };
      ultimas.push({ sentencia: actualizarNivel(fila, escrito, at) });
    }
  }
  if (quitadas.length > 0) ultimas.push({ sentencia: trx('existencias').whereIn('id', quitadas).delete() });
  return ultimas;
}

/** Later operations in this transaction see the levels this one wrote. */
function recordarNiveles(niveles: Niveles, finales: Map<string, LineaPlaneada>): void {
  for (const [k, l] of finales) {
    niveles.actuales.set(k, {
      bodegaId: l.bodegaId,
      productoId: l.productoId,
      existe: l.nivel.existe,
      cantidad: l.cantidadPosterior,
      umbralMinimo: l.nivel.existe ? l.nivel.umbralMinimo : null,
      version: l.version,
    });
    if (!l.nivel.existe) niveles.filas.delete(k);
  }
}

/** One operation: its row and lines, then its levels, events and occupancy, then the alerts on `disponible`. */
export async function escribir(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  escritura: Escritura,
): Promise<Operacion> {
  const { at, caller, nueva, niveles, bodegas } = escritura;
  const { events } = deps;
  const { operacionId, plan, movimientos } = await insertarLineas(trx, deps, estado, escritura);
  // The level after the operation's last line of it.
  const finales = new Map(plan.lineas.map((l) => [clave(l.bodegaId, l.productoId), l]));
  // The write's last statements (its levels, its events, occupancy last) are sent together, in this
  // order: one round trip when the pool takes several statements in one query (issue 23).
  const ultimas: Sentencia[] = sentenciasDeNiveles(trx, { finales, niveles, at });
  const operacion: Operacion = {
    id: operacionId,
    tipo: nueva.tipo,
    usuario: caller.usuario,
    comentario: nueva.comentario,
    fecha: at,
    revierteA: nueva.revierteA ?? null,
    revertidaPor: null,
    movimientos,
  };
  const ctx = { ...caller, at };
  const eventos: OutboxEvent[] = [events.movimientoRegistrado(operacion, ctx)];
  plan.lineas.forEach((l, i) => {
    if (l.umbral === null || !l.nivel.existe) return;
    eventos.push(
      events.umbral(l.umbral === 'BAJO' ? 'StockBajo' : 'StockRepuesto', movimientos[i]!, l.nivel.umbralMinimo, ctx),
    );
  });
  const evento = insertarEventos(eventos);
  if (evento) ultimas.push({ sentencia: evento });
  // Occupancy last: an exit's stripe (and an entry's warehouse row) is locked for the least time before the commit.
  for (const [bodegaId, delta] of plan.ocupacion) {
    const cambio = cambioDeOcupacion(bodegas.get(bodegaId)!, delta);
    if (cambio) ultimas.push(cambio);
  }
  await enviar(trx, deps, ultimas);
  // Levels watching `disponible` are judged now that the operation's levels and holds are written (§13.9);
  // only those whose locked row may watch it, so a level watching its units costs no extra read.
  await sincronizarAlertasDisponible(
    trx,
    events,
    [...finales]
      .filter(([k, l]) => l.nivel.existe && niveles.puedenVigilarDisponible?.has(k) !== false)
      .map(([, l]) => [l.bodegaId, l.productoId] as const),
    ctx,
    operacionId,
  );
  for (const [bodegaId, delta] of plan.ocupacion) bodegas.get(bodegaId)!.ocupacion += delta;
  recordarNiveles(niveles, finales);
  return operacion;
}
