import { boundedPrefix, PRODUCTO_SAMPLE_LIMITS } from '@inventario/platform';
import type { Producto } from './producto';

/**
 * What unassigning a warehouse's products reports (UnassignBodega, the
 * reconciliation's log line): a count of every product, and a bounded
 * sample of them, so neither the answer nor its idempotency record grows
 * with the warehouse (docs/contract.md §7.7).
 */
export interface UnassignReport {
  /**
   * The first unassigned products by id, as they are after the change,
   * within PRODUCTO_SAMPLE_LIMITS (100 products, 256 KiB of JSON).
   */
  productos: Producto[];
  /** How many products were unassigned, sample or not. */
  total: number;
  /** No product pointed at the warehouse any more when the last chunk ran. */
  complete: boolean;
}

export const EMPTY_REPORT: UnassignReport = { productos: [], total: 0, complete: false };

/** `report` with one more chunk of unassigned products. */
export function addToReport(report: UnassignReport, chunk: readonly Producto[], complete: boolean): UnassignReport {
  // Only the chunk's first maxItems can enter the sample: no need to sort the rest.
  const candidates = [...report.productos, ...chunk.slice(0, PRODUCTO_SAMPLE_LIMITS.maxItems)].sort(
    (a, b) => a.id - b.id,
  );
  return {
    productos: boundedPrefix(candidates, PRODUCTO_SAMPLE_LIMITS),
    total: report.total + chunk.length,
    complete,
  };
}
