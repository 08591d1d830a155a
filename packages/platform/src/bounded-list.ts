/**
 * Lists of records that a response or a record of ours carries beside a
 * count (the products a warehouse deletion unassigned, or the ones that keep
 * it from being deleted): bounded in items and in bytes, so one warehouse
 * holding thousands of products, or products with 64 KiB descriptions,
 * cannot make one answer or one statement grow without limit.
 */

export interface ListLimits {
  /** At most this many items. */
  maxItems: number;
  /** Their sizes (as `sizeOf` measures them) add up to at most this. */
  maxBytes: number;
}

/**
 * The bound of a listed sample of products (REST 409 `productos`, the forced
 * delete's `detalleProductos`, UnassignBodegaResponse.productos): 100
 * products, 256 KiB of their JSON.
 */
export const PRODUCTO_SAMPLE_LIMITS: ListLimits = { maxItems: 100, maxBytes: 256 * 1024 };

/** UTF-8 bytes of a value's JSON: the size measure of the samples. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * The longest prefix of `items` within `limits`. A prefix, not a selection:
 * the items kept are the first ones, in the caller's order, so "the first N
 * by id" stays true when the byte budget ends the list early.
 */
export function boundedPrefix<T>(items: readonly T[], limits: ListLimits, sizeOf: (item: T) => number = jsonBytes): T[] {
  const out: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (out.length >= limits.maxItems) break;
    bytes += sizeOf(item);
    if (bytes > limits.maxBytes) break;
    out.push(item);
  }
  return out;
}
