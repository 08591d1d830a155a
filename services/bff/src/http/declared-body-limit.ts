import type { RequestHandler } from 'express';
import { BODY_MENSAJES, MAX_BODY_BYTES, RequestBodyError } from './http-errors';

/**
 * 413 for a declared Content-Length above MAX_BODY_BYTES on every route, before authentication;
 * routes that read a body also bound what they read (a chunked body declares no length).
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
