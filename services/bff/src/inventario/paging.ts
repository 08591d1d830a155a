import { encodePageToken } from '@inventario/platform';

/**
 * Reading the services' lists: keyset pages followed by token, fetched only when the consumer asks,
 * so a consumer that stops (a client gone) stops the reading.
 */

/** The services' largest page, and the most ids one list filter may name. */
export const PAGE_SIZE = 1000;

/**
 * A streamed page is one run of the event loop: 250 rows keep it to a few milliseconds, so streamed
 * lists interleave with other requests (4 lists of 100,000 at once: liveness p99 half of what
 * 1000-row pages gave). The products' list reads full pages already in JSON instead.
 */
export const STREAM_PAGE_SIZE = 250;

function tokenAfter(afterId: number | undefined): string | undefined {
  return afterId === undefined ? undefined : encodePageToken(afterId);
}

/** `nextPageToken` is '' on the last page. */
export interface DownstreamPage<T> {
  items: T[];
  nextPageToken: string;
}

/** Pages may be short (the services end a page at a byte budget), even empty before the last (a merged list). */
export function pagesOf<T>(
  wanted: number,
  fetchPage: (pageSize: number, pageToken: string | undefined) => Promise<DownstreamPage<T>>,
  options: PagingOptions = {},
): AsyncIterable<T[]> {
  return counted(
    wanted,
    async (pageSize, pageToken) => {
      const { items, nextPageToken } = await fetchPage(pageSize, pageToken);
      return { page: items, count: items.length, nextPageToken };
    },
    options,
  );
}

export interface PagingOptions {
  afterId?: number;
  pageSize?: number;
  /** Aborted: the next page is not read, and the iteration rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * pagesOf for pages of any form (a page already in JSON stands for `count` items). A plain
 * iterator, not an async generator: a suspended generator keeps its last page alive while it
 * fetches the next, long enough to promote it to the old generation.
 */
export function counted<P>(
  wanted: number,
  fetchPage: (
    pageSize: number,
    pageToken: string | undefined,
  ) => Promise<{ page: P; count: number; nextPageToken: string }>,
  { afterId, pageSize = PAGE_SIZE, signal }: PagingOptions = {},
): AsyncIterable<P> {
  return {
    [Symbol.asyncIterator]() {
      let read = 0;
      let pageToken = tokenAfter(afterId);
      let ended = wanted <= 0;
      return {
        async next(): Promise<IteratorResult<P>> {
          if (ended) return { done: true, value: undefined };
          signal?.throwIfAborted();
          const { page, count, nextPageToken } = await fetchPage(Math.min(pageSize, wanted - read), pageToken);
          read += count;
          ended = nextPageToken === '' || read >= wanted;
          pageToken = nextPageToken;
          return { done: false, value: page };
        },
        return(): Promise<IteratorResult<P>> {
          ended = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}

/** `check` runs when the first page is asked for, so its failure comes before any byte of a streamed answer. */
export function pagesAfter<T>(check: () => Promise<unknown>, pages: AsyncIterable<T[]>): AsyncIterable<T[]> {
  return {
    [Symbol.asyncIterator]() {
      const inner = pages[Symbol.asyncIterator]();
      let checked = false;
      return {
        async next() {
          if (!checked) {
            await check();
            checked = true;
          }
          return inner.next();
        },
        return: () => inner.return?.() ?? Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}

/** Only for lists whose size a caller bounds. */
export async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

export function chunks(ids: readonly number[]): number[][] {
  const unique = [...new Set(ids)];
  const out: number[][] = [];
  for (let i = 0; i < unique.length; i += PAGE_SIZE) out.push(unique.slice(i, i + PAGE_SIZE));
  return out;
}

/**
 * A batch read chunk after chunk (see chunks), each bounded by what `maxTotal` leaves: the bound is
 * the batch's, not each chunk's (a request's node cap).
 */
export async function readInChunks<T>(
  ids: readonly number[],
  maxTotal: number | undefined,
  read: (chunk: number[], maxTotal: number) => Promise<T[]>,
): Promise<T[]> {
  const out: T[] = [];
  const bound = maxTotal ?? Infinity;
  for (const chunk of chunks(ids)) {
    if (out.length >= bound) break;
    out.push(...(await read(chunk, bound - out.length)));
  }
  return out;
}
