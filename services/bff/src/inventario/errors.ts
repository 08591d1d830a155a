import { FailedPreconditionError, NotFoundError, UnavailableError, type FieldViolation } from '@inventario/platform';
import type { Producto } from '@inventario/contract';

/** The BFF's additions to the platform's domain errors, each mapped once to HTTP and once to GraphQL. */

/** Safe delete refused (docs/contract.md §2.7); `productos` are the first by id, at most PRODUCTO_SAMPLE_LIMITS. */
export class BodegaConProductosError extends FailedPreconditionError {
  constructor(
    readonly bodegaId: number,
    readonly productos: Producto[],
    readonly total: number = productos.length,
    readonly conExistencias = false,
  ) {
    const que = conExistencias ? 'asignado(s) o con existencias' : 'asignado(s)';
    super(`La bodega ${bodegaId} tiene ${total} producto(s) ${que}; use force=true para eliminarla de todos modos`);
    this.name = 'BodegaConProductosError';
  }
}

/** A 404 whose `detalles` name the request's fields whose record does not exist. */
export class NoExisteError extends NotFoundError {
  constructor(
    readonly detalles: FieldViolation[],
    reason?: string,
  ) {
    const text = detalles.map((d) => d.mensaje).join('; ');
    super(text.charAt(0).toUpperCase() + text.slice(1), { reason, violations: detalles });
    this.name = 'NoExisteError';
  }

  static campo(campo: string, mensaje: string): NoExisteError {
    return new NoExisteError([{ campo, mensaje }]);
  }
}

/** A count (AJUSTE) is of a known state, so it must name the level's version (REST 428). */
export class PreconditionRequiredError extends Error {
  readonly code = 'PRECONDITION_REQUIRED';
  constructor(message: string) {
    super(message);
    this.name = 'PreconditionRequiredError';
  }
}

/** A downstream service cannot answer now: it is down or its circuit is open (REST 503 + Retry-After). */
export class ServicioNoDisponibleError extends UnavailableError {
  constructor(
    readonly servicio: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(`El servicio ${servicio} no está disponible en este momento; reintente en ${retryAfterSeconds} s`, options);
    this.name = 'ServicioNoDisponibleError';
  }
}

/** A downstream call ran past its deadline (REST 504). */
export class DeadlineExceededError extends Error {
  readonly code = 'DEADLINE_EXCEEDED';
  constructor(
    readonly servicio: string,
    mensaje = `El servicio ${servicio} no respondió a tiempo`,
  ) {
    super(mensaje);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * The service's database stopped one of the request's statements at its time limit
 * (RESOURCE_EXHAUSTED, reason STATEMENT_TIMEOUT): a 504 like a deadline, but nothing was written,
 * and it is about this request, not the service's health (the breaker does not count it).
 */
export class SentenciaDetenidaError extends DeadlineExceededError {
  constructor(servicio: string) {
    super(
      servicio,
      `La base de datos de ${servicio} detuvo la operación por superar su tiempo máximo; no se aplicó ningún cambio`,
    );
    this.name = 'SentenciaDetenidaError';
  }
}
