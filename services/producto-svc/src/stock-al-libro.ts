import { setTimeout as sleep } from 'node:timers/promises';
import { withDbErrors, type Knex, type Logger } from '@inventario/platform';
import type { LibroDeStock } from './grpc/libro-de-stock';

/** Products per transaction of the migration: each holds their row locks while bodega-svc records them. */
export const MIGRACION_POR_TANDA = 50;

/**
 * The migration of issue 23 (docs/contract.md §10.6): every product from before the ledger had its
 * units (`cantidad_en_stock`) recorded there once, for what its levels do not explain. It is done
 * product by product, each under its row lock: a PUT of cantidadEnStock meanwhile (which records a
 * count and marks the product migrated) waits, so the migration never adds the old figure on top
 * of a newer count. Idempotent twice over: `stock_migrado` says what is done here, and bodega-svc
 * records a product's MIGRACION at most once whatever is asked again. Answers how many products
 * it migrated in this run.
 */
export async function migrarStockAlLibro(
  db: Knex,
  libro: Pick<LibroDeStock, 'migrar'>,
  signal?: AbortSignal,
): Promise<number> {
  let migrados = 0;
  for (;;) {
    signal?.throwIfAborted();
    const tanda = await withDbErrors(() =>
      db.transaction(async (trx) => {
        const rows = await trx('productos')
          .where({ stock_migrado: false })
          .orderBy('id')
          .limit(MIGRACION_POR_TANDA)
          .forUpdate()
          .select<{ id: number; cantidad_en_stock: number; bodega_id: number | null }[]>(
            'id',
            'cantidad_en_stock',
            'bodega_id',
          );
        for (const r of rows) {
          if (r.cantidad_en_stock > 0)
            await libro.migrar(
              { id: r.id, bodegaId: r.bodega_id, cantidadEnStock: r.cantidad_en_stock },
              { usuario: 'system' },
            );
        }
        if (rows.length > 0)
          await trx('productos')
            .whereIn(
              'id',
              rows.map((r) => r.id),
            )
            .update({ stock_migrado: true });
        return rows.length;
      }),
    );
    migrados += tanda;
    if (tanda < MIGRACION_POR_TANDA) return migrados;
  }
}

/**
 * Runs the migration in the background until it completes, retrying after a failure (bodega-svc or the database away).
 */
export function startStockAlLibro(
  db: Knex,
  libro: Pick<LibroDeStock, 'migrar'>,
  logger: Logger,
): { stop(): Promise<void> } {
  const abort = new AbortController();
  const running = (async () => {
    for (let intento = 1; !abort.signal.aborted; intento++) {
      try {
        const migrados = await migrarStockAlLibro(db, libro, abort.signal);
        if (migrados > 0)
          logger.info({ migrados }, 'stock de productos anteriores al libro registrado en bodega-svc (MIGRACION)');
        return;
      } catch (err) {
        if (abort.signal.aborted) return;
        logger.warn({ err, intento }, 'migración del stock al libro interrumpida; se reintenta');
        await sleep(Math.min(60_000, 1000 * 2 ** Math.min(intento, 6)), undefined, { signal: abort.signal }).catch(
          () => undefined,
        );
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}
