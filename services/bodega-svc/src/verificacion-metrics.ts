import { Counter, Gauge, type Registry } from 'prom-client';
import type { VerificacionesObserver } from './verificaciones';

/**
 * The stock verification's series (docs/operations.md): the differences of the last one that
 * completed, when that was, and how many could not complete. An alert watches the timestamp's age
 * (InventarioVerificacionExistenciasAtrasada), so a verification that keeps failing is seen.
 */
export function verificacionMetrics(registry: Registry): VerificacionesObserver {
  const diferencias = new Gauge({
    name: 'inventario_existencias_diferencias',
    help: 'Stock levels, occupancies and reservation checks that differ, at the last verification (0: consistent).',
    registers: [registry],
  });
  const ultimoExito = new Gauge({
    name: 'inventario_existencias_verificacion_ultimo_exito_timestamp_seconds',
    help: 'When the last stock verification that completed ended (Unix seconds); 0 until one has.',
    registers: [registry],
  });
  const fallos = new Counter({
    name: 'inventario_existencias_verificacion_fallos_total',
    help: 'Stock verifications that could not complete.',
    registers: [registry],
  });
  return {
    completada(v, fin) {
      diferencias.set(v.diferencias.length + (v.diferenciasReservas?.length ?? 0));
      ultimoExito.set(fin.getTime() / 1000);
    },
    fallida: () => fallos.inc(),
  };
}
