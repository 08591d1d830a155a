import express, { type RequestHandler } from 'express';
import { parse } from 'lossless-json';
import { bodyReadFailure, MAX_BODY_BYTES, RequestBodyError } from './http-errors';
import { motivoSintaxisJson } from './json-syntax';
import { losslessReading, NOT_SURE } from './lossless-reading';
import { isPlainJsonBody, readPlainJsonBody } from './plain-json-body';

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
 * lossless-json's reading of a body, every number a LosslessNumber with its exact text (a price never passes through a
 * float). JSON.parse reads first and, when that reading is lossless-json's but for the numbers (losslessReading),
 * it is the answer (issue 23: lossless-json was most of a REST write's parse); otherwise, a text JSON.parse refuses
 * included, lossless-json reads it as every body was read before, so a refusal and its reason are lossless-json's.
 */
export function parseRestJson(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return parse(text);
  }
  const value = losslessReading(text, parsed, true);
  return value === NOT_SURE ? parse(text) : value;
}

/**
 * The REST body reader (docs/contract.md §3.2): parseRestJson's reading; `req.body` stays undefined when there is no
 * body. A plain body (isPlainJsonBody) is read without body-parser, as GraphQL's is; any other goes to it.
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
    const read = (err?: unknown) => {
      if (err) {
        next(err instanceof RequestBodyError ? err : bodyReadFailure(err));
        return;
      }
      const text = typeof req.body === 'string' ? req.body : '';
      try {
        req.body = text.trim() === '' ? undefined : parseRestJson(text);
      } catch (parseError) {
        // Also a RangeError from absurdly deep nesting: still the client's malformed input.
        next(new RequestBodyError(400, 'MALFORMED_JSON', `El cuerpo no es JSON válido: ${reason(parseError)}`));
        return;
      }
      next();
    };
    if (isPlainJsonBody(req)) readPlainJsonBody(req, read);
    else readText(req, res, read);
  };
}
