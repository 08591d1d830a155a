import { FailedPreconditionError, UnavailableError } from '@inventario/platform';
import type { Producto } from './model';

/**
 * The BFF's additions to the platform's closed set of domain errors. Each is
 * mapped to HTTP once (src/http/error-middleware.ts) and to GraphQL once
 * (src/graphql).
 */

/**
 * Safe delete refused: the warehouse still holds `total` products (REST 409);
 * `productos` lists the first of them by id, at most PRODUCTO_SAMPLE_LIMITS.
 */
export class BodegaConProductosError extends FailedPreconditionError {
  constructor(
    readonly bodegaId: number,
    readonly productos: Producto[],
    readonly total: number = productos.length,
  ) {
    super(`La bodega ${bodegaId} tiene ${total} producto(s) asignado(s); use force=true para eliminarla de todos modos`);
    this.name = 'BodegaConProductosError';
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
