/**
 * Lists carried beside a count (products a warehouse deletion unassigned or
 * that block it) are bounded in items and bytes, so a warehouse with
 * thousands of products cannot make one answer or statement grow without limit.
 */

export interface ListLimits {
  maxItems: number;
  /** Sum of `sizeOf` over the items kept. */
  maxBytes: number;
}

/** REST 409 `productos`, the forced delete's `detalleProductos`, UnassignBodegaResponse.productos. */
export const PRODUCTO_SAMPLE_LIMITS: ListLimits = { maxItems: 100, maxBytes: 256 * 1024 };

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** A prefix, not a selection, so "the first N by id" stays true when the byte budget ends the list early. */
export function boundedPrefix<T>(
  items: readonly T[],
  limits: ListLimits,
  sizeOf: (item: T) => number = jsonBytes,
): T[] {
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
