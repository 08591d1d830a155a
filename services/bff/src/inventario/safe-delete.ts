import { randomUUID } from 'node:crypto';
import { boundedPrefix, FailedPreconditionError, NotFoundError, PRODUCTO_SAMPLE_LIMITS } from '@inventario/platform';
import type { BodegaDeleteResult, Producto } from '@inventario/contract';
import type { BodegaClient, ExistenciasRetiradas } from '../downstream/bodega-client';
import { BodegaConProductosError } from './errors';
import { conditional, failureUnder, type IfMatchDeps, requireIfMatch } from './if-match';
import type { Caller, WriteOptions } from './model';
import { type StockDeBodega, unionById } from './stock-de-bodega';

/**
 * Transactions per DeleteBodega call of a forced delete (each writes out at
 * most 500 levels; bodega-svc adds at most one chunk of its unassignment):
 * every call stays well inside its deadline whatever the warehouse holds.
 */
export const DELETE_CHUNKS_PER_CALL = 4;

export interface SafeDeleteDeps extends IfMatchDeps {
  bodegas: BodegaClient;
  stock: StockDeBodega;
}

/**
 * Safe delete (docs/contract.md §2.7, §10.2). The warehouse must exist
 * before any product is touched (NotFoundError), and match If-Match.
 * Without force, a warehouse holding products, assigned to it or with units
 * there, is refused with them counted and the first listed (also when
 * bodega-svc finds stock the check did not: BODEGA_CON_EXISTENCIAS).
 *
 * With force, bodega-svc first marks the warehouse as being deleted under
 * If-Match, in one transaction: nothing changes unless the version matches
 * then, and from then on its updates and stock writes are refused, so the
 * version still matches when the delete commits (issue 21, item 6). Only
 * then does bodega-svc unassign its products (they remain; it asks
 * producto-svc) and write its stock out and delete the warehouse, in
 * bounded transactions (item 7).
 * A product assigned meanwhile is unassigned by producto-svc when it sees
 * BodegaEliminada.
 *
 * With an idempotency key every step carries it, so a retry after any
 * failure completes what is left and replays what was done: the
 * unassignment returns the list it first returned, the delete its figures.
 * The warehouse is then already gone, so the existence check lets a
 * keyed request through to the services, which replay or answer 404.
 * Without one the progress is kept all the same (the mark, and the
 * figures with the warehouse): any later forced delete completes it.
 */
export async function safeDelete(
  deps: SafeDeleteDeps,
  caller: Caller,
  id: number,
  force: boolean,
  write: WriteOptions,
): Promise<BodegaDeleteResult> {
  const { bodegas, stock } = deps;
  const bodega = await bodegas.get(caller, id).catch((err: unknown) => {
    if (err instanceof NotFoundError && write.idempotencyKey !== undefined) return undefined;
    throw failureUnder(deps, write, err);
  });
  if (bodega) requireIfMatch(deps, bodega, write);
  if (force) {
    // The version checked where it is kept, before anything changes; it cannot change after.
    if (bodega) await conditional(deps, write, () => bodegas.marcarEliminacion(caller, id, write));
    // Read before the unassignment clears it; a retry that finds the warehouse gone learns it from the report.
    const stockAsignado = bodega ? await stock.stockAsignado(caller, id) : new Set<number>();
    const { existenciasRetiradas, unidadesRetiradas, desasignados } = await conditional(deps, write, () =>
      deleteAll(deps, caller, id, write),
    );
    const report = await forcedReport(deps, caller, id, {
      afectados: desasignados,
      stockAsignado,
      existenciasRetiradas,
    });
    return { kind: 'forced', bodegaId: id, ...report, existenciasRetiradas, unidadesRetiradas };
  }
  if (bodega) {
    const conflict = await conflictOf(deps, caller, id);
    if (conflict) throw conflict;
  }
  try {
    await conditional(deps, write, () => bodegas.delete(caller, id, write));
  } catch (err) {
    // Stock that arrived after the check: the same conflict, listed as it is now.
    if (err instanceof FailedPreconditionError && err.reason === 'BODEGA_CON_EXISTENCIAS')
      throw (await conflictOf(deps, caller, id)) ?? err;
    throw err;
  }
  return { kind: 'deleted' };
}

/**
 * bodega-svc unassigns the products (through producto-svc), writes the stock out and deletes the
 * warehouse, a few bounded steps per call, resuming where the last call stopped. All calls carry
 * one key (the request's, or one made here), so the unassignment's report covers them all. A call
 * replays (write.onReplay) only when its key's deletion had completed before it began.
 */
async function deleteAll(
  { bodegas }: Pick<SafeDeleteDeps, 'bodegas'>,
  caller: Caller,
  bodegaId: number,
  write: WriteOptions,
): Promise<ExistenciasRetiradas> {
  const keyed: WriteOptions = { ...write, idempotencyKey: write.idempotencyKey ?? `bff-${randomUUID()}` };
  for (;;) {
    const result = await bodegas.delete(caller, bodegaId, keyed, {
      retirarExistencias: true,
      desasignarProductos: true,
      maxChunks: DELETE_CHUNKS_PER_CALL,
    });
    if (!result.pendiente) return result;
  }
}

/**
 * A forced delete's report: every product it took out of the warehouse,
 * by its assignment (`afectados`) or its units (written out), counted
 * once. A product both assigned and stocked is known as such from before
 * the unassignment (`stockAsignado`) or from the unassignment's report;
 * the first ones of both, as they are afterwards, make the sample.
 */
async function forcedReport(
  { stock }: Pick<SafeDeleteDeps, 'stock'>,
  caller: Caller,
  bodegaId: number,
  {
    afectados,
    stockAsignado,
    existenciasRetiradas,
  }: {
    afectados: { productos: Producto[]; total: number };
    stockAsignado: ReadonlySet<number>;
    existenciasRetiradas: number;
  },
): Promise<{ productos: Producto[]; total: number }> {
  if (existenciasRetiradas === 0) return { productos: afectados.productos, total: afectados.total };
  const retirados = await stock.productosRetirados(caller, bodegaId, existenciasRetiradas);
  const desasignados = new Set(afectados.productos.map((p) => p.id));
  const soloRetirados = retirados.filter((id) => !stockAsignado.has(id) && !desasignados.has(id));
  const [otros, primeros] = await Promise.all([
    stock.countProductos(caller, soloRetirados),
    stock.productosPorIds(caller, retirados.slice(0, PRODUCTO_SAMPLE_LIMITS.maxItems)),
  ]);
  return {
    productos: boundedPrefix(unionById(afectados.productos, primeros), PRODUCTO_SAMPLE_LIMITS),
    total: afectados.total + otros,
  };
}

/** The safe delete's 409 for the warehouse: what holds it now, assigned or stocked. */
async function conflictOf(
  { stock }: Pick<SafeDeleteDeps, 'stock'>,
  caller: Caller,
  bodegaId: number,
): Promise<BodegaConProductosError | undefined> {
  const held = await stock.productosRetenidos(caller, bodegaId);
  return held.total > 0
    ? new BodegaConProductosError(bodegaId, held.productos, held.total, held.conExistencias)
    : undefined;
}
