import { forEachLimited, idOf, requestJson } from './http-client';
import { pick } from './stats';

/** What the seed created: the ids the targets pick from. */
export interface Seed {
  bodegaIds: number[];
  productoIds: number[];
  /** The highest product id the seed created; rows above it came from POST windows. */
  maxProductoId: number;
}

/** A product body like a client's: a name, a price with two decimals, stock, a warehouse. */
export function productoBody(label: string, bodegaIds: readonly number[]) {
  const cents = 100 + Math.floor(Math.random() * 99_900);
  return {
    nombre: `${label} ${Math.random().toString(36).slice(2, 10)}`,
    descripcion: 'Producto creado por el banco de pruebas de rendimiento',
    precio: Number((cents / 100).toFixed(2)),
    cantidadEnStock: Math.floor(Math.random() * 500),
    bodegaId: pick(bodegaIds),
  };
}

/**
 * Seeds through the public REST API, as a client would: `bodegas`
 * warehouses, then `productos` products spread over them (16 requests in
 * flight). Names carry `label`, so a run against a shared stack can be told apart.
 */
export async function seed(
  baseUrl: string,
  auth: string,
  label: string,
  bodegas: number,
  productos: number,
): Promise<Seed> {
  const bodegaIds: number[] = [];
  for (let i = 0; i < bodegas; i++) {
    const res = await requestJson(baseUrl, auth, 'POST', '/api/bodegas', {
      nombre: `${label} bodega ${i + 1}`,
      ubicacion: `Pasillo ${i + 1}`,
      capacidad: 100_000,
    });
    if (res.status !== 201) throw new Error(`seeding a warehouse answered ${res.status}: ${JSON.stringify(res.body)}`);
    bodegaIds.push(idOf(res.body));
  }
  const productoIds: number[] = [];
  await forEachLimited(
    Array.from({ length: productos }, (_, i) => i),
    16,
    async () => {
      const res = await requestJson(baseUrl, auth, 'POST', '/api/productos', productoBody(label, bodegaIds));
      if (res.status !== 201) throw new Error(`seeding a product answered ${res.status}: ${JSON.stringify(res.body)}`);
      productoIds.push(idOf(res.body));
    },
  );
  productoIds.sort((a, b) => a - b);
  return { bodegaIds, productoIds, maxProductoId: productoIds[productoIds.length - 1] ?? 0 };
}
