import express, { type RequestHandler } from 'express';
import { parse } from 'lossless-json';
import { bodyReadFailure, MAX_BODY_BYTES, RequestBodyError } from './http-errors';
import { motivoSintaxisJson } from './json-syntax';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** An empty POST is "no body", a 400 later. */
function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Enough to find the problem (in Spanish, with its position), never the whole body. */
function reason(err: unknown): string {
  const text = motivoSintaxisJson(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The REST body reader (docs/contract.md §3.2). lossless-json keeps every number's exact text (a
 * price never passes through a float); `req.body` stays undefined when there is no body.
 */
export function jsonBody(): RequestHandler {
  const readText = express.text({ type: () => true, limit: MAX_BODY_BYTES });
  return (req, res, next) => {
    if (!BODY_METHODS.has(req.method) || !hasBody(req.headers) || req.body !== undefined) {
      next();
      return;
    }
    if (!req.is(['application/json', 'application/*+json'])) {
      next(
        new RequestBodyError(
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          'Tipo de contenido no admitido: envíe Content-Type: application/json',
        ),
      );
      return;
    }
    readText(req, res, (err?: unknown) => {
      if (err) {
        next(bodyReadFailure(err));
        return;
      }
      const text = typeof req.body === 'string' ? req.body : '';
      try {
        req.body = text.trim() === '' ? undefined : parse(text);
      } catch (parseError) {
        // Also a RangeError from absurdly deep nesting: still the client's malformed input.
        next(new RequestBodyError(400, 'MALFORMED_JSON', `El cuerpo no es JSON válido: ${reason(parseError)}`));
        return;
      }
      next();
    });
  };
}
