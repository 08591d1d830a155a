import type { IncomingMessage } from 'node:http';
import { BODY_MENSAJES, MAX_BODY_BYTES, RequestBodyError } from './http-errors';

/** graphql-http reads each of these as UTF-8 JSON (compared lowercased). */
const PLAIN_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/**
 * A body body-parser is not needed for (issue 23: it was ~7 % of a cached GraphQL read): JSON in UTF-8, not
 * compressed, of a declared length within MAX_BODY_BYTES, not read yet and still arriving. Anything else goes
 * to body-parser as before, including every request it would treat as already finished.
 */
export function isPlainJsonBody(req: IncomingMessage): boolean {
  const { headers } = req;
  const type = headers['content-type'];
  const length = headers['content-length'];
  return (
    type !== undefined &&
    PLAIN_TYPES.has(type.toLowerCase()) &&
    // Node's parser admits only digits here.
    length !== undefined &&
    Number(length) <= MAX_BODY_BYTES &&
    headers['content-encoding'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    !('upgrade' in req && req.upgrade === true) &&
    req.readable &&
    req.readableDidRead === false &&
    req.socket?.readable === true
  );
}

/**
 * Reads a plain body (isPlainJsonBody) into `req.body` as the text body-parser's `text` would give: UTF-8, one
 * leading byte order mark dropped. Its failures are the ones body-parser's give through `bodyReadFailure`: a
 * client that leaves before the declared length arrived, or a length that does not match, is "incomplete", a
 * stream error is "unreadable". Node's parser never delivers more than the declared length, so the limit holds.
 */
export function readPlainJsonBody(req: IncomingMessage & { body?: unknown }, done: (err?: RequestBodyError) => void) {
  const declared = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let received = 0;

  const detach = () => {
    req.off('aborted', onAborted);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('close', detach);
  };
  const fail = (mensaje: string) => {
    detach();
    req.pause();
    done(new RequestBodyError(400, 'MALFORMED_JSON', mensaje));
  };
  function onAborted() {
    fail(BODY_MENSAJES.incompleto);
  }
  function onError() {
    fail(BODY_MENSAJES.ilegible);
  }
  function onData(chunk: Buffer) {
    received += chunk.length;
    chunks.push(chunk);
  }
  function onEnd() {
    if (received !== declared) return fail(BODY_MENSAJES.incompleto);
    detach();
    const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString('utf8');
    req.body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    done();
  }

  req.on('aborted', onAborted);
  // As raw-body: a request closed before its end without aborting (destroyed after it arrived whole) is dropped.
  req.on('close', detach);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}
