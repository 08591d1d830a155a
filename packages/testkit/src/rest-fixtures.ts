/** Resources created through the REST API for tests; each fails the test if the API refuses. */
import type { StackRequestOptions, StackResponse } from './http-request';

/** What sends a request to a BFF as its user: the in-process stack (./stack), a fault test's process stack. */
export interface BffClient {
  request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse>;
}

let counter = 0;

/** A name no other test of the run uses. */
export function uniqueNombre(prefix: string): string {
  counter += 1;
  return `${prefix} ${Date.now().toString(36)}-${counter}`;
}

/** Creates a warehouse; returns its id. */
export async function crearBodega(stack: BffClient, body: Record<string, unknown> = {}): Promise<number> {
  const res = await stack.request('POST', '/api/bodegas', {
    body: { nombre: uniqueNombre('Bodega'), ubicacion: 'Madrid', capacidad: 100, ...body },
  });
  if (res.status !== 201) throw new Error(`POST /api/bodegas answered ${res.status}: ${res.text}`);
  return (res.body as { id: number }).id;
}

/** A product as REST answers it. */
export interface ProductoRest {
  id: number;
  nombre: string;
  descripcion: string | null;
  precio: number;
  cantidadEnStock: number;
  bodegaId: number | null;
  fechaCreacion: string;
  fechaActualizacion: string;
  version: number;
}

/** Creates a product; returns its REST body. */
export async function crearProducto(stack: BffClient, body: Record<string, unknown> = {}): Promise<ProductoRest> {
  const res = await stack.request('POST', '/api/productos', {
    body: { nombre: uniqueNombre('Producto'), precio: 10.5, cantidadEnStock: 3, ...body },
  });
  if (res.status !== 201) throw new Error(`POST /api/productos answered ${res.status}: ${res.text}`);
  return res.body as ProductoRest;
}
