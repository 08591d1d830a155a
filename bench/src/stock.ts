import { forEachLimited, requestJson } from './http-client';
import type { Seed } from './seed';

/** Seeded products stocked in every seeded warehouse: the levels the stock targets move units between. */
export const STOCKED_PRODUCTOS = 50;
/** Units of each stocked level. */
export const STOCK_UNITS = 1_000_000;
/**
 * The seeded warehouses' capacity while the stock targets run: twice what
 * they hold. Every movement and transfer leg moves one unit, so no level
 * comes near 0 and no warehouse near its capacity within a run (a few
 * tens of thousands of writes spread over 500 levels): the targets never
 * meet a 409 and measure the write, not a refusal.
 */
export const STOCK_CAPACIDAD = 2 * STOCKED_PRODUCTOS * STOCK_UNITS;

/** The stocked products: the first seeded ones (the PUT targets update the last ones). */
export function stockedProductoIds(seed: Seed): number[] {
  return seed.productoIds.slice(0, STOCKED_PRODUCTOS);
}

/**
 * Issue 23's stock exit: SALIDAs of 1 over this many products of ONE
 * warehouse (the first seeded one), the busy distribution centre. They are
 * the first seeded products, STOCK_UNITS each there; that warehouse's
 * capacity is raised to twice what it then holds.
 */
export const SALIDA_PRODUCTOS = 200;
export const SALIDA_CAPACIDAD = 2 * SALIDA_PRODUCTOS * STOCK_UNITS;

export function salidaProductoIds(seed: Seed): number[] {
  return seed.productoIds.slice(0, SALIDA_PRODUCTOS);
}

/**
 * Prepares the stock targets through the public REST API, once per run:
 * raises every seeded warehouse's capacity to STOCK_CAPACIDAD (PUT
 * /api/bodegas/{id}), then assigns STOCK_UNITS of each stocked product in
 * every seeded warehouse (POST /api/bodegas/{id}/productos, the older
 * gateway's call; 16 requests in flight); and SALIDA_PRODUCTOS products in
 * the first warehouse, whose capacity becomes SALIDA_CAPACIDAD.
 */
export async function seedStock(baseUrl: string, auth: string, seed: Seed): Promise<void> {
  for (const id of seed.bodegaIds) {
    const capacidad = id === seed.bodegaIds[0] ? SALIDA_CAPACIDAD : STOCK_CAPACIDAD;
    const res = await requestJson(baseUrl, auth, 'PUT', `/api/bodegas/${id}`, { capacidad });
    if (res.status !== 200)
      throw new Error(`raising warehouse ${id}'s capacity answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  const stocked = stockedProductoIds(seed);
  const levels = [
    ...seed.bodegaIds.flatMap((bodegaId) => stocked.map((productoId) => ({ bodegaId, productoId }))),
    // Issue 23: the exits' products in the first warehouse (the first STOCKED_PRODUCTOS are there already).
    ...salidaProductoIds(seed)
      .slice(stocked.length)
      .map((productoId) => ({ bodegaId: seed.bodegaIds[0]!, productoId })),
  ];
  await forEachLimited(levels, 16, async ({ bodegaId, productoId }) => {
    // A product seeded with units in this warehouse has its level already: setting it needs its version (contract
    // §10.2).
    const nivel = await requestJson(baseUrl, auth, 'GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`);
    const ifMatch: Record<string, string> =
      nivel.status === 200 ? { 'if-match': `"${(nivel.body as { version: number }).version}"` } : {};
    const res = await requestJson(
      baseUrl,
      auth,
      'POST',
      `/api/bodegas/${bodegaId}/productos`,
      { productoId, cantidad: STOCK_UNITS },
      ifMatch,
    );
    if (res.status !== 200)
      throw new Error(
        `assigning product ${productoId} to warehouse ${bodegaId} answered ${res.status}: ${JSON.stringify(res.body)}`,
      );
  });
}

/** What GET /api/existencias/verificacion answered at the end of the run. */
export interface StockVerification {
  /** HTTP status; anything but 200 leaves the other fields at their empty values. */
  status: number;
  consistente: boolean;
  /** Differences reported (the endpoint lists at most 1000). */
  diferencias: number;
  /** The first few differences as JSON, to show in the results. */
  muestra: string;
  nivelesVerificados: number;
  bodegasVerificadas: number;
}

interface VerificacionBody {
  consistente?: unknown;
  diferencias?: unknown;
  nivelesVerificados?: unknown;
  bodegasVerificadas?: unknown;
}

/**
 * Asks bodega-svc (through the BFF) to recompute every level and occupancy
 * from the ledger (docs/contract.md §10.2). Anything but a 200 with
 * `consistente: true` is reported as not consistent, not thrown: the
 * results judge it.
 */
export async function verifyStock(baseUrl: string, auth: string): Promise<StockVerification> {
  const res = await requestJson(baseUrl, auth, 'GET', '/api/existencias/verificacion');
  const body = (res.status === 200 ? res.body : undefined) as VerificacionBody | undefined;
  const diferencias = Array.isArray(body?.diferencias) ? body.diferencias : [];
  return {
    status: res.status,
    consistente: body?.consistente === true,
    diferencias: diferencias.length,
    muestra:
      res.status === 200 ? JSON.stringify(diferencias.slice(0, 3)) : JSON.stringify(res.body ?? null).slice(0, 300),
    nivelesVerificados: Number(body?.nivelesVerificados ?? Number.NaN),
    bodegasVerificadas: Number(body?.bodegasVerificadas ?? Number.NaN),
  };
}
