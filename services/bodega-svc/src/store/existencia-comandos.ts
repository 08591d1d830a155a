// The stock commands on explicit levels: an assignment, a threshold, a level's removal, a movement, a transfer, a
// reversal, and a reservation's exit (comando: lock, check the condition, escribir).

import { enqueueEvents, NotFoundError, type CallContext, type Knex } from '@inventario/platform';
import type { AlertaSobre } from '@inventario/contract';
import {
  cambiosDeReverso,
  clave,
  planUmbral,
  esBajo,
  TIPO_LINEA,
  type Asignacion,
  type Cambio,
  type Existencia,
  type MovimientoSolicitado,
  type Operacion,
  type Transferencia,
} from '../domain/existencia';
import { bloqueosDe } from './ocupacion';
import type {
  BloqueadosPorReserva,
  BodegaNombrada,
  CommandOptions,
  ExistenciaStoreDeps,
  NivelRow,
} from './existencia-tipos';
import { sinExistencias } from './existencia-errores';
import { readOperacion, toExistencia } from './existencia-lecturas';
import {
  bloquearJuntos,
  bloquearUnoAUno,
  comprobarBodegas,
  lockBodegas,
  lockBodegasNombradas,
  lockNiveles,
  requireProductosVivos,
  requireVersion,
  type Niveles,
} from './existencia-bloqueos';
import { conProductosConocidos } from './productos-conocidos';
import { escribir, filaDeOperacion, write, type EstadoExistencias, type OperacionNueva } from './existencia-escritura';

/** One command on explicit levels: locks, checks the condition on the first level when asked, writes. */
async function comando(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    at,
    caller,
    nueva,
    cambios,
    condicion = {},
  }: {
    at: Date;
    caller: CallContext;
    nueva: OperacionNueva;
    cambios: Cambio[];
    condicion?: CommandOptions & { fijar?: boolean; nombradas?: readonly BodegaNombrada[] };
  },
): Promise<{ operacion: Operacion; niveles: Niveles }> {
  const productoIds = [...new Set(cambios.map((c) => c.productoId))];
  // The operation's row rides with the locking reads, right after them as escribir would send it: one round
  // trip less per command (issue 23, CPU per write). Its only lock is its own new row, which nobody else can
  // wait on; a check that then refuses the command rolls it back. Not a reversal's: its duplicate revierte_a
  // must be told apart from its reads (yaRevertida).
  const alta = deps.sentenciasJuntas && nueva.revierteA === undefined ? filaDeOperacion(at, caller, nueva) : undefined;
  const { bodegas, niveles, operacionId }: Awaited<ReturnType<typeof bloquearJuntos>> = deps.sentenciasJuntas
    ? await bloquearJuntos(trx, productoIds, cambios, condicion.nombradas, alta)
    : await bloquearUnoAUno(trx, productoIds, cambios, condicion.nombradas);
  const primero = cambios[0]!;
  requireVersion(niveles.actuales.get(clave(primero.bodegaId, primero.productoId))!, condicion, condicion.fijar);
  const operacion = await escribir(trx, deps, estado, {
    at,
    caller,
    nueva,
    cambios,
    niveles,
    bodegas,
    insertada: operacionId,
  });
  return { operacion, niveles };
}

export function asignar(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { asignacion: a, caller, opts }: { asignacion: Asignacion; caller: CallContext; opts: CommandOptions },
): Promise<{ existencia: Existencia; operacion: Operacion }> {
  const nombradas = [{ campo: 'bodegaId', id: a.bodegaId }];
  return conProductosConocidos(db, deps, [a.productoId], nombradas, () =>
    write(db, deps, caller, async (trx, at) => {
      const cambio: Cambio = {
        bodegaId: a.bodegaId,
        productoId: a.productoId,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        fijar: a.cantidad,
        umbralMinimo: a.umbralMinimo,
      };
      const { operacion } = await comando(trx, deps, estado, {
        at,
        caller,
        nueva: { tipo: 'ASIGNACION', comentario: null, claveIdempotencia: opts.claveIdempotencia },
        cambios: [cambio],
        condicion: {
          ...opts,
          fijar: opts.versionRequerida,
          nombradas,
        },
      });
      const nivel = await trx<NivelRow>('existencias')
        .where({ bodega_id: a.bodegaId, producto_id: a.productoId })
        .first();
      return { existencia: toExistencia(nivel!), operacion };
    }),
  );
}

export function cambiarUmbral(
  db: Knex,
  deps: ExistenciaStoreDeps,
  {
    cambio: { bodegaId, productoId, umbralMinimo, alertaSobre },
    caller,
    opts,
  }: {
    cambio: { bodegaId: number; productoId: number; umbralMinimo: number | null; alertaSobre?: AlertaSobre };
    caller: CallContext;
    opts: CommandOptions;
  },
): Promise<Existencia> {
  return write(db, deps, caller, async (trx, at) => {
    // The same locks, in the same order, as a stock write: a deleted product's level takes no new setting.
    await requireProductosVivos(trx, [productoId]);
    // A threshold moves no units: shared, like an exit.
    await lockBodegasNombradas(trx, new Map([[bodegaId, 'compartido']]), [{ campo: 'bodegaId', id: bodegaId }]);
    const niveles = await lockNiveles(trx, [[bodegaId, productoId]]);
    const nivel = niveles.actuales.get(clave(bodegaId, productoId))!;
    requireVersion(nivel, opts);
    if (!nivel.existe) throw sinExistencias(bodegaId, productoId);
    const antes = await trx<NivelRow>('existencias')
      .where({ bodega_id: bodegaId, producto_id: productoId })
      .first('reservada', 'bajo_disponible');
    const sobre = alertaSobre ?? nivel.alertaSobre ?? 'CANTIDAD';
    const plan = planUmbral(
      { ...nivel, reservada: antes?.reservada ?? 0, bajoDisponible: antes?.bajo_disponible === 1 },
      umbralMinimo,
      sobre,
    );
    await trx('existencias')
      .where({ id: niveles.filas.get(clave(bodegaId, productoId))! })
      .update({
        umbral_minimo: umbralMinimo,
        alerta_sobre: sobre,
        // The alert on `disponible` is the one now raised; watching the units, none is recorded.
        bajo_disponible:
          sobre === 'DISPONIBLE' && esBajo(nivel.cantidad - (antes?.reservada ?? 0), umbralMinimo) ? 1 : 0,
        version: plan.version,
        fecha_actualizacion: at,
      });
    const fila = await trx<NivelRow>('existencias').where({ bodega_id: bodegaId, producto_id: productoId }).first();
    const existencia = toExistencia(fila!);
    if (plan.umbral !== null) {
      const ctx = { ...caller, at };
      const tipo = plan.umbral === 'BAJO' ? 'StockBajo' : 'StockRepuesto';
      await enqueueEvents(trx, [
        sobre === 'DISPONIBLE'
          ? deps.events.umbralDisponible(tipo, { ...existencia, reservada: fila!.reservada ?? 0 }, null, ctx)
          : deps.events.umbralCambiado(tipo, existencia, ctx),
      ]);
    }
    return existencia;
  });
}

export function retirar(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    bodegaId,
    productoId,
    caller,
    opts,
  }: { bodegaId: number; productoId: number; caller: CallContext; opts: CommandOptions },
): Promise<{ cantidadRetirada: number; operacion: Operacion }> {
  return write(db, deps, caller, async (trx, at) => {
    // A write-out needs no live product: the level of a product deleted a moment ago can still go.
    const bodegas = await lockBodegasNombradas(trx, new Map([[bodegaId, 'compartido']]), [
      { campo: 'bodegaId', id: bodegaId },
    ]);
    const niveles = await lockNiveles(trx, [[bodegaId, productoId]]);
    const nivel = niveles.actuales.get(clave(bodegaId, productoId))!;
    requireVersion(nivel, opts);
    // An error, not an empty answer: nothing was done, so a keyed call records nothing (§9.2).
    if (!nivel.existe) throw sinExistencias(bodegaId, productoId);
    const operacion = await escribir(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'RETIRO', comentario: null, claveIdempotencia: opts.claveIdempotencia },
      cambios: [{ bodegaId, productoId, tipo: 'SALIDA', motivo: 'RETIRO', retirar: true }],
      niveles,
      bodegas,
    });
    return { cantidadRetirada: nivel.cantidad, operacion };
  });
}

export function registrarMovimiento(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { movimiento: m, caller, opts }: { movimiento: MovimientoSolicitado; caller: CallContext; opts: CommandOptions },
): Promise<Operacion> {
  const nombradas = [{ campo: 'bodegaId', id: m.bodegaId }];
  return conProductosConocidos(db, deps, [m.productoId], nombradas, () =>
    write(db, deps, caller, async (trx, at) => {
      const base = { bodegaId: m.bodegaId, productoId: m.productoId, tipo: TIPO_LINEA[m.tipo]!, motivo: m.motivo };
      const cambio: Cambio =
        m.tipo === 'AJUSTE'
          ? { ...base, fijar: m.cantidad }
          : { ...base, delta: m.tipo === 'ENTRADA' ? m.cantidad : -m.cantidad };
      const { operacion } = await comando(trx, deps, estado, {
        at,
        caller,
        nueva: { tipo: m.tipo, comentario: m.comentario, claveIdempotencia: opts.claveIdempotencia },
        cambios: [cambio],
        condicion: {
          ...opts,
          nombradas,
        },
      });
      return operacion;
    }),
  );
}

export function transferir(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { transferencia: t, caller, opts }: { transferencia: Transferencia; caller: CallContext; opts: CommandOptions },
): Promise<Operacion> {
  const nombradas = [
    { campo: 'origenId', id: t.origenId },
    { campo: 'destinoId', id: t.destinoId },
  ];
  return conProductosConocidos(db, deps, [t.productoId], nombradas, () =>
    write(db, deps, caller, async (trx, at) => {
      const cambios: Cambio[] = [
        {
          bodegaId: t.origenId,
          productoId: t.productoId,
          tipo: 'TRANSFERENCIA',
          motivo: 'TRANSFERENCIA',
          delta: -t.cantidad,
        },
        {
          bodegaId: t.destinoId,
          productoId: t.productoId,
          tipo: 'TRANSFERENCIA',
          motivo: 'TRANSFERENCIA',
          delta: t.cantidad,
        },
      ];
      const { operacion } = await comando(trx, deps, estado, {
        at,
        caller,
        nueva: { tipo: 'TRANSFERENCIA', comentario: t.comentario, claveIdempotencia: opts.claveIdempotencia },
        cambios,
        condicion: { ...opts, nombradas },
      });
      return operacion;
    }),
  );
}

export function revertir(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    operacionId,
    comentario,
    caller,
    opts,
  }: { operacionId: number; comentario: string | null; caller: CallContext; opts: CommandOptions },
): Promise<Operacion> {
  return write(db, deps, caller, async (trx, at) => {
    const original = await readOperacion(trx, operacionId).catch((err: unknown) => {
      // The operation is the request's `id`.
      throw err instanceof NotFoundError
        ? NotFoundError.campos([{ campo: 'id', mensaje: `no existe la operación ${operacionId}` }])
        : err;
    });
    const cambios = cambiosDeReverso(original);
    const { operacion } = await comando(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'REVERSO', comentario, revierteA: operacionId, claveIdempotencia: opts.claveIdempotencia },
      cambios,
    });
    return operacion;
  });
}

export async function salidaDeReserva(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    at,
    caller,
    lineas,
    comentario,
    bloqueados,
  }: {
    at: Date;
    caller: CallContext;
    lineas: { bodegaId: number; productoId: number; cantidad: number }[];
    comentario: string | null;
    bloqueados?: BloqueadosPorReserva;
  },
): Promise<Operacion> {
  const cambios: Cambio[] = lineas.map((l) => ({
    bodegaId: l.bodegaId,
    productoId: l.productoId,
    tipo: 'SALIDA',
    motivo: 'VENTA',
    delta: -l.cantidad,
  }));
  // The reservation's write holds them already (issue 24: not locked and read a second time).
  const bodegas = bloqueados
    ? comprobarBodegas(bloqueosDe(cambios), bloqueados.bodegas)
    : await lockBodegas(trx, bloqueosDe(cambios));
  const niveles = await lockNiveles(
    trx,
    cambios.map((c) => [c.bodegaId, c.productoId]),
    bloqueados?.niveles,
  );
  return escribir(trx, deps, estado, { at, caller, nueva: { tipo: 'SALIDA', comentario }, cambios, niveles, bodegas });
}
