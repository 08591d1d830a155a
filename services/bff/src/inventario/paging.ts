import { encodePageToken } from '@inventario/platform';

/**
 * Reading the services' lists: keyset pages followed by token, fetched only
 * when the consumer asks, so a consumer that stops stops the reading.
 */

/** The services' largest page, and the most ids one list filter may name. */
export const PAGE_SIZE = 1000;

/**
 * The page of a streamed list (the REST full lists but the products',
 * which read full pages already in JSON since issue 14: productoJsonPages
 * in inventario.ts). Each page is one run
 * of the event loop (decode, JSON, write): 250 rows keep it to a few
 * milliseconds, so lists streamed at once interleave finely with every
 * other request, and what one request holds stays small. Measured with 4
 * lists of 100,000 products at once: liveness p99 about half of what
 * 1000-row pages gave, for 4 times the downstream calls and about 1.3
 * times the time of a whole list.
 */
export const STREAM_PAGE_SIZE = 250;

/** The services' page token of a list that continues after `afterId` (their tokens are keyset cursors on the id). */
export function tokenAfter(afterId: number | undefined): string | undefined {
  return afterId === undefined ? undefined : encodePageToken(afterId);
}

/** One page of a downstream list: its items and the token of the next ('' on the last). */
export interface DownstreamPage<T> {
  items: T[];
  nextPageToken: string;
}

/**
 * A list read one downstream page at a time, following next-page tokens
 * from the one that starts after `afterId`, until `wanted` items were read
 * or the list ends. A page is fetched only when the consumer asks for it,
 * so a consumer that stops (a client gone) stops the reading too. Pages may
 * be short (the services end a page at a byte budget), never empty but the
 * last.
 */
export function pagesOf<T>(
  wanted: number,
  fetchPage: (pageSize: number, pageToken: string | undefined) => Promise<DownstreamPage<T>>,
  options: { afterId?: number; pageSize?: number } = {},
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

/**
 * pagesOf for pages of any form (a page of products already in JSON is one
 * value standing for `count` items).
 *
 * Written as a plain iterator, not an async generator: a suspended
 * generator keeps its finished page in a register while it fetches the
 * next one, and at a stream's pace that page lived long enough to be
 * promoted to the old generation, one dead page per request between full
 * collections. Here only the token and a count outlive a call.
 */
export function counted<P>(
  wanted: number,
  fetchPage: (pageSize: number, pageToken: string | undefined) => Promise<{ page: P; count: number; nextPageToken: string }>,
  { afterId, pageSize = PAGE_SIZE }: { afterId?: number; pageSize?: number } = {},
): AsyncIterable<P> {
  return {
    [Symbol.asyncIterator]() {
      let read = 0;
      let pageToken = tokenAfter(afterId);
      let ended = wanted <= 0;
      return {
        async next(): Promise<IteratorResult<P>> {
          if (ended) return { done: true, value: undefined };
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

/**
 * `pages`, after `check` passed: it runs when the first page is asked for,
 * so its failure is the list's (before any byte of a streamed answer).
 */
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

/** Every item of `pages`, in order (lists whose size a caller bounds: GraphQL's first, the services' filters). */
export async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

/** Splits ids into lists the services accept in one filter. */
export function chunks(ids: readonly number[]): number[][] {
  const unique = [...new Set(ids)];
  const out: number[][] = [];
  for (let i = 0; i < unique.length; i += PAGE_SIZE) out.push(unique.slice(i, i + PAGE_SIZE));
  return out;
}

/**
 * Two lists in ascending id order read as one, a page at a time: each page
 * holds every item of either list up to the lower of the two last ids held,
 * so no later page can hold a smaller id. `combine` gets the item of each
 * list with one id (either may be absent) and answers the merged item, or
 * undefined to leave the id out. Each list is read only as far as the
 * merge needs; stopping the iteration stops both.
 */
export function mergeById<A, B, T>(
  left: AsyncIterable<A[]>,
  right: AsyncIterable<B[]>,
  idOf: { left: (item: A) => number; right: (item: B) => number },
  combine: (a: A | undefined, b: B | undefined) => T | undefined,
): AsyncIterable<T[]> {
  return {
    [Symbol.asyncIterator]() {
      const sides = [left[Symbol.asyncIterator](), right[Symbol.asyncIterator]()] as const;
      let a: A[] = [];
      let b: B[] = [];
      let endedA = false;
      let endedB = false;
      /** Reads pages of one side until it holds an item or ends. */
      const fill = async <X>(held: X[], iterator: AsyncIterator<X[]>): Promise<{ held: X[]; ended: boolean }> => {
        while (held.length === 0) {
          const result = await iterator.next();
          if (result.done) return { held, ended: true };
          held = result.value;
        }
        return { held, ended: false };
      };
      return {
        async next(): Promise<IteratorResult<T[]>> {
          const [fa, fb] = await Promise.all([
            endedA || a.length > 0 ? { held: a, ended: endedA } : fill(a, sides[0]),
            endedB || b.length > 0 ? { held: b, ended: endedB } : fill(b, sides[1]),
          ]);
          [a, endedA, b, endedB] = [fa.held, fa.ended, fb.held, fb.ended];
          if (a.length === 0 && b.length === 0) return { done: true, value: undefined };
          // Up to the lower last id, or all that is held once the other list ended.
          const lastA = a.length > 0 ? idOf.left(a[a.length - 1]!) : -Infinity;
          const lastB = b.length > 0 ? idOf.right(b[b.length - 1]!) : -Infinity;
          const bound = endedA ? (endedB ? Infinity : lastB) : endedB ? lastA : Math.min(lastA, lastB);
          const page: T[] = [];
          let i = 0;
          let j = 0;
          while ((i < a.length && idOf.left(a[i]!) <= bound) || (j < b.length && idOf.right(b[j]!) <= bound)) {
            const idA = i < a.length && idOf.left(a[i]!) <= bound ? idOf.left(a[i]!) : Infinity;
            const idB = j < b.length && idOf.right(b[j]!) <= bound ? idOf.right(b[j]!) : Infinity;
            const merged = combine(idA <= idB ? a[i] : undefined, idB <= idA ? b[j] : undefined);
            if (idA <= idB) i++;
            if (idB <= idA) j++;
            if (merged !== undefined) page.push(merged);
          }
          a = a.slice(i);
          b = b.slice(j);
          return { done: false, value: page };
        },
        async return(): Promise<IteratorResult<T[]>> {
          endedA = endedB = true;
          a = [];
          b = [];
          await Promise.all(sides.map((side) => side.return?.() ?? Promise.resolve()));
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/** `pages` with each page turned by `map` (e.g. joined with another service's records) when it is read. */
export function mapPages<S, T>(pages: AsyncIterable<S[]>, map: (page: S[]) => Promise<T[]>): AsyncIterable<T[]> {
  return {
    [Symbol.asyncIterator]() {
      const inner = pages[Symbol.asyncIterator]();
      return {
        async next(): Promise<IteratorResult<T[]>> {
          const result = await inner.next();
          return result.done ? { done: true, value: undefined } : { done: false, value: await map(result.value) };
        },
        async return(): Promise<IteratorResult<T[]>> {
          await inner.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
