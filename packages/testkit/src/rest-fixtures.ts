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

/**
 * GET /api/existencias/verificacion as a client following the contract does (§10.2): 409 `VERIFICACION_EN_CURSO`
 * means bodega-svc's first verification has not completed yet (on a loaded machine it can take longer than the
 * request's 2 s wait), so it asks again. Any other answer is returned for the test to judge.
 */
export async function verificarExistencias(stack: BffClient, timeoutMs = 60_000): Promise<StackResponse> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await stack.request('GET', '/api/existencias/verificacion');
    const enCurso =
      res.status === 409 && (res.body as { error?: string } | undefined)?.error === 'VERIFICACION_EN_CURSO';
    if (!enCurso || Date.now() > until) return res;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
