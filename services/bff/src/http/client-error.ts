import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@inventario/platform';
import { ERROR_CODES, type ErrorBody } from './error-middleware';

/** By Node's parser error code; anything else is a malformed request (400). */
const BY_CODE: Readonly<Record<string, { status: number; body: ErrorBody }>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    body: {
      error: ERROR_CODES.headersTooLarge,
      mensaje: 'La línea de petición y las cabeceras superan el tamaño máximo (16 KiB): acorte la URL o las cabeceras',
    },
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    body: { error: ERROR_CODES.requestTimeout, mensaje: 'La petición no llegó completa a tiempo' },
  },
};

const MALFORMED = {
  status: 400,
  body: { error: ERROR_CODES.badRequest, mensaje: 'La petición HTTP está mal formada' },
};

export function rawJsonResponse(status: number, body: ErrorBody): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/**
 * A request Node's parser refuses before express sees it gets the API's JSON error body, not
 * Node's empty 400/431. As Node's own handler, it answers only while no response has started, then
 * closes the connection: the parser cannot resume after such an error.
 */
export function createClientErrorHandler(logger: Logger): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body } = (err.code && BY_CODE[err.code]) || MALFORMED;
    logger.debug({ code: err.code, status }, 'malformed HTTP request refused');
    socket.end(rawJsonResponse(status, body), () => socket.destroy());
  };
}
