import {
  buildEnvelope,
  eventSubject,
  eventTraceHeaders,
  formatLocalUtc,
  type EventData,
  type EventType,
  type MovimientoData,
  type MovimientoRegistradoData,
  type OutboxEvent,
  type StockUmbralData,
} from '@inventario/platform';
import type { Existencia, Movimiento, Operacion } from '../domain/existencia';
import type { BodegaEventsOptions, WriteContext } from './bodega-events';

/**
 * docs/contract.md §10.4: one MovimientoRegistrado per operation with all its lines, so a transfer is never seen
 * half-done.
 */
export interface ExistenciaEvents {
  movimientoRegistrado(operacion: Operacion, ctx: WriteContext): OutboxEvent;
  umbral(
    type: 'StockBajo' | 'StockRepuesto',
    linea: Movimiento,
    umbralMinimo: number | null,
    ctx: WriteContext,
  ): OutboxEvent;
  /** The edge crossed by a threshold change, which writes no line: `operacionId` is null. */
  umbralCambiado(type: 'StockBajo' | 'StockRepuesto', nivel: Existencia, ctx: WriteContext): OutboxEvent;
  /**
   * The edge of a level watching `disponible` (docs/contract.md §13.9), crossed by `operacionId` (null: by a
   * reservation or a threshold change, which write no line).
   */
  umbralDisponible(
    type: 'StockBajo' | 'StockRepuesto',
    nivel: Existencia & { reservada: number },
    operacionId: number | null,
    ctx: WriteContext,
  ): OutboxEvent;
}

export function movimientoData(m: Movimiento): MovimientoData {
  return { ...m, fecha: formatLocalUtc(m.fecha) };
}

export function createExistenciaEvents(options: BodegaEventsOptions): ExistenciaEvents {
  function event(type: EventType, subject: string, data: EventData, ctx: WriteContext): OutboxEvent {
    return {
      subject: eventSubject(options.subjectPrefix, type),
      envelope: buildEnvelope({ namespace: options.namespace, type, source: 'bodega-svc', subject, data, at: ctx.at }),
      headers: eventTraceHeaders(ctx),
    };
  }

  return {
    movimientoRegistrado(operacion, ctx) {
      const data: MovimientoRegistradoData = {
        operacionId: operacion.id,
        tipoOperacion: operacion.tipo,
        usuario: operacion.usuario,
        comentario: operacion.comentario,
        revierteA: operacion.revierteA,
        timestamp: formatLocalUtc(operacion.fecha),
        movimientos: operacion.movimientos.map(movimientoData),
        // The audit block's "who exactly" (§12.4, §12.9), additive: only when the call carried a principal.
        ...(ctx.principal
          ? {
              principalId: ctx.principal.id,
              metodoAuth: ctx.principal.metodoAuth,
              ...(ctx.principal.tokenId !== null ? { tokenId: ctx.principal.tokenId } : {}),
            }
          : {}),
      };
      return event('MovimientoRegistrado', `/operaciones/${operacion.id}`, data, ctx);
    },
    umbral(type, linea, umbralMinimo, ctx) {
      const data: StockUmbralData = {
        bodegaId: linea.bodegaId,
        productoId: linea.productoId,
        cantidad: linea.cantidadPosterior,
        umbralMinimo,
        version: linea.version,
        operacionId: linea.operacionId,
        usuario: linea.usuario,
        timestamp: formatLocalUtc(linea.fecha),
      };
      return event(type, `/bodegas/${linea.bodegaId}/existencias/${linea.productoId}`, data, ctx);
    },
    umbralCambiado(type, nivel, ctx) {
      const data: StockUmbralData = {
        bodegaId: nivel.bodegaId,
        productoId: nivel.productoId,
        cantidad: nivel.cantidad,
        umbralMinimo: nivel.umbralMinimo,
        version: nivel.version,
        operacionId: null,
        usuario: ctx.usuario,
        timestamp: formatLocalUtc(ctx.at),
      };
      return event(type, `/bodegas/${nivel.bodegaId}/existencias/${nivel.productoId}`, data, ctx);
    },
    umbralDisponible(type, nivel, operacionId, ctx) {
      const data: StockUmbralData = {
        bodegaId: nivel.bodegaId,
        productoId: nivel.productoId,
        cantidad: nivel.cantidad,
        umbralMinimo: nivel.umbralMinimo,
        version: nivel.version,
        operacionId,
        usuario: ctx.usuario,
        timestamp: formatLocalUtc(ctx.at),
        alertaSobre: 'DISPONIBLE',
        reservada: nivel.reservada,
        disponible: nivel.cantidad - nivel.reservada,
      };
      return event(type, `/bodegas/${nivel.bodegaId}/existencias/${nivel.productoId}`, data, ctx);
    },
  };
}
