/**
 * The generated authorization matrix (issue 26, "Tests that must exist"):
 * every REST operation of the OpenAPI document (which openapi-document.unit
 * holds equal to the Express router) and every GraphQL root field and
 * warehouse-bound field, run as each role (LECTOR, OPERADOR, SUPERVISOR,
 * AUDITOR, ADMIN) bound globally, on warehouse A, on A and B, with no binding
 * at all, and through API tokens narrower than their owners.
 *
 * What each answer must be comes from the policy below, one row per route or
 * field, stating the permission of services/bff/src/auth/autorizacion.ts's
 * table (or identidad-svc's, for the identity routes) and how it applies:
 * a global permission (403 naming it), a read of one warehouse's record (the
 * missing id's 404, byte for byte), a write on warehouses (404 where the
 * caller cannot read one, else 403), a write on a record read first, or a
 * list (only in-scope ids, checked against SQL). The caller's effective
 * rights are the roles' catalogue (@inventario/contract) narrowed by the
 * token's scope. A route or field with no row fails the test.
 *
 * One stack, data created once; the one principal whose permitted writes add
 * rows (a global ADMIN) runs alone first, the rest four at a time
 * (cadaPrincipal), so the SQL read after a list answer sees the same rows.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import { isListType, isNonNullType, isObjectType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import {
  interseccion,
  PERMISOS,
  permisosDe,
  ROLES,
  type Asignacion,
  type Donde,
  type Permiso,
  type Permisos,
  type Rol,
} from '@inventario/contract';
import { createDb, type Knex } from '@inventario/platform';
import { conAutorizacion, conAutorizacionDeReservas } from '../src/auth/autorizacion';
import type { ReservaClient } from '../src/downstream/reserva-client';
import { IDENTIDAD_TYPEDEFS } from '../src/graphql/identidad';
import { reservasTypeDefs } from '../src/graphql/reservas-schema';
import { typeDefs } from '../src/graphql/schema';
import type { InventarioApi } from '../src/inventario/model';
import { createOpenApiValidator } from './support/openapi-validator';
import { crearBodega, crearProducto } from '@inventario/testkit';
import {
  basicAuth,
  startTestStack,
  TEST_PASSWORD,
  TEST_USER,
  type StackResponse,
  type TestStack,
} from './support/stack';

jest.setTimeout(180_000);

const MISSING = 987_654;
const PASSWORD = 'matriz-password-1';
/** A version no record reaches: an allowed conditional write then stops at 412, after the decision, changing nothing. */
const WRONG_VERSION = '"99999"';

// ---------------------------------------------------------------------------------------------------------------
// Who calls

interface Principal {
  nombre: string;
  auth: string;
  permisos: Permisos;
}

type Alcance = 'global' | 'A' | 'AB' | 'ninguna';
const ALCANCES: Alcance[] = ['global', 'A', 'AB'];
const ROLES_ORDEN = Object.keys(ROLES) as Rol[];

// ---------------------------------------------------------------------------------------------------------------
// The policy rows

/** The ids a request is built from (created once in beforeAll). */
interface Ids {
  A: number;
  B: number;
  producto: number;
  /** An operation whose only line is in B, already reversed (a permitted reversal then answers 409). */
  operacionB: number;
  /** A reservation whose only line is in B, already released. */
  reservaB: number;
  /** Another user (target of the identity routes). */
  usuario: number;
  /** A service account (target of POST /api/usuarios/{id}/tokens). */
  servicio: number;
}

interface Req {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * How a row's permission applies:
 * - `publico` / `autenticado`: no permission (health and docs need no credential; /api/yo and GraphQL's transport any).
 * - `global`: held everywhere, or 403 naming it.
 * - `leer`: the record of `subject` (a warehouse, an operation, a reservation) in B: readable, or the missing id's 404.
 * - `escribirEn`: a write on the warehouses named: held on each, else 404 where one is unreadable, else 403.
 * - `escribirRegistro`: a write on a record in B read first: unreadable is the missing record's 404, else as escribirEn.
 * - `lista`: always 200, holding exactly the visible rows (its check compares with SQL).
 */
type Politica =
  | { tipo: 'publico' | 'autenticado' }
  | { tipo: 'global'; permiso: Permiso; alguno?: Permiso[] }
  | { tipo: 'leer'; permiso: Permiso; subject: (ids: Ids) => number }
  | { tipo: 'escribirEn'; permiso: Permiso; bodegas: (ids: Ids) => number[]; subject: (ids: Ids) => number }
  | { tipo: 'escribirRegistro'; permiso: Permiso; subject: (ids: Ids) => number }
  | {
      tipo: 'lista';
      permiso: Permiso;
      check: (res: StackResponse, ve: (bodegaId: number) => boolean) => Promise<void>;
    };

interface Fila {
  /** The use case of autorizacion.ts's table (or the identidad-svc RPC) the route reaches. */
  casoDeUso: string;
  politica: Politica;
  /** The request; `id` is the subject's id (MISSING for the comparison request). */
  req: (ids: Ids, id: number) => Req;
  /** The status when permitted. */
  ok: number;
}

// Each row: the use case, then its policy. Use case names are checked against the policy tables' own keys.
const IDENTIDAD_RPCS = new Set([
  'yo',
  'createUsuario',
  'listUsuarios',
  'getUsuario',
  'updateUsuario',
  'deleteUsuario',
  'cambiarPassword',
  'suspenderUsuario',
  'setAsignaciones',
  'createToken',
  'listTokens',
  'revokeToken',
  'listAuditoria',
  'verificarAuditoria',
]);
const SIN_CASO = new Set(['health', 'openapi', 'graphql']);

let db: Knex;

/** Visible ids by SQL, for the list rows. */
const sql = {
  bodegas: async () => (await db('bodegas').select('id')).map((r: { id: number }) => Number(r.id)),
  movimientos: async () =>
    (await db('movimientos').select('id', 'bodega_id')).map((r: { id: number; bodega_id: number }) => ({
      id: Number(r.id),
      bodegaId: Number(r.bodega_id),
    })),
  reservas: async () => {
    const lineas = await db<{ reserva_id: number; bodega_id: number }>('reserva_lineas').select(
      'reserva_id',
      'bodega_id',
    );
    const out = new Map<number, number[]>();
    for (const l of lineas)
      out.set(Number(l.reserva_id), [...(out.get(Number(l.reserva_id)) ?? []), Number(l.bodega_id)]);
    return out;
  },
  existenciasDe: async (productoId: number) =>
    (await db('existencias').where({ producto_id: productoId }).select('bodega_id', 'cantidad')).map(
      (r: { bodega_id: number; cantidad: number }) => ({ bodegaId: Number(r.bodega_id), cantidad: Number(r.cantidad) }),
    ),
};

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
let ids: Ids;
let uniq = 0;
const nuevo = (prefix: string) => `${prefix}.${Date.now().toString(36)}.${++uniq}`;

const REST: Record<string, Fila> = {
  'get /actuator/health': {
    casoDeUso: 'health',
    politica: { tipo: 'publico' },
    ok: 200,
    req: () => get('/actuator/health'),
  },
  'get /actuator/health/liveness': {
    casoDeUso: 'health',
    politica: { tipo: 'publico' },
    ok: 200,
    req: () => get('/actuator/health/liveness'),
  },
  'get /actuator/health/readiness': {
    casoDeUso: 'health',
    politica: { tipo: 'publico' },
    ok: 200,
    req: () => get('/actuator/health/readiness'),
  },
  // The document and its page ask for a credential (any), as the rest of /api.
  'get /api/openapi.json': {
    casoDeUso: 'openapi',
    politica: { tipo: 'autenticado' },
    ok: 200,
    req: () => get('/api/openapi.json'),
  },
  'get /api/docs': { casoDeUso: 'openapi', politica: { tipo: 'autenticado' }, ok: 200, req: () => get('/api/docs') },
  'get /api/graphql': {
    casoDeUso: 'graphql',
    politica: { tipo: 'autenticado' },
    ok: 200,
    req: () => get('/api/graphql?query=%7Bhealth%7D', { accept: 'application/json' }),
  },
  'post /api/graphql': {
    casoDeUso: 'graphql',
    politica: { tipo: 'autenticado' },
    ok: 200,
    req: () => ({ method: 'POST', path: '/api/graphql', body: { query: '{ health }' } }),
  },

  // Products: global records.
  'get /api/productos': {
    casoDeUso: 'productoPages',
    politica: { tipo: 'global', permiso: 'productos:leer' },
    ok: 200,
    req: () => get('/api/productos'),
  },
  'post /api/productos': {
    casoDeUso: 'createProducto',
    politica: { tipo: 'global', permiso: 'productos:escribir' },
    ok: 201,
    req: () => ({
      method: 'POST',
      path: '/api/productos',
      body: { nombre: nuevo('P'), precio: 1, cantidadEnStock: 0 },
    }),
  },
  'get /api/productos/{id}': {
    casoDeUso: 'getProducto',
    politica: { tipo: 'global', permiso: 'productos:leer' },
    ok: 200,
    req: (i) => get(`/api/productos/${i.producto}`),
  },
  'put /api/productos/{id}': {
    casoDeUso: 'updateProducto',
    politica: { tipo: 'global', permiso: 'productos:escribir' },
    ok: 412,
    req: (i) => ({
      method: 'PUT',
      path: `/api/productos/${i.producto}`,
      headers: { 'if-match': WRONG_VERSION },
      body: { nombre: 'Matriz', precio: 2 },
    }),
  },
  'delete /api/productos/{id}': {
    casoDeUso: 'deleteProducto',
    politica: { tipo: 'global', permiso: 'productos:eliminar' },
    ok: 412,
    req: (i) => ({ method: 'DELETE', path: `/api/productos/${i.producto}`, headers: { 'if-match': WRONG_VERSION } }),
  },
  'get /api/productos/{id}/existencias': {
    casoDeUso: 'existenciasDeProducto',
    politica: {
      tipo: 'lista',
      permiso: 'existencias:leer',
      check: async (res, ve) => {
        const filas = (await sql.existenciasDe(ids.producto)).filter((e) => ve(e.bodegaId));
        const porBodega = res.body.porBodega as { bodegaId: number; cantidad: number }[];
        expect(sorted(porBodega.map((e) => e.bodegaId))).toEqual(sorted(filas.map((e) => e.bodegaId)));
        // Aggregates sum only visible rows (the unlocated units only for who sees every warehouse; none here).
        expect(res.body.total).toBe(filas.reduce((s, e) => s + e.cantidad, 0));
      },
    },
    ok: 200,
    req: (i) => get(`/api/productos/${i.producto}/existencias`),
  },

  // Warehouses.
  'get /api/bodegas': {
    casoDeUso: 'bodegaPages',
    politica: {
      tipo: 'lista',
      permiso: 'bodegas:leer',
      check: async (res, ve) => {
        expect(sorted((res.body as { id: number }[]).map((b) => b.id))).toEqual(
          sorted((await sql.bodegas()).filter(ve)),
        );
      },
    },
    ok: 200,
    req: () => get('/api/bodegas'),
  },
  'post /api/bodegas': {
    casoDeUso: 'createBodega',
    politica: { tipo: 'global', permiso: 'bodegas:escribir' },
    ok: 201,
    req: () => ({
      method: 'POST',
      path: '/api/bodegas',
      body: { nombre: nuevo('B'), ubicacion: 'Vigo', capacidad: 5 },
    }),
  },
  'get /api/bodegas/{id}': {
    casoDeUso: 'getBodega',
    politica: { tipo: 'leer', permiso: 'bodegas:leer', subject: (i) => i.B },
    ok: 200,
    req: (_i, id) => get(`/api/bodegas/${id}`),
  },
  'put /api/bodegas/{id}': {
    casoDeUso: 'updateBodega',
    politica: { tipo: 'escribirEn', permiso: 'bodegas:escribir', bodegas: (i) => [i.B], subject: (i) => i.B },
    ok: 412,
    req: (_i, id) => ({
      method: 'PUT',
      path: `/api/bodegas/${id}`,
      headers: { 'if-match': WRONG_VERSION },
      body: { nombre: 'Matriz', ubicacion: 'Lugo', capacidad: 500 },
    }),
  },
  'delete /api/bodegas/{id}': {
    casoDeUso: 'deleteBodega',
    politica: { tipo: 'escribirEn', permiso: 'bodegas:eliminar', bodegas: (i) => [i.B], subject: (i) => i.B },
    ok: 412,
    req: (_i, id) => ({ method: 'DELETE', path: `/api/bodegas/${id}`, headers: { 'if-match': WRONG_VERSION } }),
  },
  'get /api/bodegas/{id}/productos': {
    casoDeUso: 'productoPagesOfBodega',
    politica: { tipo: 'leer', permiso: 'bodegas:leer', subject: (i) => i.B },
    ok: 200,
    req: (_i, id) => get(`/api/bodegas/${id}/productos`),
  },
  'post /api/bodegas/{id}/productos': {
    casoDeUso: 'asignarExistencia',
    politica: { tipo: 'escribirEn', permiso: 'existencias:ajustar', bodegas: (i) => [i.B], subject: (i) => i.B },
    ok: 412,
    req: (i, id) => ({
      method: 'POST',
      path: `/api/bodegas/${id}/productos`,
      headers: { 'if-match': WRONG_VERSION },
      body: { productoId: i.producto, cantidad: 1 },
    }),
  },
  'delete /api/bodegas/{id}/productos/{productoId}': {
    casoDeUso: 'retirarProducto',
    politica: { tipo: 'escribirEn', permiso: 'existencias:ajustar', bodegas: (i) => [i.B], subject: (i) => i.B },
    ok: 412,
    req: (i, id) => ({
      method: 'DELETE',
      path: `/api/bodegas/${id}/productos/${i.producto}`,
      headers: { 'if-match': WRONG_VERSION },
    }),
  },
  'get /api/bodegas/{id}/existencias': {
    casoDeUso: 'existenciasDeBodega',
    politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.B },
    ok: 200,
    req: (_i, id) => get(`/api/bodegas/${id}/existencias`),
  },
  'get /api/bodegas/{id}/existencias/{productoId}': {
    casoDeUso: 'getExistencia',
    politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.B },
    ok: 200,
    req: (i, id) => get(`/api/bodegas/${id}/existencias/${i.producto}`),
  },
  'patch /api/bodegas/{id}/existencias/{productoId}': {
    casoDeUso: 'cambiarUmbralMinimo',
    politica: { tipo: 'escribirEn', permiso: 'umbrales:configurar', bodegas: (i) => [i.B], subject: (i) => i.B },
    ok: 412,
    req: (i, id) => ({
      method: 'PATCH',
      path: `/api/bodegas/${id}/existencias/${i.producto}`,
      headers: { 'if-match': WRONG_VERSION },
      body: { umbralMinimo: 3 },
    }),
  },
  'post /api/bodegas/{id}/movimientos': {
    casoDeUso: 'registrarMovimiento',
    politica: { tipo: 'escribirEn', permiso: 'existencias:mover', bodegas: (i) => [i.B], subject: (i) => i.B },
    // More than B holds: permitted, it is refused by the stock rule (409), after the decision.
    ok: 409,
    req: (i, id) => ({
      method: 'POST',
      path: `/api/bodegas/${id}/movimientos`,
      body: { productoId: i.producto, tipo: 'SALIDA', cantidad: 1_000_000 },
    }),
  },
  'post /api/transferencias': {
    casoDeUso: 'transferir',
    politica: {
      tipo: 'escribirEn',
      permiso: 'existencias:transferir',
      bodegas: (i) => [i.B, i.A],
      subject: (i) => i.B,
    },
    ok: 409,
    req: (i, id) => ({
      method: 'POST',
      path: '/api/transferencias',
      body: { productoId: i.producto, origenId: id, destinoId: i.A, cantidad: 1_000_000 },
    }),
  },
  'get /api/operaciones/{id}': {
    casoDeUso: 'getOperacion',
    politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.operacionB },
    ok: 200,
    req: (_i, id) => get(`/api/operaciones/${id}`),
  },
  'post /api/operaciones/{id}/reverso': {
    casoDeUso: 'revertirOperacion',
    politica: { tipo: 'escribirRegistro', permiso: 'operaciones:revertir', subject: (i) => i.operacionB },
    // Already reversed: permitted, it is OPERACION_YA_REVERTIDA.
    ok: 409,
    req: (_i, id) => ({ method: 'POST', path: `/api/operaciones/${id}/reverso`, body: {} }),
  },
  'get /api/movimientos': {
    casoDeUso: 'listMovimientos',
    politica: {
      tipo: 'lista',
      permiso: 'existencias:leer',
      check: async (res, ve) => {
        const got = (res.body.movimientos as { id: number }[]).map((m) => m.id);
        const want = (await sql.movimientos()).filter((m) => ve(m.bodegaId)).map((m) => m.id);
        expect(res.body.siguienteCursor).toBeNull();
        expect(sorted(got)).toEqual(sorted(want));
      },
    },
    ok: 200,
    req: () => get('/api/movimientos?limit=1000'),
  },
  'get /api/existencias/verificacion': {
    casoDeUso: 'verificarExistencias',
    politica: { tipo: 'global', permiso: 'consistencia:verificar' },
    ok: 200,
    req: () => get('/api/existencias/verificacion'),
  },

  // Reservations (conAutorizacionDeReservas).
  'post /api/reservas': {
    casoDeUso: 'reservas.crear',
    politica: { tipo: 'escribirEn', permiso: 'existencias:mover', bodegas: (i) => [i.B], subject: (i) => i.B },
    ok: 409,
    req: (i, id) => ({
      method: 'POST',
      path: '/api/reservas',
      body: { referencia: nuevo('r'), lineas: [{ bodegaId: id, productoId: i.producto, cantidad: 1_000_000 }] },
    }),
  },
  'get /api/reservas': {
    casoDeUso: 'reservas.list',
    politica: {
      tipo: 'lista',
      permiso: 'existencias:leer',
      check: async (res, ve) => {
        const got = (res.body.reservas as { id: number }[]).map((r) => r.id);
        const want = [...(await sql.reservas())].filter(([, bs]) => bs.every(ve)).map(([id]) => id);
        expect(sorted(got)).toEqual(sorted(want));
      },
    },
    ok: 200,
    req: () => get('/api/reservas'),
  },
  'get /api/reservas/{id}': {
    casoDeUso: 'reservas.get',
    politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.reservaB },
    ok: 200,
    req: (_i, id) => get(`/api/reservas/${id}`),
  },
  'post /api/reservas/{id}/consumo': {
    casoDeUso: 'reservas.consumir',
    politica: { tipo: 'escribirRegistro', permiso: 'existencias:mover', subject: (i) => i.reservaB },
    ok: 409,
    req: (_i, id) => ({ method: 'POST', path: `/api/reservas/${id}/consumo`, body: {} }),
  },
  'post /api/reservas/{id}/liberacion': {
    casoDeUso: 'reservas.liberar',
    politica: { tipo: 'escribirRegistro', permiso: 'existencias:mover', subject: (i) => i.reservaB },
    // Already released: permitted, releasing again answers the released reservation.
    ok: 200,
    req: (_i, id) => ({ method: 'POST', path: `/api/reservas/${id}/liberacion`, body: {} }),
  },
  'patch /api/reservas/{id}': {
    casoDeUso: 'reservas.extender',
    politica: { tipo: 'escribirRegistro', permiso: 'existencias:mover', subject: (i) => i.reservaB },
    ok: 409,
    req: (_i, id) => ({
      method: 'PATCH',
      path: `/api/reservas/${id}`,
      headers: { 'if-match': '"2"' },
      body: { expiraEn: '2099-01-01T00:00:00' },
    }),
  },

  // Identity routes: identidad-svc decides, with global permissions.
  'get /api/yo': { casoDeUso: 'yo', politica: { tipo: 'autenticado' }, ok: 200, req: () => get('/api/yo') },
  'post /api/usuarios': {
    casoDeUso: 'createUsuario',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 201,
    req: () => ({ method: 'POST', path: '/api/usuarios', body: { usuario: nuevo('u'), password: PASSWORD } }),
  },
  'get /api/usuarios': {
    casoDeUso: 'listUsuarios',
    politica: { tipo: 'global', permiso: 'usuarios:leer' },
    ok: 200,
    req: () => get('/api/usuarios'),
  },
  'get /api/usuarios/{id}': {
    casoDeUso: 'getUsuario',
    politica: { tipo: 'global', permiso: 'usuarios:leer' },
    ok: 200,
    req: (i) => get(`/api/usuarios/${i.usuario}`),
  },
  'patch /api/usuarios/{id}': {
    casoDeUso: 'updateUsuario',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 412,
    req: (i) => ({
      method: 'PATCH',
      path: `/api/usuarios/${i.usuario}`,
      headers: { 'if-match': WRONG_VERSION },
      body: { usuario: nuevo('renombrado') },
    }),
  },
  'delete /api/usuarios/{id}': {
    casoDeUso: 'deleteUsuario',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 412,
    req: (i) => ({ method: 'DELETE', path: `/api/usuarios/${i.usuario}`, headers: { 'if-match': WRONG_VERSION } }),
  },
  'put /api/usuarios/{id}/password': {
    casoDeUso: 'cambiarPassword',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 412,
    req: (i) => ({
      method: 'PUT',
      path: `/api/usuarios/${i.usuario}/password`,
      headers: { 'if-match': WRONG_VERSION },
      body: { password: 'otra-password-larga-1' },
    }),
  },
  'post /api/usuarios/{id}/suspension': {
    casoDeUso: 'suspenderUsuario',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 412,
    req: (i) => ({
      method: 'POST',
      path: `/api/usuarios/${i.usuario}/suspension`,
      headers: { 'if-match': WRONG_VERSION },
    }),
  },
  'get /api/usuarios/{id}/asignaciones': {
    casoDeUso: 'getUsuario',
    politica: { tipo: 'global', permiso: 'usuarios:leer' },
    ok: 200,
    req: (i) => get(`/api/usuarios/${i.usuario}/asignaciones`),
  },
  'put /api/usuarios/{id}/asignaciones': {
    casoDeUso: 'setAsignaciones',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 412,
    req: (i) => ({
      method: 'PUT',
      path: `/api/usuarios/${i.usuario}/asignaciones`,
      headers: { 'if-match': WRONG_VERSION },
      body: { asignaciones: [{ rol: 'LECTOR' }] },
    }),
  },
  'post /api/tokens': {
    casoDeUso: 'createToken',
    politica: { tipo: 'global', permiso: 'tokens:propios' },
    ok: 201,
    req: () => ({ method: 'POST', path: '/api/tokens', body: { nombre: nuevo('t') } }),
  },
  'post /api/usuarios/{id}/tokens': {
    casoDeUso: 'createToken',
    politica: { tipo: 'global', permiso: 'usuarios:administrar' },
    ok: 201,
    req: (i) => ({ method: 'POST', path: `/api/usuarios/${i.servicio}/tokens`, body: { nombre: nuevo('t') } }),
  },
  'get /api/tokens': {
    casoDeUso: 'listTokens',
    politica: { tipo: 'global', permiso: 'tokens:propios' },
    ok: 200,
    req: () => get('/api/tokens'),
  },
  'delete /api/tokens/{id}': {
    casoDeUso: 'revokeToken',
    // An admin revokes anyone's token, others their own: a missing id is then 404 to both.
    politica: { tipo: 'global', permiso: 'tokens:propios', alguno: ['usuarios:administrar'] },
    ok: 404,
    req: () => ({ method: 'DELETE', path: `/api/tokens/${MISSING}` }),
  },
  'get /api/auditoria': {
    casoDeUso: 'listAuditoria',
    politica: { tipo: 'global', permiso: 'auditoria:leer' },
    ok: 200,
    req: () => get('/api/auditoria'),
  },
  'get /api/auditoria/verificacion': {
    casoDeUso: 'verificarAuditoria',
    politica: { tipo: 'global', permiso: 'consistencia:verificar' },
    ok: 200,
    req: () => get('/api/auditoria/verificacion'),
  },
};

function get(path: string, headers?: Record<string, string>): Req {
  return { method: 'GET', path, ...(headers ? { headers } : {}) };
}

// ---------------------------------------------------------------------------------------------------------------
// The decision model, from the catalogue

const enTodas = (p: Permisos, permiso: Permiso) => p.get(permiso) === '*';
function tiene(p: Permisos, permiso: Permiso, bodegas: number[]): boolean {
  const donde: Donde | undefined = p.get(permiso);
  return donde === '*' || (donde !== undefined && bodegas.every((b) => donde.has(b)));
}
const lee = (p: Permisos, bodegaId: number) =>
  tiene(p, 'bodegas:leer', [bodegaId]) || tiene(p, 'existencias:leer', [bodegaId]);

/** comoInexistente: the 404 of a missing `id` (the first warehouse the caller cannot read, or the record). */
type Esperado = { tipo: 'ok' } | { tipo: 'prohibido'; permiso: Permiso } | { tipo: 'comoInexistente'; id: number };

function esperado(politica: Politica, p: Permisos): Esperado {
  switch (politica.tipo) {
    case 'publico':
    case 'autenticado':
    case 'lista':
      return { tipo: 'ok' };
    case 'global':
      return [politica.permiso, ...(politica.alguno ?? [])].some((x) => enTodas(p, x))
        ? { tipo: 'ok' }
        : { tipo: 'prohibido', permiso: politica.permiso };
    case 'leer':
      return tiene(p, politica.permiso, [ids.B])
        ? { tipo: 'ok' }
        : { tipo: 'comoInexistente', id: politica.subject(ids) };
    case 'escribirEn': {
      const bodegas = politica.bodegas(ids);
      if (tiene(p, politica.permiso, bodegas)) return { tipo: 'ok' };
      const oculta = bodegas.find((b) => !lee(p, b));
      if (oculta !== undefined) return { tipo: 'comoInexistente', id: oculta };
      return { tipo: 'prohibido', permiso: politica.permiso };
    }
    case 'escribirRegistro':
      // Its lines (all in B) must be readable, then the permission held on them.
      if (!tiene(p, 'existencias:leer', [ids.B])) return { tipo: 'comoInexistente', id: politica.subject(ids) };
      return tiene(p, politica.permiso, [ids.B]) ? { tipo: 'ok' } : { tipo: 'prohibido', permiso: politica.permiso };
  }
}

function visibleEn(p: Permisos, permiso: Permiso): (bodegaId: number) => boolean {
  const donde = p.get(permiso);
  if (donde === '*') return () => true;
  return (bodegaId) => donde?.has(bodegaId) ?? false;
}

/**
 * `body` for every principal: first, alone, those whose permitted writes add rows a list row checks against SQL
 * (products and warehouses: only a global ADMIN), then the rest four at a time (their permitted writes stop at 409 or
 * 412 and add nothing), so the run stays short and every list answer still meets the SQL read after it.
 */
async function cadaPrincipal(principals: Principal[], body: (principal: Principal) => Promise<void>): Promise<void> {
  const escribe = (p: Principal) =>
    enTodas(p.permisos, 'bodegas:escribir') || enTodas(p.permisos, 'productos:escribir');
  for (const principal of principals.filter(escribe)) await body(principal);
  const resto = principals.filter((p) => !escribe(p));
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < resto.length) await body(resto[next++]!);
    }),
  );
}

const scopeOf = (lista: { permiso: Permiso; bodegaIds?: number[] }[]): Permisos =>
  new Map(lista.map(({ permiso, bodegaIds }) => [permiso, bodegaIds ? new Set(bodegaIds) : '*']));

// ---------------------------------------------------------------------------------------------------------------

describe('the generated authorization matrix', () => {
  let stack: TestStack;
  const principals: Principal[] = [];

  async function rest(auth: string | undefined, r: Req): Promise<StackResponse> {
    return stack.request(r.method, r.path, { ...(auth ? { auth } : { auth: '' }), body: r.body, headers: r.headers });
  }

  beforeAll(async () => {
    stack = await startTestStack('bff_idmatrix', {
      identidad: true,
      // The services verify the principal and require one, so every answer also holds where the data is.
      serviciosExigenPrincipal: true,
      env: { AUTH_FAILURES_PER_15_MIN: '0' },
    });
    db = createDb(stack.databaseUrls.bodega);
    const A = await crearBodega(stack);
    const B = await crearBodega(stack);
    const C = await crearBodega(stack);
    const producto = (await crearProducto(stack, { cantidadEnStock: 0 })).id;
    const entradas: number[] = [];
    for (const bodega of [A, B, C]) {
      const res = await stack.request('POST', `/api/bodegas/${bodega}/movimientos`, {
        body: { productoId: producto, tipo: 'ENTRADA', cantidad: 10 },
      });
      expect(res.status).toBe(201);
      entradas.push(res.body.id as number);
    }
    // A second entry in B, reversed: the operation a permitted reversal finds already reversed.
    const extra = await stack.request('POST', `/api/bodegas/${B}/movimientos`, {
      body: { productoId: producto, tipo: 'ENTRADA', cantidad: 5 },
    });
    expect(extra.status).toBe(201);
    const operacionB = extra.body.id as number;
    expect((await stack.request('POST', `/api/operaciones/${operacionB}/reverso`, { body: {} })).status).toBe(201);
    const reservas: number[] = [];
    for (const bodega of [A, B, C]) {
      const res = await stack.request('POST', '/api/reservas', {
        body: { referencia: nuevo('m'), lineas: [{ bodegaId: bodega, productoId: producto, cantidad: 1 }] },
      });
      expect(res.status).toBe(201);
      reservas.push(res.body.id as number);
    }
    const reservaB = reservas[1]!;
    expect((await stack.request('POST', `/api/reservas/${reservaB}/liberacion`, { body: {} })).status).toBe(200);
    const objetivo = await stack.request('POST', '/api/usuarios', {
      body: { usuario: 'objetivo', password: PASSWORD, asignaciones: [{ rol: 'LECTOR' }] },
    });
    expect(objetivo.status).toBe(201);
    const servicio = await stack.request('POST', '/api/usuarios', {
      body: { usuario: 'servicio.matriz', tipo: 'SERVICIO', asignaciones: [{ rol: 'LECTOR', bodegaId: A }] },
    });
    expect(servicio.status).toBe(201);
    ids = { A, B, producto, operacionB, reservaB, usuario: objetivo.body.id, servicio: servicio.body.id };

    // Every role x {global, A, A+B}, and no binding at all.
    const bindings: Record<Alcance, (rol: Rol) => Asignacion[]> = {
      global: (rol) => [{ rol, bodegaId: null }],
      A: (rol) => [{ rol, bodegaId: A }],
      AB: (rol) => [
        { rol, bodegaId: A },
        { rol, bodegaId: B },
      ],
      ninguna: () => [],
    };
    const crear = async (nombre: string, asignaciones: Asignacion[]) => {
      const res = await stack.request('POST', '/api/usuarios', {
        body: {
          usuario: nombre,
          password: PASSWORD,
          asignaciones: asignaciones.map((a) => (a.bodegaId === null ? { rol: a.rol } : a)),
        },
      });
      expect(res.status).toBe(201);
      const auth = basicAuth(nombre, PASSWORD);
      principals.push({ nombre, auth, permisos: permisosDe(asignaciones) });
      return auth;
    };
    for (const rol of ROLES_ORDEN)
      for (const alcance of ALCANCES) await crear(`${rol.toLowerCase()}.${alcance}`, bindings[alcance](rol));
    await crear('sin.rol', []);

    // Tokens narrower than their owners: the answer follows the intersection.
    const tokens: {
      owner: string;
      ownerAuth: string;
      ownerPermisos: Permisos;
      scope: { permiso: Permiso; bodegaIds?: number[] }[];
    }[] = [
      {
        owner: 'supervisor.global',
        ownerAuth: basicAuth('supervisor.global', PASSWORD),
        ownerPermisos: permisosDe([{ rol: 'SUPERVISOR', bodegaId: null }]),
        scope: [
          { permiso: 'bodegas:leer', bodegaIds: [A] },
          { permiso: 'existencias:leer', bodegaIds: [A] },
          { permiso: 'existencias:mover', bodegaIds: [A, B] },
        ],
      },
      {
        owner: TEST_USER,
        ownerAuth: basicAuth(TEST_USER, TEST_PASSWORD),
        ownerPermisos: permisosDe([{ rol: 'ADMIN', bodegaId: null }]),
        scope: [
          { permiso: 'productos:leer' },
          { permiso: 'existencias:leer', bodegaIds: [B] },
          { permiso: 'usuarios:leer' },
        ],
      },
      {
        // Reading B alone, and transferring between A and B (a scoped binding holds no tokens:propios: global).
        owner: 'operador.global',
        ownerAuth: basicAuth('operador.global', PASSWORD),
        ownerPermisos: permisosDe(bindings.global('OPERADOR')),
        scope: [
          { permiso: 'bodegas:leer', bodegaIds: [B] },
          { permiso: 'existencias:leer', bodegaIds: [B] },
          { permiso: 'existencias:transferir', bodegaIds: [A, B] },
        ],
      },
    ];
    for (const [n, t] of tokens.entries()) {
      const res = await stack.request('POST', '/api/tokens', {
        auth: t.ownerAuth,
        body: { nombre: `matriz-${n}`, permisos: t.scope },
      });
      if (res.status !== 201) throw new Error(`token ${n}: ${res.status} ${res.text}`);
      principals.push({
        nombre: `token ${n} of ${t.owner}`,
        auth: `Bearer ${res.body.token as string}`,
        permisos: interseccion(scopeOf(t.scope), t.ownerPermisos),
      });
    }
  });

  afterAll(async () => {
    await db?.destroy();
    await stack?.close();
  });

  it('has a policy row for every REST operation of the document, each naming a use case of a policy table', () => {
    const documented = createOpenApiValidator()
      .operations()
      .map((o) => `${o.method.toLowerCase()} ${o.path}`);
    expect(documented.filter((op) => !(op in REST))).toEqual([]);
    expect(Object.keys(REST).filter((op) => !documented.includes(op))).toEqual([]);

    // The policy tables' own keys: a row naming a use case they do not hold is a stale row.
    const inventario = Object.keys(conAutorizacion({} as InventarioApi));
    const reservas = Object.keys(conAutorizacionDeReservas({} as ReservaClient)).map((k) => `reservas.${k}`);
    const conocidos = new Set([...inventario, ...reservas, ...IDENTIDAD_RPCS, ...SIN_CASO]);
    expect(Object.values(REST).filter((f) => !conocidos.has(f.casoDeUso))).toEqual([]);
    // Every permission of the catalogue is exercised by some row.
    const usados = new Set(Object.values(REST).flatMap((f) => ('permiso' in f.politica ? [f.politica.permiso] : [])));
    expect(PERMISOS.filter((p) => !usados.has(p))).toEqual([]);
  });

  it('answers every REST operation, for every principal, as the policy says', async () => {
    expect(principals).toHaveLength(ROLES_ORDEN.length * ALCANCES.length + 1 + 3);
    const wrong: string[] = [];
    const missingCache = new Map<string, StackResponse>();
    await cadaPrincipal(principals, async (principal) => {
      for (const [op, fila] of Object.entries(REST)) {
        const politica = fila.politica;
        const subject = 'subject' in politica ? politica.subject(ids) : 0;
        const res = await rest(principal.auth, fila.req(ids, subject));
        const want = esperado(politica, principal.permisos);
        const label = `${principal.nombre} ${op}: want ${JSON.stringify(want)}, got ${res.status} ${res.text.slice(0, 200)}`;
        try {
          if (want.tipo === 'ok') {
            expect(res.status).toBe(fila.ok);
            if (politica.tipo === 'lista') {
              const permiso = politica.permiso;
              await politica.check(res, visibleEn(principal.permisos, permiso));
            }
          } else if (want.tipo === 'prohibido') {
            expect(res.status).toBe(403);
            expect(res.body).toMatchObject({ error: 'FORBIDDEN', permiso: want.permiso });
          } else {
            // Byte for byte the missing id's answer (the same principal, so the same decision path).
            const key = `${principal.nombre} ${op}`;
            let missing = missingCache.get(key);
            if (!missing) {
              missing = await rest(principal.auth, fila.req(ids, MISSING));
              missingCache.set(key, missing);
            }
            expect(res.status).toBe(404);
            expect(missing.status).toBe(404);
            expect(res.text).toBe(missing.text.replaceAll(String(MISSING), String(want.id)));
            expect(res.headers.get('content-type')).toBe(missing.headers.get('content-type'));
          }
        } catch {
          wrong.push(label);
        }
      }
    });
    expect(wrong).toEqual([]);
  });

  it('refuses every non-public REST operation without a credential', async () => {
    const wrong: string[] = [];
    for (const [op, fila] of Object.entries(REST)) {
      const res = await rest(undefined, fila.req(ids, 'subject' in fila.politica ? fila.politica.subject(ids) : 0));
      const want = fila.politica.tipo === 'publico' ? fila.ok : 401;
      if (res.status !== want) wrong.push(`${op}: ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  // -------------------------------------------------------------------------------------------------------------
  // GraphQL

  /** The schema as served with identidad-svc. */
  const schema: GraphQLSchema = makeExecutableSchema({ typeDefs: [typeDefs, reservasTypeDefs, IDENTIDAD_TYPEDEFS] });

  /** Types whose records live in a warehouse: a field returning one is warehouse-bound. */
  const LIGADOS = new Set([
    'Bodega',
    'Existencia',
    'Movimiento',
    'Operacion',
    'Reserva',
    'MovimientosPagina',
    'ReservasPagina',
  ]);
  const named = (t: GraphQLOutputType): string =>
    isNonNullType(t) || isListType(t) ? named(t.ofType as GraphQLOutputType) : (t as { name: string }).name;

  /** `Type.field` of every root field and every field returning warehouse-bound records. */
  function camposConPolitica(): string[] {
    const out: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const root = type.name === 'Query' || type.name === 'Mutation';
        if (root || LIGADOS.has(named(field.type))) out.push(`${type.name}.${field.name}`);
      }
    }
    return out;
  }

  /**
   * anidado: a field below a root the caller may (`raiz`, default always) or may not reach; when it reaches it, the
   * answer has no error and names only warehouses visible under `permiso`.
   * carga: a mutation payload's record, written after that mutation's row decided (checked there).
   */
  type GqlPolitica =
    Politica | { tipo: 'anidado'; permiso: Permiso; raiz?: (p: Permisos) => boolean } | { tipo: 'carga'; de: string };
  interface GqlFila {
    casoDeUso: string;
    politica: GqlPolitica;
    /** The document; `id` as in REST. */
    doc: (ids: Ids, id: number) => string;
    /** Root field of the answer. */
    campo: string;
  }
  const q = (s: string) => s;
  const GQL: Record<string, GqlFila> = {
    'Query.productos': {
      casoDeUso: 'productoPages',
      politica: { tipo: 'global', permiso: 'productos:leer' },
      campo: 'productos',
      doc: () => q('{ productos { id } }'),
    },
    'Query.producto': {
      casoDeUso: 'getProducto',
      politica: { tipo: 'global', permiso: 'productos:leer' },
      campo: 'producto',
      doc: (i) => `{ producto(id: "${i.producto}") { id } }`,
    },
    'Query.bodegas': {
      casoDeUso: 'bodegaPages',
      politica: {
        tipo: 'lista',
        permiso: 'bodegas:leer',
        check: async (res, ve) => {
          const got = (res.body.data.bodegas as { id: string }[]).map((b) => Number(b.id));
          expect(sorted(got)).toEqual(sorted((await sql.bodegas()).filter(ve)));
        },
      },
      campo: 'bodegas',
      doc: () => '{ bodegas { id } }',
    },
    'Query.bodega': {
      casoDeUso: 'getBodega',
      politica: { tipo: 'leer', permiso: 'bodegas:leer', subject: (i) => i.B },
      campo: 'bodega',
      doc: (_i, id) => `{ bodega(id: "${id}") { id } }`,
    },
    'Query.health': {
      casoDeUso: 'health',
      politica: { tipo: 'autenticado' },
      campo: 'health',
      doc: () => '{ health }',
    },
    'Query.movimientos': {
      casoDeUso: 'listMovimientos',
      politica: {
        tipo: 'lista',
        permiso: 'existencias:leer',
        check: async (res, ve) => {
          const got = (res.body.data.movimientos.movimientos as { id: string }[]).map((m) => Number(m.id));
          const want = (await sql.movimientos()).filter((m) => ve(m.bodegaId)).map((m) => m.id);
          expect(sorted(got)).toEqual(sorted(want));
        },
      },
      campo: 'movimientos',
      doc: () => '{ movimientos(first: 1000) { movimientos { id } siguienteCursor } }',
    },
    'Query.operacion': {
      casoDeUso: 'getOperacion',
      politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.operacionB },
      campo: 'operacion',
      doc: (_i, id) => `{ operacion(id: "${id}") { id } }`,
    },
    'Query.existencia': {
      casoDeUso: 'getExistencia',
      politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.B },
      campo: 'existencia',
      doc: (i, id) => `{ existencia(bodegaId: "${id}", productoId: "${i.producto}") { cantidad } }`,
    },
    'Query.reserva': {
      casoDeUso: 'reservas.get',
      politica: { tipo: 'leer', permiso: 'existencias:leer', subject: (i) => i.reservaB },
      campo: 'reserva',
      doc: (_i, id) => `{ reserva(id: "${id}") { id } }`,
    },
    'Query.reservas': {
      casoDeUso: 'reservas.list',
      politica: {
        tipo: 'lista',
        permiso: 'existencias:leer',
        check: async (res, ve) => {
          const got = (res.body.data.reservas.reservas as { id: string }[]).map((r) => Number(r.id));
          const want = [...(await sql.reservas())].filter(([, bs]) => bs.every(ve)).map(([id]) => id);
          expect(sorted(got)).toEqual(sorted(want));
        },
      },
      campo: 'reservas',
      doc: () => '{ reservas { reservas { id } } }',
    },
    'Query.yo': { casoDeUso: 'yo', politica: { tipo: 'autenticado' }, campo: 'yo', doc: () => '{ yo { usuario } }' },
    'Query.usuarios': {
      casoDeUso: 'listUsuarios',
      politica: { tipo: 'global', permiso: 'usuarios:leer' },
      campo: 'usuarios',
      doc: () => '{ usuarios { usuarios { id } } }',
    },
    'Query.usuario': {
      casoDeUso: 'getUsuario',
      politica: { tipo: 'global', permiso: 'usuarios:leer' },
      campo: 'usuario',
      doc: (i) => `{ usuario(id: "${i.usuario}") { id } }`,
    },
    'Query.tokens': {
      casoDeUso: 'listTokens',
      politica: { tipo: 'global', permiso: 'tokens:propios' },
      campo: 'tokens',
      doc: () => '{ tokens { tokens { id } } }',
    },
    'Query.auditoria': {
      casoDeUso: 'listAuditoria',
      politica: { tipo: 'global', permiso: 'auditoria:leer' },
      campo: 'auditoria',
      doc: () => '{ auditoria { registros { seq } } }',
    },
    'Query.verificacionAuditoria': {
      casoDeUso: 'verificarAuditoria',
      politica: { tipo: 'global', permiso: 'consistencia:verificar' },
      campo: 'verificacionAuditoria',
      doc: () => '{ verificacionAuditoria { consistente } }',
    },

    // Mutations: the payload's error names the permission when refused (success false), as REST's 403 does.
    'Mutation.crearProducto': {
      casoDeUso: 'createProducto',
      politica: { tipo: 'global', permiso: 'productos:escribir' },
      campo: 'crearProducto',
      doc: () =>
        `mutation { crearProducto(input: { nombre: "${nuevo('G')}", precio: 1, cantidad: 0 }) { success error } }`,
    },
    'Mutation.actualizarProducto': {
      casoDeUso: 'updateProducto',
      politica: { tipo: 'global', permiso: 'productos:escribir' },
      campo: 'actualizarProducto',
      doc: (i) =>
        `mutation { actualizarProducto(input: { id: "${i.producto}", precio: 3, version: 99999 }) { success error } }`,
    },
    'Mutation.eliminarProducto': {
      casoDeUso: 'deleteProducto',
      politica: { tipo: 'global', permiso: 'productos:eliminar' },
      campo: 'eliminarProducto',
      doc: (i) => `mutation { eliminarProducto(id: "${i.producto}", version: 99999) { success error } }`,
    },
    'Mutation.crearBodega': {
      casoDeUso: 'createBodega',
      politica: { tipo: 'global', permiso: 'bodegas:escribir' },
      campo: 'crearBodega',
      doc: () =>
        `mutation { crearBodega(input: { nombre: "${nuevo('G')}", ubicacion: "Ourense", capacidad: 5 }) { success error } }`,
    },
    'Mutation.actualizarBodega': {
      casoDeUso: 'updateBodega',
      politica: { tipo: 'escribirEn', permiso: 'bodegas:escribir', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'actualizarBodega',
      doc: (_i, id) =>
        `mutation { actualizarBodega(input: { id: "${id}", capacidad: 600, version: 99999 }) { success error } }`,
    },
    'Mutation.eliminarBodega': {
      casoDeUso: 'deleteBodega',
      politica: { tipo: 'escribirEn', permiso: 'bodegas:eliminar', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'eliminarBodega',
      doc: (_i, id) => `mutation { eliminarBodega(id: "${id}", version: 99999) { success error } }`,
    },
    'Mutation.inicializarBaseDatos': {
      casoDeUso: 'createBodega',
      politica: { tipo: 'global', permiso: 'bodegas:escribir' },
      campo: 'inicializarBaseDatos',
      doc: () => 'mutation { inicializarBaseDatos }',
    },
    'Mutation.asignarProductoABodega': {
      casoDeUso: 'asignarExistencia',
      politica: { tipo: 'escribirEn', permiso: 'existencias:ajustar', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'asignarProductoABodega',
      doc: (i, id) =>
        `mutation { asignarProductoABodega(bodegaId: "${id}", productoId: "${i.producto}", cantidad: 1, version: 99999) { success error } }`,
    },
    'Mutation.retirarProductoDeBodega': {
      casoDeUso: 'retirarProducto',
      politica: { tipo: 'escribirEn', permiso: 'existencias:ajustar', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'retirarProductoDeBodega',
      doc: (i, id) =>
        `mutation { retirarProductoDeBodega(bodegaId: "${id}", productoId: "${i.producto}", version: 99999) { success error } }`,
    },
    'Mutation.cambiarUmbralMinimo': {
      casoDeUso: 'cambiarUmbralMinimo',
      politica: { tipo: 'escribirEn', permiso: 'umbrales:configurar', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'cambiarUmbralMinimo',
      doc: (i, id) =>
        `mutation { cambiarUmbralMinimo(bodegaId: "${id}", productoId: "${i.producto}", umbralMinimo: 2, version: 99999) { success error } }`,
    },
    'Mutation.registrarMovimiento': {
      casoDeUso: 'registrarMovimiento',
      politica: { tipo: 'escribirEn', permiso: 'existencias:mover', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'registrarMovimiento',
      doc: (i, id) =>
        `mutation { registrarMovimiento(input: { bodegaId: "${id}", productoId: "${i.producto}", tipo: "SALIDA", cantidad: 1000000 }) { success error } }`,
    },
    'Mutation.transferirStock': {
      casoDeUso: 'transferir',
      politica: {
        tipo: 'escribirEn',
        permiso: 'existencias:transferir',
        bodegas: (i) => [i.B, i.A],
        subject: (i) => i.B,
      },
      campo: 'transferirStock',
      doc: (i, id) =>
        `mutation { transferirStock(input: { productoId: "${i.producto}", origenId: "${id}", destinoId: "${i.A}", cantidad: 1000000 }) { success error } }`,
    },
    'Mutation.revertirOperacion': {
      casoDeUso: 'revertirOperacion',
      politica: { tipo: 'escribirRegistro', permiso: 'operaciones:revertir', subject: (i) => i.operacionB },
      campo: 'revertirOperacion',
      doc: (_i, id) => `mutation { revertirOperacion(id: "${id}") { success error } }`,
    },
    'Mutation.crearReserva': {
      casoDeUso: 'reservas.crear',
      politica: { tipo: 'escribirEn', permiso: 'existencias:mover', bodegas: (i) => [i.B], subject: (i) => i.B },
      campo: 'crearReserva',
      doc: (i, id) =>
        `mutation { crearReserva(input: { referencia: "${nuevo('g')}", lineas: [{ bodegaId: "${id}", productoId: "${i.producto}", cantidad: 1000000 }] }) { success error } }`,
    },
    'Mutation.consumirReserva': {
      casoDeUso: 'reservas.consumir',
      politica: { tipo: 'escribirRegistro', permiso: 'existencias:mover', subject: (i) => i.reservaB },
      campo: 'consumirReserva',
      doc: (_i, id) => `mutation { consumirReserva(id: "${id}") { success error } }`,
    },
    'Mutation.liberarReserva': {
      casoDeUso: 'reservas.liberar',
      politica: { tipo: 'escribirRegistro', permiso: 'existencias:mover', subject: (i) => i.reservaB },
      campo: 'liberarReserva',
      doc: (_i, id) => `mutation { liberarReserva(id: "${id}") { success error } }`,
    },
    'Mutation.extenderReserva': {
      casoDeUso: 'reservas.extender',
      politica: { tipo: 'escribirRegistro', permiso: 'existencias:mover', subject: (i) => i.reservaB },
      campo: 'extenderReserva',
      doc: (_i, id) =>
        `mutation { extenderReserva(id: "${id}", expiraEn: "2099-01-01T00:00:00", version: 2) { success error } }`,
    },
    'Mutation.crearUsuario': {
      casoDeUso: 'createUsuario',
      politica: { tipo: 'global', permiso: 'usuarios:administrar' },
      campo: 'crearUsuario',
      doc: () => `mutation { crearUsuario(usuario: "${nuevo('gu')}", password: "${PASSWORD}") { success error } }`,
    },
    'Mutation.fijarAsignaciones': {
      casoDeUso: 'setAsignaciones',
      politica: { tipo: 'global', permiso: 'usuarios:administrar' },
      campo: 'fijarAsignaciones',
      doc: (i) =>
        `mutation { fijarAsignaciones(id: "${i.usuario}", asignaciones: [{ rol: "LECTOR" }], version: 99999) { success error } }`,
    },
    'Mutation.suspenderUsuario': {
      casoDeUso: 'suspenderUsuario',
      politica: { tipo: 'global', permiso: 'usuarios:administrar' },
      campo: 'suspenderUsuario',
      doc: (i) => `mutation { suspenderUsuario(id: "${i.usuario}", version: 99999) { success error } }`,
    },
    'Mutation.cambiarPassword': {
      casoDeUso: 'cambiarPassword',
      politica: { tipo: 'global', permiso: 'usuarios:administrar' },
      campo: 'cambiarPassword',
      doc: (i) =>
        `mutation { cambiarPassword(id: "${i.usuario}", password: "otra-password-larga-2", version: 99999) { success error } }`,
    },
    'Mutation.crearToken': {
      casoDeUso: 'createToken',
      politica: { tipo: 'global', permiso: 'tokens:propios' },
      campo: 'crearToken',
      doc: () => `mutation { crearToken(nombre: "${nuevo('gt')}") { success error } }`,
    },
    'Mutation.revocarToken': {
      casoDeUso: 'revokeToken',
      politica: { tipo: 'global', permiso: 'tokens:propios', alguno: ['usuarios:administrar'] },
      campo: 'revocarToken',
      doc: () => `mutation { revocarToken(id: "${MISSING}") { success error } }`,
    },

    // Warehouse-bound fields below the root: out-of-scope records are left out, the query never fails for them.
    'Bodega.existencias': {
      casoDeUso: 'existenciasDeBodegas',
      politica: { tipo: 'anidado', permiso: 'existencias:leer' },
      campo: 'bodegas',
      doc: () => '{ bodegas { id existencias { bodegaId } } }',
    },
    'Producto.bodega': {
      casoDeUso: 'bodegasPorIds',
      politica: { tipo: 'anidado', permiso: 'bodegas:leer' },
      campo: 'productos',
      doc: () => '{ productos { bodega { id } } }',
    },
    'Producto.existencias': {
      casoDeUso: 'existenciasDeProductos',
      politica: { tipo: 'anidado', permiso: 'existencias:leer' },
      campo: 'productos',
      doc: () => '{ productos { existencias { bodegaId } } }',
    },
    'Existencia.bodega': {
      casoDeUso: 'bodegasPorIds',
      politica: { tipo: 'anidado', permiso: 'bodegas:leer' },
      campo: 'bodegas',
      doc: () => '{ bodegas { existencias { bodega { id } } } }',
    },
    'Movimiento.bodega': {
      casoDeUso: 'bodegasPorIds',
      politica: { tipo: 'anidado', permiso: 'bodegas:leer' },
      campo: 'movimientos',
      doc: () => '{ movimientos(first: 1000) { movimientos { bodega { id } } } }',
    },
    'Operacion.movimientos': {
      casoDeUso: 'getOperacion',
      politica: { tipo: 'anidado', permiso: 'existencias:leer', raiz: (p) => tiene(p, 'existencias:leer', [ids.B]) },
      campo: 'operacion',
      doc: (i) => `{ operacion(id: "${i.operacionB}") { movimientos { bodegaId } } }`,
    },
    'MovimientosPagina.movimientos': {
      casoDeUso: 'listMovimientos',
      politica: { tipo: 'anidado', permiso: 'existencias:leer' },
      campo: 'movimientos',
      doc: () => '{ movimientos(first: 1000) { movimientos { bodegaId } } }',
    },
    'ReservasPagina.reservas': {
      casoDeUso: 'reservas.list',
      politica: { tipo: 'anidado', permiso: 'existencias:leer' },
      campo: 'reservas',
      doc: () => '{ reservas { reservas { lineas { bodegaId } } } }',
    },
    'BodegaResponse.bodega': {
      casoDeUso: 'createBodega',
      politica: { tipo: 'carga', de: 'Mutation.crearBodega' },
      campo: '',
      doc: () => '',
    },
    'ExistenciaResponse.existencia': {
      casoDeUso: 'asignarExistencia',
      politica: { tipo: 'carga', de: 'Mutation.asignarProductoABodega' },
      campo: '',
      doc: () => '',
    },
    'OperacionResponse.operacion': {
      casoDeUso: 'registrarMovimiento',
      politica: { tipo: 'carga', de: 'Mutation.registrarMovimiento' },
      campo: '',
      doc: () => '',
    },
    'ReservaResponse.reserva': {
      casoDeUso: 'reservas.crear',
      politica: { tipo: 'carga', de: 'Mutation.crearReserva' },
      campo: '',
      doc: () => '',
    },
    'Query.bodegas>Bodega.productos': {
      casoDeUso: 'productosDeBodegas',
      politica: { tipo: 'anidado', permiso: 'bodegas:leer' },
      campo: 'bodegas',
      doc: () => '{ bodegas { productos { id } } }',
    },
  };

  it('has a policy row for every GraphQL root field and warehouse-bound field', () => {
    const rows = new Set(Object.keys(GQL).map((k) => k.split('>').at(-1)!));
    expect(camposConPolitica().filter((f) => !rows.has(f))).toEqual([]);
    const cargas = Object.values(GQL).flatMap((f) => (f.politica.tipo === 'carga' ? [f.politica.de] : []));
    expect(cargas.filter((de) => !(de in GQL))).toEqual([]);
  });

  it('answers every GraphQL row, for every principal, as the policy says', async () => {
    const wrong: string[] = [];
    const gql = (auth: string, query: string) => stack.request('POST', '/api/graphql', { auth, body: { query } });
    /** Every id of warehouse-bound records in a nested answer (`bodegaId` fields and `bodega { id }`). */
    const bodegasEn = (value: unknown, out: number[] = []): number[] => {
      if (Array.isArray(value)) for (const v of value) bodegasEn(v, out);
      else if (value && typeof value === 'object')
        for (const [k, v] of Object.entries(value)) {
          if (k === 'bodegaId' && typeof v === 'string') out.push(Number(v));
          else if (k === 'bodega' && v && typeof v === 'object') out.push(Number((v as { id: string }).id));
          else bodegasEn(v, out);
        }
      return out;
    };
    await cadaPrincipal(principals, async (principal) => {
      for (const [campo, fila] of Object.entries(GQL)) {
        const politica = fila.politica;
        if (politica.tipo === 'carga') continue;
        const subject = 'subject' in politica ? politica.subject(ids) : 0;
        const res = await gql(principal.auth, fila.doc(ids, subject));
        const data = res.body?.data as Record<string, unknown> | null | undefined;
        const payload = data?.[fila.campo] as { success?: boolean; error?: string } | undefined;
        const label = `${principal.nombre} ${campo}: got ${res.status} ${res.text.slice(0, 240)}`;
        try {
          expect(res.status).toBe(200);
          if (politica.tipo === 'anidado') {
            // Where its root is reachable: no error, and only visible warehouses (the root's own row checks the rest).
            const products = fila.doc(ids, 0).startsWith('{ productos');
            const reaches =
              (politica.raiz?.(principal.permisos) ?? true) &&
              (!products || enTodas(principal.permisos, 'productos:leer'));
            if (reaches) {
              expect(res.body.errors).toBeUndefined();
              const ve = visibleEn(principal.permisos, politica.permiso);
              const seen = bodegasEn(data);
              expect(seen.filter((b) => !ve(b))).toEqual([]);
            }
            continue;
          }
          const want = esperado(politica, principal.permisos);
          const mutation = campo.startsWith('Mutation.');
          if (want.tipo === 'ok') {
            expect(res.body.errors).toBeUndefined();
            if (mutation && typeof payload === 'object' && payload !== null && payload.success === false)
              expect(payload.error ?? '').not.toMatch(/FORBIDDEN|No tiene el permiso|no existe la bodega/i);
            if (politica.tipo === 'lista') await politica.check(res, visibleEn(principal.permisos, politica.permiso));
          } else if (want.tipo === 'prohibido') {
            if (mutation && fila.campo !== 'inicializarBaseDatos') {
              expect(payload).toMatchObject({ success: false });
              expect(payload!.error).toContain(want.permiso);
            } else {
              expect(res.body.errors[0].extensions.classification).toBe('FORBIDDEN');
              expect(res.text).toContain(want.permiso);
            }
          } else {
            const missing = await gql(principal.auth, fila.doc(ids, MISSING));
            expect(res.text).toBe(missing.text.replaceAll(String(MISSING), String(want.id)));
          }
        } catch {
          wrong.push(label);
        }
      }
    });
    expect(wrong).toEqual([]);
  });
});
