import type { Response } from 'express';
import type { Logger } from '@inventario/platform';
import type { ProductosJson } from '../inventario/model';

export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

export interface JsonArraySenderDeps {
  /** A client that takes nothing for this long is cut off, so a stalled reader holds a page at most this long. */
  writeTimeoutMs: number;
  logger: Logger;
}

/** With `envelope`, the array is the last member of an object: `before` is its text up to the array. */
export type JsonArraySender = <T>(
  res: Response,
  pages: AsyncIterable<readonly T[] | ProductosJson>,
  itemJson: (item: T) => string,
  envelope?: { before: string; after: string },
) => Promise<void>;

/** Below V8's large-object size (128 KiB), which only a full collection frees; a page may be 1 MiB of text. */
const PIECE_CHARS = 16 * 1024;

type Drain = 'drained' | 'closed' | 'timeout';

/**
 * Resolves once the response can take more. Only while a drain is pending: a write that returned
 * false may have been flushed by the time we wait (uncork() writes the corked pieces; Node 24 can
 * then report the buffer emptied without a later 'drain'), and waiting for an event that never
 * comes would cut a client that took everything.
 */
function drained(res: Response, timeoutMs: number): Promise<Drain> {
  if (!res.writableNeedDrain) return Promise.resolve('drained');
  return new Promise((resolve) => {
    const done = (how: Drain) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(how);
    };
    const onDrain = () => done('drained');
    const onClose = () => done('closed');
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/** One response's list in flight: what its steps share. */
interface ListStream<T> {
  res: Response;
  iterator: AsyncIterator<readonly T[] | ProductosJson>;
  itemJson: (item: T) => string;
  /** The request's path, for the log lines. */
  path: string | undefined;
  /** Items written so far: the first goes without a comma before it. */
  items: number;
  /** Set once the client closed the connection. */
  gone: boolean;
}

async function nextPieces<T>(stream: ListStream<T>): Promise<(string | Uint8Array)[] | undefined> {
  const result = await stream.iterator.next();
  if (result.done) return undefined;
  if (!Array.isArray(result.value)) {
    const { json, count } = result.value as ProductosJson;
    if (count === 0) return [];
    const separator = stream.items === 0 ? [] : [','];
    stream.items += count;
    return [...separator, json];
  }
  const pieces: string[] = [];
  let piece = '';
  for (const item of result.value as readonly T[]) {
    piece += (stream.items++ === 0 ? '' : ',') + stream.itemJson(item);
    if (piece.length >= PIECE_CHARS) {
      pieces.push(piece);
      piece = '';
    }
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}

/** True when the socket's buffer is full. */
function write(res: Response, pieces: readonly (string | Uint8Array)[]): boolean {
  let full = false;
  res.cork();
  for (const piece of pieces) full = !res.write(piece);
  res.uncork();
  return full;
}

/** Its own frame holds the page, so nothing keeps it once written. */
async function sendNextPage<T>(stream: ListStream<T>): Promise<'ended' | 'sent' | 'full'> {
  const pieces = await nextPieces(stream);
  if (stream.gone) return 'sent';
  if (pieces === undefined) return 'ended';
  return write(stream.res, pieces) ? 'full' : 'sent';
}

function stopped<T>(stream: ListStream<T>, logger: Logger): void {
  logger.debug({ path: stream.path, items: stream.items }, 'list stream: the client left, reading stopped');
}

/**
 * After the opening: the next page each time the client took the last, then the closing bracket. A client
 * that takes nothing within the write timeout is cut off.
 */
async function sendRest<T>(
  stream: ListStream<T>,
  first: 'sent' | 'full',
  { writeTimeoutMs, logger }: JsonArraySenderDeps,
  after: string,
): Promise<void> {
  const { res } = stream;
  let state: 'ended' | 'sent' | 'full' = first;
  for (;;) {
    if (state === 'full' && (await drained(res, writeTimeoutMs)) === 'timeout') {
      logger.warn(
        { path: stream.path, items: stream.items, writeTimeoutMs },
        'list stream: the client took nothing in time, connection cut',
      );
      res.destroy();
      return;
    }
    if (stream.gone) return stopped(stream, logger);
    state = await sendNextPage(stream);
    if (stream.gone) return stopped(stream, logger);
    if (state === 'ended') {
      res.end(`]${after}`);
      return;
    }
  }
}

/**
 * The REST full lists (docs/contract.md §2.1): one JSON array, the bytes one stringify would write,
 * sent a downstream page at a time so the BFF never holds the list. The first page is read before
 * anything is sent, so its failure gets a JSON error; a later one cannot change the 200, so the
 * connection is cut before the last chunk and the client never sees a complete response. The next
 * page is read only once the client took the last (backpressure), and not at all once it left.
 */
export function createJsonArraySender(deps: JsonArraySenderDeps): JsonArraySender {
  const { logger } = deps;
  return async <T>(
    res: Response,
    pages: AsyncIterable<readonly T[] | ProductosJson>,
    itemJson: (item: T) => string,
    envelope = { before: '', after: '' },
  ) => {
    const stream: ListStream<T> = {
      res,
      iterator: pages[Symbol.asyncIterator](),
      itemJson,
      path: res.req.originalUrl.split('?', 1)[0],
      items: 0,
      gone: false,
    };
    res.once('close', () => (stream.gone = true));
    try {
      let opening: (string | Uint8Array)[] | undefined = [`${envelope.before}[`, ...((await nextPieces(stream)) ?? [])];
      if (stream.gone) return stopped(stream, logger);
      res.status(200).type('application/json');
      if (res.req.method === 'HEAD') {
        res.end();
        return;
      }
      try {
        const first = write(res, opening) ? 'full' : 'sent';
        opening = undefined;
        await sendRest(stream, first, deps, envelope.after);
      } catch (err) {
        logger.warn(
          { path: stream.path, items: stream.items, err },
          'list stream failed after its first byte: connection cut',
        );
        res.destroy();
      }
    } finally {
      await stream.iterator.return?.();
    }
  };
}
