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

/**
 * The REST full lists (docs/contract.md §2.1): one JSON array, the bytes one stringify would write,
 * sent a downstream page at a time so the BFF never holds the list. The first page is read before
 * anything is sent, so its failure gets a JSON error; a later one cannot change the 200, so the
 * connection is cut before the last chunk and the client never sees a complete response. The next
 * page is read only once the client took the last (backpressure), and not at all once it left.
 */
export function createJsonArraySender({ writeTimeoutMs, logger }: JsonArraySenderDeps): JsonArraySender {
  return async <T>(
    res: Response,
    pages: AsyncIterable<readonly T[] | ProductosJson>,
    itemJson: (item: T) => string,
    envelope = { before: '', after: '' },
  ) => {
    let gone = false;
    res.once('close', () => (gone = true));
    const path = res.req.originalUrl.split('?', 1)[0];
    let items = 0;
    const iterator = pages[Symbol.asyncIterator]();

    const nextPieces = async (): Promise<(string | Uint8Array)[] | undefined> => {
      const result = await iterator.next();
      if (result.done) return undefined;
      if (!Array.isArray(result.value)) {
        const { json, count } = result.value as ProductosJson;
        if (count === 0) return [];
        const separator = items === 0 ? [] : [','];
        items += count;
        return [...separator, json];
      }
      const pieces: string[] = [];
      let piece = '';
      for (const item of result.value as readonly T[]) {
        piece += (items++ === 0 ? '' : ',') + itemJson(item);
        if (piece.length >= PIECE_CHARS) {
          pieces.push(piece);
          piece = '';
        }
      }
      if (piece !== '') pieces.push(piece);
      return pieces;
    };

    /** True when the socket's buffer is full. */
    const write = (pieces: readonly (string | Uint8Array)[]): boolean => {
      let full = false;
      res.cork();
      for (const piece of pieces) full = !res.write(piece);
      res.uncork();
      return full;
    };

    /** Its own frame holds the page, so nothing keeps it once written. */
    const sendNextPage = async (): Promise<'ended' | 'sent' | 'full'> => {
      const pieces = await nextPieces();
      if (gone) return 'sent';
      if (pieces === undefined) return 'ended';
      return write(pieces) ? 'full' : 'sent';
    };

    const stopped = () => logger.debug({ path, items }, 'list stream: the client left, reading stopped');

    try {
      let opening: (string | Uint8Array)[] | undefined = [`${envelope.before}[`, ...((await nextPieces()) ?? [])];
      if (gone) return stopped();
      res.status(200).type('application/json');
      if (res.req.method === 'HEAD') {
        res.end();
        return;
      }
      try {
        let state: 'ended' | 'sent' | 'full' = write(opening) ? 'full' : 'sent';
        opening = undefined;
        for (;;) {
          if (state === 'full' && (await drained(res, writeTimeoutMs)) === 'timeout') {
            logger.warn(
              { path, items, writeTimeoutMs },
              'list stream: the client took nothing in time, connection cut',
            );
            res.destroy();
            return;
          }
          if (gone) return stopped();
          state = await sendNextPage();
          if (gone) return stopped();
          if (state === 'ended') {
            res.end(`]${envelope.after}`);
            return;
          }
        }
      } catch (err) {
        logger.warn({ path, items, err }, 'list stream failed after its first byte: connection cut');
        res.destroy();
      }
    } finally {
      await iterator.return?.();
    }
  };
}
