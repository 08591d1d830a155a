import { Counter, Histogram, type Registry } from 'prom-client';

/** What the ProductoCreado consumer reports of the initial stocks it records (producto-creado-consumer.ts). */
export interface StockInicialObserver {
  /**
   * A create's initial stock recorded from its event, because the create's own RegistrarStockInicial had not
   * recorded it. `retrasoSegundos`: from the product's creation (the event's eventTime) to that commit; undefined
   * for an event without an eventTime.
   */
  registradoDesdeEvento(retrasoSegundos: number | undefined): void;
}

/**
 * Step (4) of "a create whose initial stock was not recorded" (docs/decisions.md): every one the event records is
 * a create whose call failed, and its product showed 0 meanwhile. An alert watches the sustained rate
 * (InventarioStockInicialTardio): the create's call keeps failing.
 */
export function stockInicialMetrics(registry: Registry): StockInicialObserver {
  const desdeEvento = new Counter({
    name: 'inventario_stock_inicial_desde_evento_total',
    help: "Initial stocks of created products recorded from their ProductoCreado, the create's own call having failed.",
    registers: [registry],
  });
  const retraso = new Histogram({
    name: 'inventario_stock_inicial_desde_evento_retraso_seconds',
    help: "From a product's creation (its event's eventTime) to its initial stock recorded from the event, seconds.",
    buckets: [1, 5, 15, 60, 300, 900, 3600, 21600],
    registers: [registry],
  });
  return {
    registradoDesdeEvento(retrasoSegundos) {
      desdeEvento.inc();
      if (retrasoSegundos !== undefined) retraso.observe(retrasoSegundos);
    },
  };
}
