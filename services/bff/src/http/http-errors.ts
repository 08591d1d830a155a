/**
 * Failures born at the HTTP edge (before any use case runs). With the
 * platform's domain errors and the BFF's own (src/inventario/errors.ts)
 * they form the closed set that error-middleware.ts maps to HTTP.
 */

/** Missing, malformed or wrong Basic credentials (401). */
export class UnauthenticatedError extends Error {
  constructor(mensaje: string) {
    super(mensaje);
    this.name = 'UnauthenticatedError';
  }
}

/** The client exceeded its requests per minute (429). */
export class TooManyRequestsError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Demasiadas solicitudes; reintente en ${retryAfterSeconds} s`);
    this.name = 'TooManyRequestsError';
  }
}

/** A request body that cannot be read: malformed JSON 400, too large 413, not JSON 415. */
export class RequestBodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    readonly error: 'MALFORMED_JSON' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE',
    mensaje: string,
  ) {
    super(mensaje);
    this.name = 'RequestBodyError';
  }
}

/** No route matches the method and path (404). */
export class RouteNotFoundError extends Error {
  constructor(method: string, path: string) {
    super(`No existe la ruta ${method} ${path}`);
    this.name = 'RouteNotFoundError';
  }
}

/** The most a request body may hold. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The RequestBodyError for an error of body-parser (express.json/text/raw,
 * recognised by its `type`), or undefined when `err` is not one. Shared by
 * every router that parses bodies, so a 413 or 415 reads the same anywhere.
 */
export function fromBodyParserError(err: unknown): RequestBodyError | undefined {
  if (typeof err !== 'object' || err === null || typeof (err as { type?: unknown }).type !== 'string') return undefined;
  switch ((err as { type: string }).type) {
    case 'entity.too.large':
      return new RequestBodyError(413, 'PAYLOAD_TOO_LARGE', `El cuerpo supera el máximo de ${MAX_BODY_BYTES} bytes (1 MiB)`);
    case 'entity.parse.failed':
      return new RequestBodyError(400, 'MALFORMED_JSON', 'El cuerpo no es JSON válido');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Codificación no admitida: envíe JSON en UTF-8');
    case 'request.aborted':
    case 'request.size.invalid':
      return new RequestBodyError(400, 'MALFORMED_JSON', 'El cuerpo llegó incompleto');
    default:
      return undefined;
  }
}
