/**
 * Whether `test` holds for every item, with at most `limit` tests in flight at once. Once one answers false or
 * throws, the answer is decided and no further test starts; it settles when those already in flight have: false,
 * or the first error thrown.
 */
export async function everyWithLimit<T>(
  items: readonly T[],
  limit: number,
  test: (item: T) => Promise<boolean>,
): Promise<boolean> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  let next = 0;
  let decided = false;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (!decided && next < items.length) {
      const item = items[next++] as T;
      try {
        if (!(await test(item))) decided = true;
      } catch (err) {
        failure ??= { err };
        decided = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
  return !decided;
}
