import type { RequestHandler } from 'express';
import { BODY_MENSAJES, MAX_BODY_BYTES, RequestBodyError } from './http-errors';

/**
 * Refuses any request whose Content-Length declares more than
 * MAX_BODY_BYTES, on every route (GET, DELETE and the probes included) and
 * before authentication: 413 PAYLOAD_TOO_LARGE, decided from the header
 * alone. The routes that read a body also bound what they read (a chunked
 * body has no Content-Length); a route that reads none leaves Node to
 * discard what was sent, within HTTP_REQUEST_TIMEOUT_MS.
 */
export const declaredBodyLimit: RequestHandler = (req, _res, next) => {
  const length = req.headers['content-length'];
  // Node's parser admits only digits here.
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) {
    next(new RequestBodyError(413, 'PAYLOAD_TOO_LARGE', BODY_MENSAJES.demasiadoGrande));
    return;
  }
  next();
};
