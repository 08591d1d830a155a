import type { Response } from 'express';
import type { Logger } from '@inventario/platform';
import type { ProductosJson } from '../inventario/model';

/** HTTP_WRITE_TIMEOUT_MS when not set. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

export interface JsonArraySenderDeps {
  /**
   * How long a write may wait for the client to take what was already sent
   * (HTTP_WRITE_TIMEOUT_MS). A client that reads nothing for that long is
   * cut off, so a reader that stalls holds one page for at most this long.
   */
  writeTimeoutMs: number;
  logger: Logger;
}

/**
 * Sends `pages` as one JSON array of `itemJson(item)` texts (see
 * createJsonArraySender); a page already in JSON (ProductosJson: texts
 * joined by commas) goes out as it is. With `envelope`, the array is the last member of
 * an object: `before` is its JSON text up to the array (`{"bodegaId":1,"existencias":`), `after` closes it.
 */
export type JsonArraySender = <T>(
  res: Response,
  pages: AsyncIterable<readonly T[] | ProductosJson>,
  itemJson: (item: T) => string,
  envelope?: { before: string; after: string },
) => Promise<void>;

/**
 * A page is written in pieces of about this many characters, so no string
 * reaches V8's large-object size (128 KiB, 64 Ki two-byte characters),
 * which only a full collection frees: a page of products with 60 KB
 * descriptions is up to 1 MiB of text (the services' byte budget).
 */
const PIECE_CHARS = 16 * 1024;

/** How a wait for the client to take a write ended. */
type Drain = 'drained' | 'closed' | 'timeout';

/** Resolves once `res` drained, closed (the client left), or `timeoutMs` passed without either. */
function drained(res: Response, timeoutMs: number): Promise<Drain> {
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
 * The REST full lists (docs/contract.md §2.1): one JSON array of every row,
 * the same bytes one stringify of the whole list wrote, but sent a
 * downstream page at a time so the BFF holds one page per request, never
 * the list.
 *
 * - The first page is read, and turned into JSON, before anything is sent:
 *   a failure then is thrown, and answered like any other (a JSON error
 *   with its status).
 * - Each page is written as one batch. While the client has not taken it ('drain'),
 *   the next page is not read (backpressure); if it takes nothing for
 *   `writeTimeoutMs`, its connection is destroyed.
 * - A client that goes away stops the reading: no further page is fetched.
 * - A failure after the first byte cannot change the 200 already sent, so
 *   the connection is destroyed before the chunked body's last chunk: the
 *   client sees a truncated response (curl: "transfer closed with outstanding
 *   read data remaining"; fetch: "terminated"), never a complete one.
 * - HEAD gets the headers once the first page was read, and no more reading.
 */
export function createJsonArraySender({ writeTimeoutMs, logger }: JsonArraySenderDeps): JsonArraySender {
  return async <T>(res: Response, pages: AsyncIterable<readonly T[] | ProductosJson>, itemJson: (item: T) => string, envelope = { before: '', after: '' }) => {
    let gone = false;
    res.once('close', () => (gone = true));
    const path = res.req.originalUrl.split('?', 1)[0];
    let items = 0;
    const iterator = pages[Symbol.asyncIterator]();

    /** The next page's JSON in pieces of about PIECE_CHARS (or as the service wrote it), or undefined at the end of the list. */
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

    /** Writes `pieces` as one batch; true when the socket's buffer is full (wait for 'drain' before more). */
    const write = (pieces: readonly (string | Uint8Array)[]): boolean => {
      let full = false;
      res.cork();
      for (const piece of pieces) full = !res.write(piece);
      res.uncork();
      return full;
    };

    /**
     * Reads the next page and writes it. Its own frame holds the page, so
     * nothing keeps it once written (see pagesOf in inventario/paging.ts).
     */
    const sendNextPage = async (): Promise<'ended' | 'sent' | 'full'> => {
      const pieces = await nextPieces();
      if (gone) return 'sent';
      if (pieces === undefined) return 'ended';
      return write(pieces) ? 'full' : 'sent';
    };

    const stopped = () => logger.debug({ path, items }, 'list stream: the client left, reading stopped');

    try {
      // Before the first byte: a failure here is thrown to the error middleware, which answers it with its status.
      let opening: (string | Uint8Array)[] | undefined = [`${envelope.before}[`, ...((await nextPieces()) ?? [])];
      if (gone) return stopped();
      res.status(200).type('application/json');
      if (res.req.method === 'HEAD') {
        res.end();
        return;
      }
      // From here on the 200 is sent: a failure can only cut the connection.
      try {
        let state: 'ended' | 'sent' | 'full' = write(opening) ? 'full' : 'sent';
        opening = undefined;
        for (;;) {
          if (state === 'full' && (await drained(res, writeTimeoutMs)) === 'timeout') {
            logger.warn({ path, items, writeTimeoutMs }, 'list stream: the client took nothing in time, connection cut');
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
      // Ends the reading where it stopped (a no-op once the list was read to its end).
      await iterator.return?.();
    }
  };
}
