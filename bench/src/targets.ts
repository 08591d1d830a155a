import { randomUUID } from 'node:crypto';
import type { RequestContext, RequestShape } from './load';
import { productoBody, type Seed } from './seed';
import { pick, pickTwo } from './stats';
import type { Stack } from './stack';
import { BDB_PRODUCTOS } from './bdb-writes';
import { salidaProductoIds, stockedProductoIds } from './stock';
import { UpdatePool, versionOfEtag } from './update-pool';

/** One measured target: where autocannon sends what. */
export interface Target {
  key: TargetKey;
  label: string;
  url: string;
  request: RequestShape;
  /**
   * What a write target writes. After each of its windows the harness
   * waits until its events are out of the outbox (and their emails at the
   * sink); products a window added are then trimmed, with the keys it
   * recorded, so list targets keep their size. Stock is not: ledger lines
   * are append-only (the database refuses DELETE) and no list target reads
   * them.
   */
  writes?: 'productos' | 'existencias';
  /**
   * The target this one is judged against: measured in the same rounds,
   * next to it (roundOrder), and reported as a ratio to it. A safe write's
   * plain variant (issue 12); plain product create for the stock writes
   * (issue 13); B_db's list for the REST list (issue 14).
   */
  baseline?: TargetKey;
  /** Called before each window of this target and before its check: resets what a window uses up. */
  prepare?: () => Promise<void>;
  /** Connections of its window under load, when not `--connections` (issue 23's writes: 32 clients). */
  connections?: number;
  /**
   * Called before the warm-up and before each of the target's windows: a cached read fills its BFF's read
   * cache with every seeded product, so its windows measure the cached path they are judged on ("read cache
   * warm"). Once was not enough: an entry lives READ_CACHE_TTL_MS (60 s) and a round takes minutes, so the
   * first window of each BFF's block paid a miss for every product (a 1 s `--quick` warm-up reads about
   * 60 % of them).
   */
  prime?: () => Promise<void>;
}

/** Reads every seeded product once through `url` with `authorization`, 10 at a time. */
async function primeReads(url: string, authorization: string, ids: readonly number[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const response = await fetch(`${url}/api/productos/${id}`, { headers: { authorization } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`priming GET /api/productos/${id} answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}

/** Issue 23: every write is measured by 32 clients, and so is its B_db yardstick. */
export const WRITE_CLIENTS = 32;

/** Every target, as `--only` names them. */
export const TARGET_KEYS = [
  'bdb',
  'restGetById',
  'bdbList',
  'restList',
  'restPost',
  'gqlProducto',
  'gqlProductos',
  'restPostSafe',
  'restPut',
  'restPutSafe',
  'restMovimiento',
  'restTransferencia',
  'restGetByIdCached',
  'gqlProductoCached',
  'restGetByIdUser',
  'restGetByIdToken',
  'restPutCached',
  'bdbCreate',
  'restCreate',
  'bdbSalida',
  'restSalida',
  'restTransfer',
  'restReservaConsumo',
] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];

/** The fields of the REST product, in GraphQL's names: both targets answer the same record. */
const PRODUCTO_QUERY =
  'query Producto($id: ID!) { producto(id: $id) { id nombre descripcion precio cantidad bodegaId fechaCreacion ' +
  'fechaActualizacion } }';
const PRODUCTOS_QUERY = 'query Productos { productos { id nombre } }';

/** A GraphQL answer is 200 even when it failed (docs/contract.md §4.1): only a body without `errors` is a success. */
const graphqlSucceeded = (body: string) => !body.includes('"errors"');

/** A stock adjustment, the update a client makes most (issue 12's example): the same body plain or conditional. */
const stockPatch = () => JSON.stringify({ cantidadEnStock: Math.floor(Math.random() * 500) });

/**
 * The targets, B_db first, then the reads, then the writes (after
 * each window their events are drained and the products they added trimmed). Reads pick
 * a random seeded id per request; POSTs send a fresh product in a random
 * seeded warehouse; PUTs adjust the stock of one of `2 x connections`
 * seeded products that no other request in flight holds (UpdatePool).
 * Each write comes plain (no headers, the contract's unconditional write) and
 * safe (issue 12: a fresh Idempotency-Key per POST, If-Match of the
 * current version on each PUT). The stock writes (issue 13) move one unit
 * of a random stocked (warehouse, product) level (seedStock prepared them
 * far from 0 and from capacity): an ENTRADA or SALIDA at random, or a
 * transfer between two random distinct seeded warehouses.
 */
export function buildTargets(stack: Stack, seed: Seed, options: { connections: number }): Target[] {
  const auth = { authorization: stack.auth };
  const json = { ...auth, 'content-type': 'application/json', accept: 'application/json' };
  const byId = (prefix: string) => () => ({ path: `${prefix}${pick(seed.productoIds)}` });
  const postBody = () => JSON.stringify(productoBody('bench post', seed.bodegaIds));
  const stocked = stockedProductoIds(seed);
  const salidas = salidaProductoIds(seed);

  // The last seeded products: plain and safe PUTs update the same rows.
  const pool = new UpdatePool(seed.productoIds.slice(-Math.min(seed.productoIds.length, 2 * options.connections)));
  const readVersion = async (id: number) => {
    const response = await fetch(`${stack.bffUrl}/api/productos/${id}`, { headers: auth });
    await response.arrayBuffer();
    const version = versionOfEtag(response.headers.get('etag') ?? undefined);
    if (response.status !== 200 || !Number.isInteger(version))
      throw new Error(`GET /api/productos/${id} answered ${response.status} with ETag ${response.headers.get('etag')}`);
    return version;
  };
  const put = (conditional: boolean): RequestShape => ({
    method: 'PUT',
    path: `/api/productos/${seed.productoIds[0]}`,
    headers: json,
    setup: (context: RequestContext) => {
      const id = pool.take();
      context.productoId = id;
      return {
        path: `/api/productos/${id}`,
        body: stockPatch(),
        ...(conditional ? { headers: { 'if-match': pool.ifMatch(id) } } : {}),
      };
    },
    onResponse: (status, body, headers, context) => pool.give(Number(context.productoId), status, body, headers),
  });

  // Issue 14: the same reads and the plain PUT through the BFF whose read cache is on. Both
  // reads are judged against B_db, so both run in its block, near it (roundOrder).
  const cached: Target[] = stack.bffCachedUrl
    ? [
        {
          key: 'restGetByIdCached',
          label: 'REST GET /api/productos/{id}, read cache on',
          url: stack.bffCachedUrl,
          baseline: 'bdb',
          request: { method: 'GET', path: '/api/productos/1', headers: auth, setup: byId('/api/productos/') },
          prime: () => primeReads(stack.bffCachedUrl!, stack.auth, seed.productoIds),
        },
        {
          key: 'gqlProductoCached',
          label: 'GraphQL producto(id), read cache on',
          url: stack.bffCachedUrl,
          baseline: 'bdb',
          prime: () => primeReads(stack.bffCachedUrl!, stack.auth, seed.productoIds),
          request: {
            method: 'POST',
            path: '/api/graphql',
            headers: json,
            setup: () => ({
              body: JSON.stringify({ query: PRODUCTO_QUERY, variables: { id: String(pick(seed.productoIds)) } }),
            }),
            verifyBody: graphqlSucceeded,
          },
        },
        // Issue 26: the same cached read as a user of identidad-svc, by its own Basic password and by its token
        // (the verified-credential cache answers after the first request), also judged against B_db.
        ...(stack.identidad
          ? (
              [
                [
                  'restGetByIdUser',
                  'REST GET /api/productos/{id}, read cache on, per-user Basic',
                  stack.identidad.basic,
                ],
                ['restGetByIdToken', 'REST GET /api/productos/{id}, read cache on, API token', stack.identidad.bearer],
              ] as const
            ).map(([key, label, authorization]): Target => ({
              key,
              label,
              url: stack.identidad!.bffUrl,
              baseline: 'bdb',
              prime: () => primeReads(stack.identidad!.bffUrl, authorization, seed.productoIds),
              request: {
                method: 'GET',
                path: '/api/productos/1',
                headers: { authorization },
                setup: byId('/api/productos/'),
              },
            }))
          : []),
        {
          key: 'restPutCached',
          label: 'REST PUT /api/productos/{id}, read cache on',
          url: stack.bffCachedUrl,
          writes: 'productos',
          baseline: 'restPut',
          prepare: () => pool.reset(),
          request: put(false),
        },
      ]
    : [];

  // Issue 23: each write beside B_db's write of the same durability (bdb-writes.ts), 32 clients
  // each: a product create beside (a) a product row + an outbox row; a SALIDA of 1 over 200
  // products of ONE warehouse, and a transfer between two warehouses, beside (b) a level locked,
  // updated, a line and an outbox row. Only on a stack the harness started (B_db's own database).
  const writes: Target[] = stack.bdbWrites
    ? [
        {
          key: 'bdbCreate',
          label: 'B_db (a) product row + outbox row',
          url: stack.bdbUrl,
          connections: WRITE_CLIENTS,
          request: {
            method: 'POST',
            path: '/productos',
            headers: { 'content-type': 'application/json' },
            setup: () => ({ body: postBody() }),
          },
        },
        {
          key: 'restCreate',
          label: `REST POST /api/productos x${WRITE_CLIENTS}`,
          url: stack.bffUrl,
          writes: 'productos',
          baseline: 'bdbCreate',
          connections: WRITE_CLIENTS,
          request: { method: 'POST', path: '/api/productos', headers: json, setup: () => ({ body: postBody() }) },
        },
        {
          key: 'bdbSalida',
          label: 'B_db (b) level locked + updated, line + outbox row',
          url: stack.bdbUrl,
          connections: WRITE_CLIENTS,
          request: {
            method: 'POST',
            path: '/niveles/salida',
            headers: { 'content-type': 'application/json' },
            // One of B_db's warehouses and its BDB_PRODUCTOS products, as the exit target's one warehouse.
            setup: () => ({
              body: JSON.stringify({
                bodegaId: 1,
                productoId: 1 + Math.floor(Math.random() * BDB_PRODUCTOS),
                cantidad: 1,
              }),
            }),
          },
        },
        {
          key: 'restSalida',
          label: `REST SALIDA of 1, ${salidas.length} products of one warehouse x${WRITE_CLIENTS}`,
          url: stack.bffUrl,
          writes: 'existencias',
          baseline: 'bdbSalida',
          connections: WRITE_CLIENTS,
          request: {
            method: 'POST',
            path: `/api/bodegas/${seed.bodegaIds[0]}/movimientos`,
            headers: json,
            setup: () => ({
              body: JSON.stringify({ productoId: pick(salidas), tipo: 'SALIDA', motivo: 'VENTA', cantidad: 1 }),
            }),
          },
        },
        {
          // Issue 24: a reservation of 1 unit, then its consumption (a SALIDA through the hold), one pair per unit of
          // work, over the exit's products of its one warehouse. Each connection keeps the id between its two requests.
          key: 'restReservaConsumo',
          label:
            `REST reserve + consume of 1 (two requests), ${salidas.length} products of one warehouse ` +
            `x${WRITE_CLIENTS}`,
          url: stack.bffUrl,
          writes: 'existencias',
          baseline: 'bdbSalida',
          connections: WRITE_CLIENTS,
          request: {
            method: 'POST',
            path: '/api/reservas',
            headers: json,
            setup: () => ({
              body: JSON.stringify({
                referencia: `bench-${randomUUID()}`,
                ttlSegundos: 600,
                lineas: [{ bodegaId: seed.bodegaIds[0], productoId: pick(salidas), cantidad: 1 }],
              }),
            }),
            onResponse: (status, body, _headers, context) => {
              context.reservaId = status === 201 ? (JSON.parse(body) as { id: number }).id : undefined;
            },
            then: {
              method: 'POST',
              path: '/api/reservas/0/consumo',
              headers: json,
              body: '{}',
              // After a refused reservation, a consumption of nothing: a 404 that counts as the pair's error.
              setup: (context) => ({ path: `/api/reservas/${Number(context.reservaId ?? 0)}/consumo` }),
            },
          },
        },
        {
          key: 'restTransfer',
          label: `REST POST /api/transferencias x${WRITE_CLIENTS}`,
          url: stack.bffUrl,
          writes: 'existencias',
          baseline: 'bdbSalida',
          connections: WRITE_CLIENTS,
          request: {
            method: 'POST',
            path: '/api/transferencias',
            headers: json,
            setup: () => {
              const [origenId, destinoId] = pickTwo(seed.bodegaIds);
              return { body: JSON.stringify({ productoId: pick(stocked), origenId, destinoId, cantidad: 1 }) };
            },
          },
        },
      ]
    : [];

  return [
    {
      key: 'bdb',
      label: 'B_db GET by id',
      url: stack.bdbUrl,
      request: { method: 'GET', path: '/productos/1', setup: byId('/productos/') },
    },
    {
      key: 'restGetById',
      label: 'REST GET /api/productos/{id}',
      url: stack.bffUrl,
      request: { method: 'GET', path: '/api/productos/1', headers: auth, setup: byId('/api/productos/') },
    },
    {
      key: 'bdbList',
      label: `B_db GET list (${seed.productoIds.length} rows)`,
      url: stack.bdbUrl,
      request: { method: 'GET', path: '/productos' },
    },
    {
      key: 'restList',
      label: `REST GET /api/productos (${seed.productoIds.length} rows)`,
      url: stack.bffUrl,
      baseline: 'bdbList',
      request: { method: 'GET', path: '/api/productos', headers: auth },
    },
    {
      key: 'gqlProducto',
      label: 'GraphQL producto(id)',
      url: stack.bffUrl,
      request: {
        method: 'POST',
        path: '/api/graphql',
        headers: json,
        setup: () => ({
          body: JSON.stringify({ query: PRODUCTO_QUERY, variables: { id: String(pick(seed.productoIds)) } }),
        }),
        verifyBody: graphqlSucceeded,
      },
    },
    {
      key: 'gqlProductos',
      label: 'GraphQL productos { id nombre }',
      url: stack.bffUrl,
      request: {
        method: 'POST',
        path: '/api/graphql',
        headers: json,
        body: JSON.stringify({ query: PRODUCTOS_QUERY }),
        verifyBody: graphqlSucceeded,
      },
    },
    {
      key: 'restPost',
      label: 'REST POST /api/productos',
      url: stack.bffUrl,
      writes: 'productos',
      request: { method: 'POST', path: '/api/productos', headers: json, setup: () => ({ body: postBody() }) },
    },
    {
      key: 'restPostSafe',
      label: 'REST POST /api/productos + Idempotency-Key',
      url: stack.bffUrl,
      writes: 'productos',
      baseline: 'restPost',
      request: {
        method: 'POST',
        path: '/api/productos',
        headers: json,
        // A fresh key per request: every request executes (a repeat would be a replay, not a create).
        setup: () => ({ body: postBody(), headers: { 'idempotency-key': `bench-${randomUUID()}` } }),
      },
    },
    {
      key: 'restMovimiento',
      label: 'REST POST /api/bodegas/{id}/movimientos',
      url: stack.bffUrl,
      writes: 'existencias',
      baseline: 'restPost',
      request: {
        method: 'POST',
        path: `/api/bodegas/${seed.bodegaIds[0]}/movimientos`,
        headers: json,
        setup: () => ({
          path: `/api/bodegas/${pick(seed.bodegaIds)}/movimientos`,
          body: JSON.stringify({
            productoId: pick(stocked),
            tipo: Math.random() < 0.5 ? 'ENTRADA' : 'SALIDA',
            cantidad: 1,
          }),
        }),
      },
    },
    {
      key: 'restTransferencia',
      label: 'REST POST /api/transferencias',
      url: stack.bffUrl,
      writes: 'existencias',
      baseline: 'restPost',
      request: {
        method: 'POST',
        path: '/api/transferencias',
        headers: json,
        setup: () => {
          const [origenId, destinoId] = pickTwo(seed.bodegaIds);
          return { body: JSON.stringify({ productoId: pick(stocked), origenId, destinoId, cantidad: 1 }) };
        },
      },
    },
    {
      key: 'restPut',
      label: 'REST PUT /api/productos/{id}',
      url: stack.bffUrl,
      writes: 'productos',
      prepare: () => pool.reset(),
      request: put(false),
    },
    {
      key: 'restPutSafe',
      label: 'REST PUT /api/productos/{id} + If-Match',
      url: stack.bffUrl,
      writes: 'productos',
      baseline: 'restPut',
      prepare: () => pool.reset(readVersion),
      request: put(true),
    },
    ...cached,
    ...writes,
  ];
}
