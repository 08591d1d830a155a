import type { Caller, InventarioApi, Movimiento } from '../inventario/model';

/**
 * The sample ledger (docs/contract.md §10): stock levels in the three sample warehouses, and a few
 * operations that show the book at work: an entry, a sale that leaves a level under its threshold
 * (a StockBajo, so a "Stock Bajo" email), a transfer and a sale reversed. Written through
 * InventarioApi like any stock write, so every rule applies and every event is published.
 *
 * Each step is written once: a level only where its warehouse has never had a line of that product,
 * an operation only where no line of its product carries its comentario (every sample operation has
 * its own). So a second run writes nothing, a run cut short completes what is missing, and a sample
 * product that was deleted and created again gets its levels and operations again.
 */

export interface NivelEjemplo {
  producto: string;
  bodega: string;
  cantidad: number;
  umbralMinimo?: number;
}

export type OperacionEjemplo =
  | { tipo: 'ENTRADA' | 'SALIDA'; producto: string; bodega: string; cantidad: number; comentario: string }
  | { tipo: 'TRANSFERENCIA'; producto: string; origen: string; destino: string; cantidad: number; comentario: string }
  /** Reverses the sample operation whose comentario is `de`. */
  | { tipo: 'REVERSO'; producto: string; de: string; comentario: string };

export const NIVELES_EJEMPLO: readonly NivelEjemplo[] = [
  { producto: 'Tornillo hexagonal M6', bodega: 'Bodega Central', cantidad: 120, umbralMinimo: 20 },
  { producto: 'Martillo de carpintero', bodega: 'Bodega Central', cantidad: 35, umbralMinimo: 10 },
  { producto: 'Taladro percutor 750 W', bodega: 'Bodega Central', cantidad: 12, umbralMinimo: 3 },
  { producto: 'Destornillador de precisión', bodega: 'Almacén Norte', cantidad: 60 },
  { producto: 'Cinta métrica 5 m', bodega: 'Almacén Norte', cantidad: 80, umbralMinimo: 15 },
  { producto: 'Guantes de trabajo', bodega: 'Depósito Sur', cantidad: 200, umbralMinimo: 50 },
  { producto: 'Llave inglesa 250 mm', bodega: 'Depósito Sur', cantidad: 40, umbralMinimo: 8 },
];

export const OPERACIONES_EJEMPLO: readonly OperacionEjemplo[] = [
  {
    tipo: 'ENTRADA',
    producto: 'Tornillo hexagonal M6',
    bodega: 'Bodega Central',
    cantidad: 100,
    comentario: 'Ejemplo: albarán A-118',
  },
  // 35 - 28 = 7, at or below its threshold of 10: the level is low.
  {
    tipo: 'SALIDA',
    producto: 'Martillo de carpintero',
    bodega: 'Bodega Central',
    cantidad: 28,
    comentario: 'Ejemplo: pedido 8812',
  },
  {
    tipo: 'TRANSFERENCIA',
    producto: 'Tornillo hexagonal M6',
    origen: 'Bodega Central',
    destino: 'Almacén Norte',
    cantidad: 40,
    comentario: 'Ejemplo: reposición del Almacén Norte',
  },
  {
    tipo: 'SALIDA',
    producto: 'Guantes de trabajo',
    bodega: 'Depósito Sur',
    cantidad: 30,
    comentario: 'Ejemplo: pedido 8813',
  },
  {
    tipo: 'REVERSO',
    producto: 'Guantes de trabajo',
    de: 'Ejemplo: pedido 8813',
    comentario: 'Ejemplo: pedido 8813 anulado',
  },
];

/** Ids by name, as the database compares names (`clave` of seed.ts). */
export interface IdsEjemplo {
  producto(nombre: string): number | undefined;
  bodega(nombre: string): number | undefined;
}

/** Every line of one product, newest first (the sample products have a few dozen at most). */
async function lineasDe(
  inventario: InventarioApi,
  caller: Caller,
  productoId: number,
  bodegaId?: number,
): Promise<Movimiento[]> {
  const lineas: Movimiento[] = [];
  let cursor: string | undefined;
  do {
    const page = await inventario.listMovimientos(
      caller,
      { productoId, ...(bodegaId === undefined ? {} : { bodegaId }) },
      { limit: 1000, cursor },
    );
    lineas.push(...page.items);
    cursor = page.siguienteCursor ?? undefined;
  } while (cursor);
  return lineas;
}

/**
 * Writes what is missing of the sample ledger; answers how many operations it wrote. Samples whose records are missing
 * are left out.
 */
export async function seedLibro(inventario: InventarioApi, caller: Caller, ids: IdsEjemplo): Promise<number> {
  let escritas = 0;
  for (const nivel of NIVELES_EJEMPLO) {
    const [productoId, bodegaId] = [ids.producto(nivel.producto), ids.bodega(nivel.bodega)];
    if (productoId === undefined || bodegaId === undefined) continue;
    if ((await lineasDe(inventario, caller, productoId, bodegaId)).length > 0) continue;
    const umbral = nivel.umbralMinimo === undefined ? {} : { umbralMinimo: nivel.umbralMinimo };
    await inventario.asignarExistencia(caller, bodegaId, { productoId, cantidad: nivel.cantidad, ...umbral });
    escritas++;
  }
  for (const op of OPERACIONES_EJEMPLO) {
    const productoId = ids.producto(op.producto);
    if (productoId === undefined) continue;
    const lineas = await lineasDe(inventario, caller, productoId);
    if (lineas.some((l) => l.comentario === op.comentario)) continue;
    const { comentario } = op;
    if (op.tipo === 'REVERSO') {
      const original = lineas.find((l) => l.comentario === op.de);
      if (!original) continue;
      await inventario.revertirOperacion(caller, original.operacionId, { comentario });
    } else if (op.tipo === 'TRANSFERENCIA') {
      const [origenId, destinoId] = [ids.bodega(op.origen), ids.bodega(op.destino)];
      if (origenId === undefined || destinoId === undefined) continue;
      await inventario.transferir(caller, { productoId, origenId, destinoId, cantidad: op.cantidad, comentario });
    } else {
      const bodegaId = ids.bodega(op.bodega);
      if (bodegaId === undefined) continue;
      await inventario.registrarMovimiento(caller, bodegaId, {
        productoId,
        tipo: op.tipo,
        cantidad: op.cantidad,
        comentario,
      });
    }
    escritas++;
  }
  return escritas;
}
