import { FailedPreconditionError, NotFoundError, UnavailableError, type FieldViolation } from '@inventario/platform';
import type { Producto } from './model';

/**
 * The BFF's additions to the platform's closed set of domain errors. Each is
 * mapped to HTTP once (src/http/error-middleware.ts) and to GraphQL once
 * (src/graphql).
 */

/**
 * Safe delete refused: the warehouse still holds `total` products, assigned
 * to it or stocked there (REST 409); `productos` lists the first of them by
 * id, at most PRODUCTO_SAMPLE_LIMITS.
 */
export class BodegaConProductosError extends FailedPreconditionError {
  constructor(
    readonly bodegaId: number,
    readonly productos: Producto[],
    readonly total: number = productos.length,
    /** Whether some are held by their stock rather than their bodegaId: said in the message. */
    readonly conExistencias = false,
  ) {
    const que = conExistencias ? 'asignado(s) o con existencias' : 'asignado(s)';
    super(`La bodega ${bodegaId} tiene ${total} producto(s) ${que}; use force=true para eliminarla de todos modos`);
    this.name = 'BodegaConProductosError';
  }
}

/**
 * A NotFoundError that names what is missing as fields of the request
 * (REST 404 with `detalles`): which of a warehouse, a product or an
 * operation the request named does not exist.
 */
export class NoExisteError extends NotFoundError {
  constructor(readonly detalles: FieldViolation[]) {
    const text = detalles.map((d) => d.mensaje).join('; ');
    super(text.charAt(0).toUpperCase() + text.slice(1));
    this.name = 'NoExisteError';
  }

  static campo(campo: string, mensaje: string): NoExisteError {
    return new NoExisteError([{ campo, mensaje }]);
  }
}

/**
 * A write that must be conditional came without its condition: a count
 * (AJUSTE) is of a known state, so it names the level's version (REST 428,
 * RFC 6585). Nothing was written.
 */
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
    /** e.g. `producto-svc`. */
    readonly servicio: string,
    /** Seconds after which a retry may succeed (the breaker's reset timeout when open). */
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
  constructor(readonly servicio: string) {
    super(`El servicio ${servicio} no respondió a tiempo`);
    this.name = 'DeadlineExceededError';
  }
}
