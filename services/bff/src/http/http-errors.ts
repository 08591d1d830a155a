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

  /** Refused until a limiter's window resets at `resetTime` (a whole window when unknown); Retry-After at least 1 s. */
  static until(resetTime: Date | undefined, windowMs: number): TooManyRequestsError {
    const seconds = resetTime ? Math.ceil((resetTime.getTime() - Date.now()) / 1000) : windowMs / 1000;
    return new TooManyRequestsError(Math.max(1, seconds));
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

/**
 * The most a request body may hold, REST and GraphQL alike (docs/contract.md
 * §3.4: larger bodies are 413); Envoy's buffer limits match it (a test checks).
 */
export const MAX_BODY_BYTES = 1024 * 1024;

export const BODY_MENSAJES = {
  demasiadoGrande: `El cuerpo supera el máximo de ${MAX_BODY_BYTES} bytes (1 MiB)`,
  jsonMalFormado: 'El cuerpo no es JSON válido',
  charset: 'Juego de caracteres no admitido: envíe JSON en UTF-8',
  contentEncoding: 'Content-Encoding no admitido: envíe el cuerpo sin comprimir o comprimido con gzip, deflate o br',
  incompleto: 'El cuerpo llegó incompleto',
  ilegible: 'El cuerpo no se pudo leer: su contenido no corresponde a su Content-Encoding (¿comprimido de forma incorrecta?)',
} as const;

/** The status an http-errors style error (body-parser, router, send) marks as the client's fault, if any. */
export function clientStatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose !== false ? status : undefined;
}

/**
 * The RequestBodyError for an error of body-parser (express.json/text/raw,
 * recognised by its `type`), or undefined when `err` is not one. Shared by
 * every router that parses bodies, so a 413 or 415 reads the same anywhere.
 */
export function fromBodyParserError(err: unknown): RequestBodyError | undefined {
  if (typeof err !== 'object' || err === null || typeof (err as { type?: unknown }).type !== 'string') return undefined;
  switch ((err as { type: string }).type) {
    case 'entity.too.large':
      return new RequestBodyError(413, 'PAYLOAD_TOO_LARGE', BODY_MENSAJES.demasiadoGrande);
    case 'entity.parse.failed':
      return new RequestBodyError(400, 'MALFORMED_JSON', BODY_MENSAJES.jsonMalFormado);
    case 'charset.unsupported':
      return new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', BODY_MENSAJES.charset);
    // body-parser's type for a Content-Encoding it cannot decompress (zstd, compress, ...).
    case 'encoding.unsupported':
      return new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', BODY_MENSAJES.contentEncoding);
    case 'request.aborted':
    case 'request.size.invalid':
      return new RequestBodyError(400, 'MALFORMED_JSON', BODY_MENSAJES.incompleto);
    default:
      return undefined;
  }
}

/**
 * What a body reader's failure is, for a middleware that just read a body:
 * body-parser's typed errors as above, and any other failure the reader
 * marks as the client's (a 4xx status), e.g. zlib's `Z_DATA_ERROR` for a
 * `Content-Encoding: gzip` body that is not gzip, as 400 MALFORMED_JSON.
 * Anything else (a 5xx: our bug) is returned unchanged, for the 500 path.
 */
export function bodyReadFailure(err: unknown): unknown {
  const known = fromBodyParserError(err);
  if (known) return known;
  return clientStatusOf(err) === undefined ? err : new RequestBodyError(400, 'MALFORMED_JSON', BODY_MENSAJES.ilegible);
}
