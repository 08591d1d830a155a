/** Failures born at the HTTP edge; with the domain errors, the closed set error-middleware.ts maps. */

export class UnauthenticatedError extends Error {
  constructor(mensaje: string) {
    super(mensaje);
    this.name = 'UnauthenticatedError';
  }
}

export class TooManyRequestsError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Demasiadas solicitudes; reintente en ${retryAfterSeconds} s`);
    this.name = 'TooManyRequestsError';
  }

  static until(resetTime: Date | undefined, windowMs: number): TooManyRequestsError {
    const seconds = resetTime ? Math.ceil((resetTime.getTime() - Date.now()) / 1000) : windowMs / 1000;
    return new TooManyRequestsError(Math.max(1, seconds));
  }
}

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

export class RouteNotFoundError extends Error {
  constructor(method: string, path: string) {
    super(`No existe la ruta ${method} ${path}`);
    this.name = 'RouteNotFoundError';
  }
}

/** REST and GraphQL alike (docs/contract.md §3.4); Envoy's buffer limits match it (a test checks). */
export const MAX_BODY_BYTES = 1024 * 1024;

export const BODY_MENSAJES = {
  demasiadoGrande: `El cuerpo supera el máximo de ${MAX_BODY_BYTES} bytes (1 MiB)`,
  jsonMalFormado: 'El cuerpo no es JSON válido',
  charset: 'Juego de caracteres no admitido: envíe JSON en UTF-8',
  contentEncoding: 'Content-Encoding no admitido: envíe el cuerpo sin comprimir o comprimido con gzip, deflate o br',
  incompleto: 'El cuerpo llegó incompleto',
  ilegible:
    'El cuerpo no se pudo leer: su contenido no corresponde a su Content-Encoding (¿comprimido de forma incorrecta?)',
} as const;

/** The status an http-errors style error marks as the client's fault, if any. */
export function clientStatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose !== false ? status : undefined;
}

/** Shared by every router that parses bodies, so a 413 or 415 reads the same anywhere. */
export function fromBodyParserError(err: unknown): RequestBodyError | undefined {
  if (typeof err !== 'object' || err === null || typeof (err as { type?: unknown }).type !== 'string') return undefined;
  switch ((err as { type: string }).type) {
    case 'entity.too.large':
      return new RequestBodyError(413, 'PAYLOAD_TOO_LARGE', BODY_MENSAJES.demasiadoGrande);
    case 'entity.parse.failed':
      return new RequestBodyError(400, 'MALFORMED_JSON', BODY_MENSAJES.jsonMalFormado);
    case 'charset.unsupported':
      return new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', BODY_MENSAJES.charset);
    case 'encoding.unsupported':
      return new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', BODY_MENSAJES.contentEncoding);
    case 'request.aborted':
    case 'request.size.invalid':
      return new RequestBodyError(400, 'MALFORMED_JSON', BODY_MENSAJES.incompleto);
    default:
      return undefined;
  }
}

/** A reader failure marked as the client's (e.g. zlib's for a gzip body that is not) is a 400; others stay 500. */
export function bodyReadFailure(err: unknown): unknown {
  const known = fromBodyParserError(err);
  if (known) return known;
  return clientStatusOf(err) === undefined ? err : new RequestBodyError(400, 'MALFORMED_JSON', BODY_MENSAJES.ilegible);
}
