/** Small statistics over raw samples, so sub-millisecond latencies keep their precision. */

/** The q-quantile (0..1) of `values` by nearest rank; NaN when empty. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The median of `values` (mean of the middle two when even); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A random element of a non-empty list. */
export function pick<T>(list: readonly T[]): T {
  return list[Math.floor(Math.random() * list.length)] as T;
}

/** Two distinct random elements of a list of at least two (uniform over ordered pairs). */
export function pickTwo<T>(list: readonly T[]): [T, T] {
  const i = Math.floor(Math.random() * list.length);
  const j = (i + 1 + Math.floor(Math.random() * (list.length - 1))) % list.length;
  return [list[i] as T, list[j] as T];
}
