import { ERROR_CODES } from '../http/error-middleware';
import { CONFLICTO_DE_EXISTENCIAS, errorResponses, headerRef, jsonResponse, parameterRef, type ErrorStatus, type ParameterName } from './components';
import { bodegaEjemplo, existenciaEjemplo, movimientoEjemplo, operacionEjemplo, otroProductoEjemplo, productoEjemplo, transferenciaEjemplo } from './examples';
import type { Example, Operation, Parameter, PathItem, Reference, Response } from './openapi-types';
import { schemaRef, type SchemaName } from './schemas';

/**
 * The operations of the document as one table, a row per route
 * (docs/contract.md §2.2, §2.7, §10.2, §4.1): what it does, what it takes
 * (parameters, and its body as the zod schema the route parses it with) and
 * what it answers. `pathsOf` turns the rows into OpenAPI path items, with the
 * path parameters each template names.
 */
export interface Route {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  parameters?: ParameterName[];
  /** Parameters of this route alone, written out. */
  queryParameters?: Parameter[];
  body?: { schema: SchemaName; examples: Record<string, Example>; optional?: true };
  /** Its successes, and any error with a body of its own. */
  responses: Record<string, Response | Reference>;
  /** The shared error responses it can answer. */
  errors: readonly ErrorStatus[];
  /** `[]` for a route without authentication. */
  security?: [];
}

/** Errors any authenticated /api call can answer; of a call that reaches a service; of a keyed write (in use, reused); of a JSON body. */
export const API: ErrorStatus[] = [401, 429, 500];
const DOWN: ErrorStatus[] = [503, 504];
const KEYED: ErrorStatus[] = [409, 422];
const BODY: ErrorStatus[] = [400, 413, 415];
/** A read of one record by id, and a write of one (409 is the route's own). */
const READ: ErrorStatus[] = [400, 404, ...API, ...DOWN];
const WRITE: ErrorStatus[] = [...BODY, 404, 422, ...API, ...DOWN];

const H = {
  etag: { ETag: headerRef('ETag') },
  etagBodega: { ETag: headerRef('ETagBodega') },
  location: { Location: headerRef('Location') },
  replayed: { 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
};
export const ex = (value: unknown, summary?: string): Example => (summary ? { summary, value } : { value });
const noBody = (description: string, headers: Response['headers']): Response => ({ description, headers });
const lista = (description: string, schema: SchemaName, examples: Record<string, unknown>) =>
  jsonResponse(description, { type: 'array', items: schemaRef(schema) }, examples);
const producto = (description: string, headers = {}) => jsonResponse(description, 'Producto', { producto: productoEjemplo }, { ...H.etag, ...headers });
const ejemplo = (description: string, schema: SchemaName, value: unknown, headers?: Response['headers']) =>
  jsonResponse(description, schema, { ejemplo: value }, headers);
/** A 201 of a stock command: the operation it wrote, where to read it again. */
const operacionCreada = (description: string, value: unknown) => ejemplo(description, 'Operacion', value, { ...H.location, ...H.replayed });
const sinCambios = (what: string, headers: Response['headers'] = H.etag) => noBody(`If-None-Match nombra ${what}; sin cuerpo.`, headers);
const STOCK_CONFLICT = { 409: CONFLICTO_DE_EXISTENCIAS };
const ESCRITURA_SEGURA: ParameterName[] = ['IfMatch', 'IdempotencyKey'];
const ESCRITURA_DE_EXISTENCIA: ParameterName[] = ['IfMatchExistencia', 'IdempotencyKey'];

const PRODUCTOS = { tag: 'Productos' };
const BODEGAS = { tag: 'Bodegas' };
const EXISTENCIAS = { tag: 'Existencias' };

export const REST_ROUTES: Route[] = [
  {
    ...PRODUCTOS,
    method: 'get',
    path: '/api/productos',
    operationId: 'listarProductos',
    summary: 'Lista los productos',
    description: 'En orden de id. Sin parámetros devuelve la lista completa; `limit` y `offset` paginan, `bodegaId` y `q` filtran.',
    parameters: ['Limit', 'Offset', 'BodegaIdFiltro', 'Q'],
    responses: { 200: lista('Los productos.', 'Producto', { productos: [productoEjemplo, otroProductoEjemplo] }) },
    errors: [400, ...API, ...DOWN],
  },
  {
    ...PRODUCTOS,
    method: 'post',
    path: '/api/productos',
    operationId: 'crearProducto',
    summary: 'Crea un producto',
    description:
      'Publica el evento ProductoCreado. Si trae `bodegaId`, la bodega debe existir (si no, 400). ' +
      'Con Idempotency-Key, repetirla es seguro: nunca crea un segundo producto.',
    parameters: ['IdempotencyKey'],
    body: {
      schema: 'ProductoCreate',
      examples: {
        producto: ex({ nombre: 'Tornillo M6', descripcion: 'Tornillo de acero inoxidable, caja de 100', precio: 19.9, cantidadEnStock: 500, bodegaId: 3 }),
      },
    },
    responses: { 201: producto('El producto creado (versión 1).', { ...H.location, ...H.replayed }) },
    errors: [...BODY, ...KEYED, ...API, ...DOWN],
  },
  {
    ...PRODUCTOS,
    method: 'get',
    path: '/api/productos/{id}',
    operationId: 'obtenerProducto',
    summary: 'Obtiene un producto',
    parameters: ['IfNoneMatch'],
    responses: { 200: producto('El producto; su ETag es su versión.'), 304: sinCambios('la versión actual') },
    errors: READ,
  },
  {
    ...PRODUCTOS,
    method: 'put',
    path: '/api/productos/{id}',
    operationId: 'actualizarProducto',
    summary: 'Actualiza un producto (parcialmente)',
    description:
      'Solo cambian los campos presentes. Publica el evento ProductoActualizado. ' +
      'Con If-Match solo se aplica sobre esa versión (si no, 412); admite Idempotency-Key.',
    parameters: ESCRITURA_SEGURA,
    body: { schema: 'ProductoUpdate', examples: { precio: ex({ precio: 21.5 }, 'Cambiar solo el precio') } },
    responses: { 200: producto('El producto actualizado; la ETag es la nueva versión.', H.replayed) },
    errors: [...WRITE, 409, 412],
  },
  {
    ...PRODUCTOS,
    method: 'delete',
    path: '/api/productos/{id}',
    operationId: 'eliminarProducto',
    summary: 'Elimina un producto',
    description: 'Publica el evento ProductoEliminado. Admite If-Match e Idempotency-Key.',
    parameters: ESCRITURA_SEGURA,
    responses: { 204: noBody('Eliminado; sin cuerpo.', H.replayed) },
    errors: [...READ, 409, 412, 422],
  },
  {
    ...BODEGAS,
    method: 'get',
    path: '/api/bodegas',
    operationId: 'listarBodegas',
    summary: 'Lista las bodegas',
    description: 'En orden de id.',
    responses: { 200: lista('Las bodegas.', 'Bodega', { bodegas: [bodegaEjemplo] }) },
    errors: [...API, ...DOWN],
  },
  {
    ...BODEGAS,
    method: 'post',
    path: '/api/bodegas',
    operationId: 'crearBodega',
    summary: 'Crea una bodega',
    description: 'El nombre debe ser único (si no, 409). Publica el evento BodegaCreada. Admite Idempotency-Key.',
    parameters: ['IdempotencyKey'],
    body: { schema: 'BodegaCreate', examples: { bodega: ex({ nombre: 'Bodega Central', ubicacion: 'Calle Mayor 10, Madrid', capacidad: 1000 }) } },
    responses: {
      201: jsonResponse(
        'Creada: un mensaje y el id asignado.',
        'BodegaCreada',
        { creada: { mensaje: 'Bodega creada exitosamente', id: 3 } },
        {
          ...H.location,
          ...H.etagBodega,
          ...H.replayed,
        },
      ),
    },
    errors: [...BODY, ...KEYED, ...API, ...DOWN],
  },
  {
    ...BODEGAS,
    method: 'get',
    path: '/api/bodegas/{id}',
    operationId: 'obtenerBodega',
    summary: 'Obtiene una bodega',
    parameters: ['IfNoneMatch'],
    responses: {
      200: jsonResponse('La bodega; su ETag, su versión y su ocupación.', 'Bodega', { bodega: bodegaEjemplo }, H.etagBodega),
      304: sinCambios('la ETag actual (versión y ocupación)', H.etagBodega),
    },
    errors: READ,
  },
  {
    ...BODEGAS,
    method: 'put',
    path: '/api/bodegas/{id}',
    operationId: 'actualizarBodega',
    summary: 'Actualiza una bodega (parcialmente)',
    description:
      'Solo cambian los campos presentes; el nombre nuevo debe ser único (si no, 409 ALREADY_EXISTS) y la capacidad no puede bajar ' +
      'de la ocupación (si no, 409 CAPACIDAD_INSUFICIENTE con capacidad y ocupacion). Publica el evento BodegaActualizada. ' +
      'Admite If-Match e Idempotency-Key.',
    parameters: ESCRITURA_SEGURA,
    body: { schema: 'BodegaUpdate', examples: { bodega: ex({ capacidad: 1500 }) } },
    responses: {
      200: jsonResponse(
        'Actualizada; la ETag lleva la nueva versión.',
        'Mensaje',
        { actualizada: { mensaje: 'Bodega actualizada exitosamente' } },
        {
          ...H.etagBodega,
          ...H.replayed,
        },
      ),
      ...STOCK_CONFLICT,
    },
    errors: [...WRITE, 412],
  },
  {
    ...BODEGAS,
    method: 'delete',
    path: '/api/bodegas/{id}',
    operationId: 'eliminarBodega',
    summary: 'Elimina una bodega (borrado seguro)',
    description:
      'Sin `force`, una bodega que guarda productos (asignados o con existencias en ella) no se elimina (409 con la lista); ' +
      'una vacía se elimina (204). Con `force=true` se elimina igualmente: sus productos quedan sin bodega y sus existencias se dan de baja ' +
      '(motivo BODEGA_ELIMINADA) en la misma transacción (200 con el detalle). ' +
      'Publica el evento BodegaEliminada. Admite If-Match (comprobado antes de tocar ningún producto) e Idempotency-Key ' +
      '(con `force=true`, una repetición completa lo que faltara o devuelve el mismo informe).',
    parameters: ['Force', ...ESCRITURA_SEGURA],
    responses: {
      200: jsonResponse(
        'Eliminada con `force=true`; los productos afectados conservan sus datos pero pierden la bodega.',
        'BodegaEliminadaForzada',
        {
          forzada: {
            mensaje: 'Bodega eliminada exitosamente',
            bodegaId: '3',
            productosAfectados: 2,
            detalleProductos: [productoEjemplo, otroProductoEjemplo],
            advertencia: '2 producto(s) quedaron sin bodega asignada; siguen existiendo y pueden asignarse a otra bodega',
            existenciasRetiradas: 0,
            unidadesRetiradas: 0,
          },
        },
        H.replayed,
      ),
      204: noBody('La bodega estaba vacía y se eliminó; sin cuerpo.', H.replayed),
      409: jsonResponse(
        'La bodega guarda productos y no se pasó `force=true`: no se elimina nada (BodegaConProductos). ' +
          'O la petición con esta Idempotency-Key aún se está ejecutando (Error IDEMPOTENCY_KEY_IN_USE, con Retry-After).',
        { anyOf: [schemaRef('BodegaConProductos'), schemaRef('Error')] },
        {
          conProductos: {
            error: ERROR_CODES.bodegaConProductos,
            mensaje: 'La bodega 3 tiene 1 producto(s) asignado(s); use force=true para eliminarla de todos modos',
            productos: [productoEjemplo],
            bodegaId: '3',
            totalProductos: 1,
          },
        },
        { 'Retry-After': headerRef('RetryAfterSiClaveEnUso') },
      ),
    },
    errors: [...READ, 412, 422],
  },
  {
    ...BODEGAS,
    method: 'get',
    path: '/api/bodegas/{id}/productos',
    operationId: 'listarProductosDeBodega',
    summary: 'Lista los productos de una bodega',
    responses: {
      200: lista(
        'Los productos asignados a la bodega y los que tienen existencias en ella, en orden de id. ' +
          'Con existencias, cantidad son sus unidades en esta bodega; si no, su cantidadEnStock.',
        'ProductoDeBodega',
        { productos: [{ id: 12, nombre: 'Tornillo M6', cantidad: 500, precio: 19.9 }] },
      ),
    },
    errors: READ,
  },
  {
    ...EXISTENCIAS,
    method: 'post',
    path: '/api/bodegas/{id}/productos',
    operationId: 'asignarProductoABodega',
    summary: 'Fija las unidades de un producto en una bodega',
    description:
      'Llamada de la pasarela anterior. Fija las existencias del producto en la bodega en `cantidad` (una línea AJUSTE con motivo ' +
      'ASIGNACION por la diferencia) y responde con la ETag de la existencia. No cambia el bodegaId del producto. ' +
      'El producto y la bodega deben existir (404, `detalles` dice cuál). Admite If-Match (la versión de la existencia, o `*`) ' +
      'e Idempotency-Key.',
    parameters: ESCRITURA_DE_EXISTENCIA,
    body: { schema: 'Asignacion', examples: { asignacion: ex({ productoId: 12, cantidad: 40, umbralMinimo: 5 }) } },
    responses: {
      200: ejemplo(
        'Fijadas; la ETag es la nueva versión de la existencia.',
        'AsignacionHecha',
        {
          mensaje: 'Producto asignado a la bodega exitosamente',
          productoId: 12,
          bodegaId: 3,
          cantidad: 40,
        },
        { ...H.etag, ...H.replayed },
      ),
      ...STOCK_CONFLICT,
    },
    errors: [...WRITE, 412],
  },
  {
    ...EXISTENCIAS,
    method: 'delete',
    path: '/api/bodegas/{id}/productos/{productoId}',
    operationId: 'retirarProductoDeBodega',
    summary: 'Retira un producto de una bodega',
    description:
      'Llamada de la pasarela anterior. Da de baja las unidades que quedan (motivo RETIRO), elimina la existencia y, si el bodegaId ' +
      'del producto era esta bodega, lo deja en null. 404 si el producto no tiene existencias ni está asignado a ella. ' +
      'Admite If-Match (la versión de la existencia, o `*`) e Idempotency-Key (una repetición completa lo que faltara).',
    parameters: ESCRITURA_DE_EXISTENCIA,
    responses: {
      200: ejemplo(
        'Retirado.',
        'RetiroHecho',
        {
          mensaje: 'Producto retirado de la bodega exitosamente',
          productoId: 12,
          bodegaId: 3,
          cantidadRetirada: 40,
        },
        H.replayed,
      ),
    },
    errors: [...READ, 409, 412, 422],
  },
  {
    ...EXISTENCIAS,
    method: 'get',
    path: '/api/bodegas/{id}/existencias',
    operationId: 'listarExistenciasDeBodega',
    summary: 'Existencias de una bodega',
    description: 'Su capacidad, su ocupación y todas sus existencias, en orden de id de producto.',
    responses: { 200: ejemplo('Las existencias.', 'ExistenciasDeBodega', { bodegaId: 3, capacidad: 1000, ocupacion: 40, existencias: [existenciaEjemplo] }) },
    errors: READ,
  },
  {
    ...EXISTENCIAS,
    method: 'get',
    path: '/api/bodegas/{id}/existencias/{productoId}',
    operationId: 'obtenerExistencia',
    summary: 'Existencias de un producto en una bodega',
    description: 'Su ETag es su versión: envíela en If-Match para escribir sobre ella (un AJUSTE la exige).',
    parameters: ['IfNoneMatch'],
    responses: { 200: ejemplo('La existencia.', 'Existencia', existenciaEjemplo, H.etag), 304: sinCambios('la versión actual') },
    errors: READ,
  },
  {
    ...EXISTENCIAS,
    method: 'get',
    path: '/api/productos/{id}/existencias',
    operationId: 'listarExistenciasDeProducto',
    summary: 'Existencias de un producto en todas las bodegas',
    responses: {
      200: ejemplo('Su total y sus existencias por bodega.', 'ExistenciasDeProducto', { productoId: 12, total: 40, porBodega: [existenciaEjemplo] }),
    },
    errors: READ,
  },
  {
    ...EXISTENCIAS,
    method: 'post',
    path: '/api/bodegas/{id}/movimientos',
    operationId: 'registrarMovimiento',
    summary: 'Registra una entrada, una salida o un ajuste',
    description:
      'ENTRADA y SALIDA mueven unidades; AJUSTE fija la cantidad contada y exige If-Match con la versión de la existencia (428 sin él). ' +
      'Una SALIDA por encima de lo que hay es 409 STOCK_INSUFICIENTE; una ENTRADA que pase la capacidad, 409 CAPACIDAD_EXCEDIDA. ' +
      'Publica MovimientoRegistrado. Admite Idempotency-Key.',
    parameters: ESCRITURA_DE_EXISTENCIA,
    body: {
      schema: 'MovimientoCreate',
      examples: {
        entrada: ex({ productoId: 12, tipo: 'ENTRADA', cantidad: 50, motivo: 'RECEPCION' }, 'Recepción de mercancía'),
        salida: ex({ productoId: 12, tipo: 'SALIDA', cantidad: 3, comentario: 'Pedido 8812' }, 'Venta'),
        conteo: ex({ productoId: 12, tipo: 'AJUSTE', cantidad: 38 }, 'Conteo físico (con If-Match)'),
      },
    },
    responses: { 201: operacionCreada('La operación y su línea.', operacionEjemplo), ...STOCK_CONFLICT },
    errors: [...WRITE, 412, 428],
  },
  {
    ...EXISTENCIAS,
    method: 'post',
    path: '/api/transferencias',
    operationId: 'transferirStock',
    summary: 'Transfiere unidades entre dos bodegas',
    description:
      'Una sola operación con dos líneas TRANSFERENCIA: o ambas o ninguna. 409 STOCK_INSUFICIENTE en el origen o CAPACIDAD_EXCEDIDA ' +
      'en el destino. Publica un solo MovimientoRegistrado. Admite Idempotency-Key.',
    parameters: ['IdempotencyKey'],
    body: {
      schema: 'TransferenciaCreate',
      examples: { transferencia: ex({ productoId: 12, origenId: 3, destinoId: 4, cantidad: 5, comentario: 'Reposición de la tienda' }) },
    },
    responses: { 201: operacionCreada('La operación con sus dos líneas.', transferenciaEjemplo), ...STOCK_CONFLICT },
    errors: WRITE,
  },
  {
    ...EXISTENCIAS,
    method: 'get',
    path: '/api/operaciones/{id}',
    operationId: 'obtenerOperacion',
    summary: 'Obtiene una operación con sus líneas',
    responses: { 200: ejemplo('La operación.', 'Operacion', operacionEjemplo) },
    errors: READ,
  },
  {
    ...EXISTENCIAS,
    method: 'post',
    path: '/api/operaciones/{id}/reverso',
    operationId: 'revertirOperacion',
    summary: 'Revierte una operación',
    description:
      'Escribe, en una operación REVERSO, una línea contraria por cada línea de la original. 409 si dejaría una existencia en negativo ' +
      '(STOCK_INSUFICIENTE) o una bodega por encima de su capacidad (CAPACIDAD_EXCEDIDA), si ya se revirtió (OPERACION_YA_REVERTIDA) ' +
      'o si no se puede revertir (OPERACION_NO_REVERSIBLE: un reverso, una baja por producto o bodega eliminados). El cuerpo es opcional. ' +
      'Admite Idempotency-Key.',
    parameters: ['IdempotencyKey'],
    body: { schema: 'ReversoCreate', examples: { reverso: ex({ comentario: 'Venta anulada' }) }, optional: true },
    responses: {
      201: operacionCreada('La operación de reverso.', {
        ...operacionEjemplo,
        id: 11,
        tipo: 'REVERSO',
        comentario: 'Venta anulada',
        revierteA: 9,
        movimientos: [
          {
            ...movimientoEjemplo,
            id: 34,
            operacionId: 11,
            motivo: 'REVERSO',
            cantidad: 3,
            cantidadAnterior: 40,
            cantidadPosterior: 43,
            version: 4,
            comentario: 'Venta anulada',
          },
        ],
      }),
      ...STOCK_CONFLICT,
    },
    errors: WRITE,
  },
  {
    ...EXISTENCIAS,
    method: 'get',
    path: '/api/movimientos',
    operationId: 'listarMovimientos',
    summary: 'El libro de movimientos',
    description: 'Los más recientes primero, por páginas: pase `siguienteCursor` como `cursor`, con los mismos filtros.',
    parameters: ['MovimientosBodegaId', 'MovimientosProductoId', 'MovimientosTipo', 'Desde', 'Hasta', 'LimitMovimientos', 'Cursor'],
    responses: { 200: ejemplo('Una página de líneas.', 'MovimientosPagina', { movimientos: [movimientoEjemplo], siguienteCursor: 'MzE' }) },
    errors: [400, ...API, ...DOWN],
  },
  {
    ...EXISTENCIAS,
    method: 'get',
    path: '/api/existencias/verificacion',
    operationId: 'verificarExistencias',
    summary: 'Verifica las existencias contra el libro',
    description: 'Recalcula cada existencia desde sus líneas y cada ocupación desde sus existencias, e informa de cada diferencia; nunca corrige.',
    responses: { 200: ejemplo('El resultado.', 'Verificacion', { consistente: true, diferencias: [], nivelesVerificados: 120, bodegasVerificadas: 4 }) },
    errors: [...API, ...DOWN],
  },
];

const health = (description: string, value: unknown) => jsonResponse(description, 'Health', { estado: value });
const componente = (status: 'UP' | 'DOWN', grpc: string, breaker: string) => ({ status, details: { grpc, breaker } });
const SALUD = { tag: 'Salud', security: [] as [], errors: [] };
const DOCUMENTACION = { tag: 'Documentación', errors: API };

/** Health probes (no authentication) and this documentation itself. */
export const SERVICE_ROUTES: Route[] = [
  {
    ...SALUD,
    method: 'get',
    path: '/actuator/health',
    operationId: 'salud',
    summary: 'Estado del BFF y de sus dependencias',
    description: 'Sin autenticación.',
    responses: {
      200: health('Todo funciona.', {
        status: 'UP',
        components: { productoSvc: componente('UP', 'SERVING', 'closed'), bodegaSvc: componente('UP', 'SERVING', 'closed') },
      }),
      503: health('Alguna dependencia no responde.', {
        status: 'DOWN',
        components: { productoSvc: componente('DOWN', 'UNAVAILABLE', 'open'), bodegaSvc: componente('UP', 'SERVING', 'closed') },
      }),
    },
  },
  {
    ...SALUD,
    method: 'get',
    path: '/actuator/health/liveness',
    operationId: 'saludLiveness',
    summary: 'Sonda de vida (liveness)',
    description: 'Sin autenticación. Responde mientras el proceso funciona, aunque sus dependencias no.',
    responses: { 200: health('El proceso funciona.', { status: 'UP' }) },
  },
  {
    ...SALUD,
    method: 'get',
    path: '/actuator/health/readiness',
    operationId: 'saludReadiness',
    summary: 'Sonda de disponibilidad (readiness)',
    description:
      'Sin autenticación. UP mientras el BFF acepta peticiones; DOWN (503) desde que empieza el apagado, para que el ' +
      'balanceador deje de enviarle tráfico. No depende de los servicios internos: el BFF se degrada por ruta ' +
      '(si producto-svc cae, las rutas de bodegas siguen funcionando).',
    responses: { 200: health('Acepta peticiones.', { status: 'UP' }), 503: health('Se está apagando.', { status: 'DOWN' }) },
  },
  {
    ...DOCUMENTACION,
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'openapi',
    summary: 'Este documento OpenAPI 3.1',
    responses: { 200: jsonResponse('El documento.', 'OpenApi') },
  },
  {
    ...DOCUMENTACION,
    method: 'get',
    path: '/api/docs/',
    operationId: 'referencia',
    summary: 'Página de referencia de la API (Swagger UI)',
    description: '`/api/docs` redirige aquí. La página carga `/api/openapi.json` con las mismas credenciales.',
    responses: { 200: { description: 'La página HTML.', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
];

/** The path parameter a template's `{name}` stands for, by the collection it follows. */
function pathParameter(path: string, name: string): ParameterName {
  if (name === 'productoId') return 'ProductoIdDeRuta';
  const collection = path.split('/')[2];
  return collection === 'productos' ? 'ProductoId' : collection === 'bodegas' ? 'BodegaId' : 'OperacionId';
}

function operationOf({ operationId, summary, description, tag, security, body, ...route }: Route): Operation {
  const parameters = [...(route.parameters ?? []).map(parameterRef), ...(route.queryParameters ?? [])];
  return {
    operationId,
    summary,
    ...(description ? { description } : {}),
    tags: [tag],
    ...(security ? { security } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body
      ? { requestBody: { required: !body.optional, content: { 'application/json': { schema: schemaRef(body.schema), examples: body.examples } } } }
      : {}),
    responses: { ...errorResponses(route.errors), ...route.responses },
  };
}

/** The table as OpenAPI path items, in the order of its rows. */
export function pathsOf(routes: readonly Route[]): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const route of routes) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const item = (paths[route.path] ??= names.length ? { parameters: names.map((name) => parameterRef(pathParameter(route.path, name))) } : {});
    item[route.method] = operationOf(route);
  }
  return paths;
}
