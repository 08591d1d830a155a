import type { StoredEvent } from '@inventario/testkit';
import type { StackResponse, TestStack } from '../support/stack';

export interface GraphqlRequestOptions {
  variables?: Record<string, unknown>;
  operationName?: string;
  /** Extra or overriding headers; Accept defaults to application/json, as the old service's clients send. */
  headers?: Record<string, string>;
  /** Default /api/graphql. */
  path?: string;
}

/** Whatever sends requests to a BFF as the test user: a TestStack, or a BareBff in front of other services. */
export type GraphqlTarget = Pick<TestStack, 'request'>;

/** POSTs one GraphQL operation to the stack's BFF as the test user. */
export function graphql(
  stack: GraphqlTarget,
  query: string,
  options: GraphqlRequestOptions = {},
): Promise<StackResponse> {
  const body: Record<string, unknown> = { query };
  if (options.variables !== undefined) body.variables = options.variables;
  if (options.operationName !== undefined) body.operationName = options.operationName;
  return stack.request('POST', options.path ?? '/api/graphql', {
    body,
    headers: { accept: 'application/json', ...options.headers },
  });
}

/** A Producto as GraphQL answers it (the fields a test selected). */
export interface ProductoGql {
  id: string;
  nombre: string;
  descripcion: string | null;
  precio: number;
  cantidad: number;
  fechaCreacion: string;
  fechaActualizacion: string;
  bodegaId: string | null;
  bodega: Partial<BodegaGql> | null;
}

/** A Bodega as GraphQL answers it (the fields a test selected). */
export interface BodegaGql {
  id: string;
  nombre: string;
  ubicacion: string;
  capacidad: number;
  fechaCreacion: string;
  fechaActualizacion: string;
  productos: Partial<ProductoGql>[];
}

/**
 * The `data` of a successful operation, typed by the caller (the shape its
 * query selects); fails the test with the errors otherwise.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export async function graphqlData<T = Record<string, any>>(
  stack: GraphqlTarget,
  query: string,
  options: GraphqlRequestOptions = {},
): Promise<T> {
  const response = await graphql(stack, query, options);
  if (response.status !== 200 || response.body?.errors !== undefined) {
    throw new Error(`GraphQL operation failed (${response.status}): ${response.text}`);
  }
  return response.body.data as T;
}

/** The events of the stream whose subject ends with one of `subjects` (e.g. `.producto.creado`) for `/productos/{id}`. */
export function eventsFor(events: StoredEvent[], recordSubject: string): StoredEvent[] {
  return events.filter((event) => event.body.subject === recordSubject);
}
