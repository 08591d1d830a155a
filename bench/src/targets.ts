import type { RequestShape } from './load';
import { productoBody, type Seed } from './seed';
import { pick } from './stats';
import type { Stack } from './stack';

/** One measured target: where autocannon sends what. */
export interface Target {
  key: TargetKey;
  label: string;
  url: string;
  request: RequestShape;
  /** A write target: its rows are trimmed and its events drained after each window. */
  writes?: boolean;
}

/** Every target, as `--only` names them. */
export const TARGET_KEYS = ['bdb', 'restGetById', 'restList', 'restPost', 'gqlProducto', 'gqlProductos'] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];

/** The fields of the REST product, in GraphQL's names: both targets answer the same record. */
const PRODUCTO_QUERY =
  'query Producto($id: ID!) { producto(id: $id) { id nombre descripcion precio cantidad bodegaId fechaCreacion fechaActualizacion } }';
const PRODUCTOS_QUERY = 'query Productos { productos { id nombre } }';

/** A GraphQL answer is 200 even when it failed (ARCHITECTURE §3): only a body without `errors` is a success. */
const graphqlSucceeded = (body: string) => !body.includes('"errors"');

/**
 * The targets, B_db first. Reads pick a random seeded id per
 * request; POSTs send a fresh product in a random seeded warehouse.
 */
export function buildTargets(stack: Stack, seed: Seed): Target[] {
  const auth = { authorization: stack.auth };
  const json = { ...auth, 'content-type': 'application/json', accept: 'application/json' };
  const byId = (prefix: string) => () => ({ path: `${prefix}${pick(seed.productoIds)}` });
  return [
    { key: 'bdb', label: 'B_db GET by id', url: stack.bdbUrl, request: { method: 'GET', path: '/productos/1', setup: byId('/productos/') } },
    {
      key: 'restGetById',
      label: 'REST GET /api/productos/{id}',
      url: stack.bffUrl,
      request: { method: 'GET', path: '/api/productos/1', headers: auth, setup: byId('/api/productos/') },
    },
    { key: 'restList', label: `REST GET /api/productos (${seed.productoIds.length} rows)`, url: stack.bffUrl, request: { method: 'GET', path: '/api/productos', headers: auth } },
    {
      key: 'restPost',
      label: 'REST POST /api/productos',
      url: stack.bffUrl,
      writes: true,
      request: {
        method: 'POST',
        path: '/api/productos',
        headers: json,
        setup: () => ({ body: JSON.stringify(productoBody('bench post', seed.bodegaIds)) }),
      },
    },
    {
      key: 'gqlProducto',
      label: 'GraphQL producto(id)',
      url: stack.bffUrl,
      request: {
        method: 'POST',
        path: '/api/graphql',
        headers: json,
        setup: () => ({ body: JSON.stringify({ query: PRODUCTO_QUERY, variables: { id: String(pick(seed.productoIds)) } }) }),
        verifyBody: graphqlSucceeded,
      },
    },
    {
      key: 'gqlProductos',
      label: 'GraphQL productos { id nombre }',
      url: stack.bffUrl,
      request: { method: 'POST', path: '/api/graphql', headers: json, body: JSON.stringify({ query: PRODUCTOS_QUERY }), verifyBody: graphqlSucceeded },
    },
  ];
}
