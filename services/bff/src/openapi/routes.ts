import type {
  ExampleObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
} from 'openapi3-ts/oas31';
import { ERROR_CODES } from '../http/error-middleware';
import { CONFLICTO_DE_EXISTENCIAS, errorResponses, headerRefs, json, parameterRef, parameters } from './components';
import type { ErrorStatus, HeaderName, ParameterName } from './components';
import { schemaRef, type SchemaName } from './schemas';

/**
 * The operations as tables, a row per route (docs/contract.md §2.2, §2.7, §10.2, §4.1): what it takes (shared
 * parameters by name, its own query parameters, its
 * body as the zod schema it parses with), its own responses, and any shared error `errorsOf` cannot derive.
 */
export interface Route {
  route: `${'get' | 'post' | 'put' | 'patch' | 'delete'} /${string}`;
  operationId: string;
  summary: string;
  description?: string;
  parameters?: ParameterName[];
  queryParameters?: ParameterObject[];
  body?: { schema: SchemaName; examples: Record<string, ExampleObject>; optional?: true };
  responses: Record<string, ResponseObject | ReferenceObject>;
  errors?: ErrorStatus[];
  /** `[]` for a route without authentication. */
  security?: [];
}
export const op = (
  route: Route['route'],
  operationId: string,
  summary: string,
  rest: Omit<Route, 'route' | 'operationId' | 'summary'>,
): Route => {
  return { route, operationId, summary, ...rest };
};
export const ex = (value: unknown, summary?: string): ExampleObject => (summary ? { summary, value } : { value });

// Sample values, in Spanish like the data the service holds (the unit test checks each against its schema).
const creado = { fechaCreacion: '2026-11-22T14:03:07', fechaActualizacion: '2026-11-22T14:03:07' };
const productoNuevo = {
  nombre: 'Tornillo M6',
  descripcion: 'Tornillo de acero inoxidable, caja de 100',
  precio: 19.9,
  cantidadEnStock: 500,
  bodegaId: 3,
};
const producto = { id: 12, ...productoNuevo, ...creado, version: 1 };
const martillo = {
  nombre: 'Martillo de carpintero',
  descripcion: null,
  precio: 12.5,
  cantidadEnStock: 40,
  bodegaId: 3,
};
const otroProducto = {
  id: 13,
  ...martillo,
  fechaCreacion: '2026-11-22T14:05:41',
  fechaActualizacion: '2026-11-23T09:12:00',
  version: 4,
};
const bodegaNueva = { nombre: 'Bodega Central', ubicacion: 'Calle Mayor 10, Madrid', capacidad: 1000 };
const bodega = {
  id: 3,
  ...bodegaNueva,
  ocupacion: 540,
  fechaCreacion: '2026-11-20T08:00:00',
  fechaActualizacion: '2026-11-20T08:00:00',
  version: 1,
};
const nivel = { bodegaId: 3, productoId: 12, cantidad: 40, umbralMinimo: 5, version: 3 };
const existencia = {
  ...nivel,
  fechaCreacion: '2026-11-25T10:00:00',
  fechaActualizacion: '2026-11-25T10:05:00',
  reservada: 4,
  disponible: 36,
  alertaSobre: 'CANTIDAD',
};
const linea = {
  bodegaId: 3,
  productoId: 12,
  tipo: 'SALIDA',
  motivo: 'VENTA',
  cantidad: -3,
  cantidadAnterior: 43,
  cantidadPosterior: 40,
};
const movimiento = {
  id: 31,
  operacionId: 9,
  ...linea,
  version: 3,
  usuario: 'admin',
  comentario: null,
  fecha: '2026-11-25T10:05:00',
};
const sinReverso = { usuario: 'admin', revierteA: null, revertidaPor: null };
const operacion = {
  id: 9,
  tipo: 'SALIDA',
  ...sinReverso,
  comentario: null,
  fecha: '2026-11-25T10:05:00',
  movimientos: [movimiento],
};
const reposicion = { comentario: 'Reposición de la tienda', fecha: '2026-11-25T11:00:00' };
const lineaDe = (cambios: object) => ({
  ...movimiento,
  operacionId: 10,
  tipo: 'TRANSFERENCIA',
  motivo: 'TRANSFERENCIA',
  ...reposicion,
  ...cambios,
});
const salida = lineaDe({ id: 32, cantidad: -5, cantidadAnterior: 40, cantidadPosterior: 35, version: 4 });
const entrada = lineaDe({ id: 33, bodegaId: 4, cantidad: 5, cantidadAnterior: 0, cantidadPosterior: 5, version: 1 });
const transferencia = { id: 10, tipo: 'TRANSFERENCIA', ...sinReverso, ...reposicion, movimientos: [salida, entrada] };
const anulada = { comentario: 'Venta anulada' };
const deReverso = {
  id: 34,
  operacionId: 11,
  motivo: 'REVERSO',
  cantidad: 3,
  cantidadAnterior: 40,
  cantidadPosterior: 43,
  version: 4,
};
const contraria = { ...movimiento, ...deReverso, ...anulada };
const reverso = { ...operacion, id: 11, tipo: 'REVERSO', ...anulada, revierteA: 9, movimientos: [contraria] };
const ADVERTENCIA = '2 producto(s) quedaron sin bodega asignada; siguen existiendo y pueden asignarse a otra bodega';
const afectados = { productosAfectados: 2, detalleProductos: [producto, otroProducto], advertencia: ADVERTENCIA };
const forzada = {
  mensaje: 'Bodega eliminada exitosamente',
  bodegaId: '3',
  ...afectados,
  existenciasRetiradas: 0,
  unidadesRetiradas: 0,
};
const CON_PRODUCTOS = 'La bodega 3 tiene 1 producto(s) asignado(s); use force=true para eliminarla de todos modos';
const conProductos = {
  error: ERROR_CODES.bodegaConProductos,
  mensaje: CON_PRODUCTOS,
  productos: [producto],
  bodegaId: '3',
  totalProductos: 1,
};
const asignado = { mensaje: 'Producto asignado a la bodega exitosamente', productoId: 12, bodegaId: 3, cantidad: 40 };
const retirado = {
  mensaje: 'Producto retirado de la bodega exitosamente',
  productoId: 12,
  bodegaId: 3,
  cantidadRetirada: 40,
};
const creada = { mensaje: 'Bodega creada exitosamente', id: 3 };
const actualizada = { mensaje: 'Bodega actualizada exitosamente' };
const ELIMINADA_CON_FORCE =
  'Eliminada con `force=true`; los productos afectados conservan sus datos pero pierden la bodega.';
const CON_PRODUCTOS_O_EN_USO =
  'La bodega guarda productos y no se pasó `force=true`: no se elimina nada (BodegaConProductos). O la petición ' +
  'con esta Idempotency-Key aún se está ejecutando (Error IDEMPOTENCY_KEY_IN_USE, con Retry-After).';
const PRODUCTOS_DE_BODEGA =
  'Los productos asignados a la bodega y los que tienen existencias en ella, en orden de id. Con existencias, ' +
  'cantidad son sus unidades en esta bodega; si no, su cantidadEnStock.';
const verificacion = {
  consistente: true,
  diferencias: [],
  nivelesVerificados: 120,
  bodegasVerificadas: 4,
  diferenciasReservas: [],
  verificadoEn: '2026-11-22T14:03:07',
};

const noBody = (description: string, ...headers: HeaderName[]): ResponseObject => ({
  description,
  headers: headerRefs(...headers),
});
const lista = (schema: SchemaName, description: string, examples: object) =>
  json({ type: 'array', items: schemaRef(schema) }, description, examples);
const productoResponse = (description: string, ...headers: HeaderName[]) =>
  json('Producto', description, { producto }, 'ETag', ...headers);
const ejemplo = (schema: SchemaName, description: string, ejemplo: unknown, ...headers: HeaderName[]) =>
  json(schema, description, { ejemplo }, ...headers);
/** A 201 of a stock command: the operation it wrote, where to read it again. */
const operacionCreada = (description: string, value: unknown) =>
  ejemplo('Operacion', description, value, 'Location', 'IdempotentReplayed');
const sinCambios = (what: string, etag: HeaderName = 'ETag') =>
  noBody(`If-None-Match nombra ${what}; sin cuerpo.`, etag);
const STOCK_CONFLICT = { 409: CONFLICTO_DE_EXISTENCIAS };
const ESCRITURA_SEGURA: ParameterName[] = ['IfMatch', 'IdempotencyKey'];
const ESCRITURA_DE_EXISTENCIA: ParameterName[] = ['IfMatchExistencia', 'IdempotencyKey'];
const ENTRADA = ex({ productoId: 12, tipo: 'ENTRADA', cantidad: 50, motivo: 'RECEPCION' }, 'Recepción de mercancía');
const SALIDA = ex({ productoId: 12, tipo: 'SALIDA', cantidad: 3, comentario: 'Pedido 8812' }, 'Venta');
const CONTEO = ex({ productoId: 12, tipo: 'AJUSTE', cantidad: 38 }, 'Conteo físico (con If-Match)');
const TRANSFERENCIA = ex({
  productoId: 12,
  origenId: 3,
  destinoId: 4,
  cantidad: 5,
  comentario: 'Reposición de la tienda',
});

/** The REST routes, by tag. */
const REST: Record<string, Route[]> = {
  Productos: [
    op('get /api/productos', 'listarProductos', 'Lista los productos', {
      description:
        'En orden de id. Sin parámetros devuelve la lista completa; `limit` y `offset` paginan, ' +
        '`bodegaId` y `q` filtran.',
      parameters: ['Limit', 'Offset', 'BodegaIdFiltro', 'Q'],
      responses: { 200: lista('Producto', 'Los productos.', { productos: [producto, otroProducto] }) },
    }),
    op('post /api/productos', 'crearProducto', 'Crea un producto', {
      description:
        'Publica el evento ProductoCreado. Si trae `bodegaId`, la bodega debe existir (si no, 400). Con ' +
        'Idempotency-Key, repetirla es seguro: nunca crea un segundo producto.',
      parameters: ['IdempotencyKey'],
      body: { schema: 'ProductoCreate', examples: { producto: ex(productoNuevo) } },
      responses: { 201: productoResponse('El producto creado (versión 1).', 'Location', 'IdempotentReplayed') },
    }),
    op('get /api/productos/{id}', 'obtenerProducto', 'Obtiene un producto', {
      parameters: ['IfNoneMatch'],
      responses: { 200: productoResponse('El producto; su ETag es su versión.'), 304: sinCambios('la versión actual') },
    }),
    op('put /api/productos/{id}', 'actualizarProducto', 'Actualiza un producto (parcialmente)', {
      description:
        'Solo cambian los campos presentes. Publica el evento ProductoActualizado. Con If-Match solo se aplica ' +
        'sobre esa versión (si no, 412); admite Idempotency-Key.',
      parameters: ESCRITURA_SEGURA,
      body: { schema: 'ProductoUpdate', examples: { precio: ex({ precio: 21.5 }, 'Cambiar solo el precio') } },
      responses: {
        200: productoResponse('El producto actualizado; la ETag es la nueva versión.', 'IdempotentReplayed'),
      },
    }),
    op('delete /api/productos/{id}', 'eliminarProducto', 'Elimina un producto', {
      description: 'Publica el evento ProductoEliminado. Admite If-Match e Idempotency-Key.',
      parameters: ESCRITURA_SEGURA,
      responses: { 204: noBody('Eliminado; sin cuerpo.', 'IdempotentReplayed') },
    }),
  ],
  Bodegas: [
    op('get /api/bodegas', 'listarBodegas', 'Lista las bodegas', {
      description: 'En orden de id.',
      responses: { 200: lista('Bodega', 'Las bodegas.', { bodegas: [bodega] }) },
    }),
    op('post /api/bodegas', 'crearBodega', 'Crea una bodega', {
      description: 'El nombre debe ser único (si no, 409). Publica el evento BodegaCreada. Admite Idempotency-Key.',
      parameters: ['IdempotencyKey'],
      body: { schema: 'BodegaCreate', examples: { bodega: ex(bodegaNueva) } },
      responses: {
        201: json(
          'BodegaCreada',
          'Creada: un mensaje y el id asignado.',
          { creada },
          'Location',
          'ETagBodega',
          'IdempotentReplayed',
        ),
      },
    }),
    op('get /api/bodegas/{id}', 'obtenerBodega', 'Obtiene una bodega', {
      parameters: ['IfNoneMatch'],
      responses: {
        200: json('Bodega', 'La bodega; su ETag, su versión y su ocupación.', { bodega }, 'ETagBodega'),
        304: sinCambios('la ETag actual (versión y ocupación)', 'ETagBodega'),
      },
    }),
    op('put /api/bodegas/{id}', 'actualizarBodega', 'Actualiza una bodega (parcialmente)', {
      description:
        'Solo cambian los campos presentes; el nombre nuevo debe ser único (si no, 409 ALREADY_EXISTS) y la ' +
        'capacidad no puede bajar de la ocupación (si no, 409 CAPACIDAD_INSUFICIENTE con capacidad y ocupacion). ' +
        'Una bodega que se está eliminando con `force=true` no admite cambios (409 BODEGA_ELIMINANDOSE con ' +
        'bodegaId). Publica el evento BodegaActualizada. Admite If-Match e Idempotency-Key.',
      parameters: ESCRITURA_SEGURA,
      body: { schema: 'BodegaUpdate', examples: { bodega: ex({ capacidad: 1500 }) } },
      responses: {
        200: json(
          'Mensaje',
          'Actualizada; la ETag lleva la nueva versión.',
          { actualizada },
          'ETagBodega',
          'IdempotentReplayed',
        ),
        ...STOCK_CONFLICT,
      },
    }),
    op('delete /api/bodegas/{id}', 'eliminarBodega', 'Elimina una bodega (borrado seguro)', {
      description:
        'Sin `force`, una bodega que guarda productos (asignados o con existencias en ella) no se elimina (409 con ' +
        'la lista); una vacía se elimina (204). Con `force=true` se elimina igualmente: primero se marca como «en ' +
        'eliminación» comprobando If-Match (412 sin cambiar nada si no coincide; desde ahí no admite escrituras, ' +
        '409 BODEGA_ELIMINANDOSE), luego sus productos quedan sin bodega y sus existencias se dan de baja (motivo ' +
        'BODEGA_ELIMINADA) en transacciones acotadas, y la bodega se elimina la última (200 con el detalle). ' +
        'Publica el evento BodegaEliminada. Admite If-Match e Idempotency-Key (con `force=true`, una repetición ' +
        'completa lo que faltara o devuelve el mismo informe; sin clave, otra eliminación forzada ' +
        'también lo completa).',
      parameters: ['Force', ...ESCRITURA_SEGURA],
      responses: {
        200: json('BodegaEliminadaForzada', ELIMINADA_CON_FORCE, { forzada }, 'IdempotentReplayed'),
        204: noBody('La bodega estaba vacía y se eliminó; sin cuerpo.', 'IdempotentReplayed'),
        409: json(
          { anyOf: [schemaRef('BodegaConProductos'), schemaRef('Error')] },
          CON_PRODUCTOS_O_EN_USO,
          { conProductos },
          'RetryAfterSiClaveEnUso',
        ),
      },
    }),
    op('get /api/bodegas/{id}/productos', 'listarProductosDeBodega', 'Lista los productos de una bodega', {
      responses: {
        200: lista('ProductoDeBodega', PRODUCTOS_DE_BODEGA, {
          productos: [{ id: 12, nombre: 'Tornillo M6', cantidad: 500, precio: 19.9 }],
        }),
      },
    }),
  ],
  Existencias: [
    op('post /api/bodegas/{id}/productos', 'asignarProductoABodega', 'Fija las unidades de un producto en una bodega', {
      description:
        'Llamada de la pasarela anterior. Fija las existencias del producto en la bodega en `cantidad` (una línea ' +
        'AJUSTE con motivo ASIGNACION por la diferencia) y responde con la ETag de la existencia. No cambia el ' +
        'bodegaId del producto. El producto y la bodega deben existir (404, `detalles` dice cuál). Crear una ' +
        'existencia no pide If-Match; fijar una que ya existe exige If-Match con su versión (428 sin él, o con ' +
        '`*`), para no pisar un movimiento que el cliente no vio. Admite Idempotency-Key.',
      parameters: ESCRITURA_DE_EXISTENCIA,
      body: { schema: 'Asignacion', examples: { asignacion: ex({ productoId: 12, cantidad: 40, umbralMinimo: 5 }) } },
      responses: {
        200: ejemplo(
          'AsignacionHecha',
          'Fijadas; la ETag es la nueva versión de la existencia.',
          asignado,
          'ETag',
          'IdempotentReplayed',
        ),
        ...STOCK_CONFLICT,
      },
      errors: [428],
    }),
    op(
      'delete /api/bodegas/{id}/productos/{productoId}',
      'retirarProductoDeBodega',
      'Retira un producto de una bodega',
      {
        description:
          'Llamada de la pasarela anterior. Da de baja las unidades que quedan (motivo RETIRO), elimina la ' +
          'existencia y, si el bodegaId del producto era esta bodega, lo deja en null. 404 si el producto no tiene ' +
          'existencias ni está asignado a ella. Admite If-Match (la versión de la existencia, o `*`) e ' +
          'Idempotency-Key (una repetición completa lo que faltara).',
        parameters: ESCRITURA_DE_EXISTENCIA,
        responses: { 200: ejemplo('RetiroHecho', 'Retirado.', retirado, 'IdempotentReplayed') },
      },
    ),
    op('get /api/bodegas/{id}/existencias', 'listarExistenciasDeBodega', 'Existencias de una bodega', {
      description: 'Su capacidad, su ocupación y todas sus existencias, en orden de id de producto.',
      responses: {
        200: ejemplo('ExistenciasDeBodega', 'Las existencias.', {
          bodegaId: 3,
          capacidad: 1000,
          ocupacion: 40,
          existencias: [existencia],
        }),
      },
    }),
    op(
      'get /api/bodegas/{id}/existencias/{productoId}',
      'obtenerExistencia',
      'Existencias de un producto en una bodega',
      {
        description: 'Su ETag es su versión: envíela en If-Match para escribir sobre ella (un AJUSTE la exige).',
        parameters: ['IfNoneMatch'],
        responses: {
          200: ejemplo('Existencia', 'La existencia.', existencia, 'ETag'),
          304: sinCambios('la versión actual'),
        },
      },
    ),
    op(
      'patch /api/bodegas/{id}/existencias/{productoId}',
      'cambiarUmbralMinimo',
      'Cambia el umbral de stock bajo de una existencia',
      {
        description:
          'Solo el umbral: no mueve unidades, así que no escribe ninguna línea del libro ni ninguna operación (la ' +
          'cantidad cambia con movimientos). La versión de la existencia sube en uno, y su ETag con ella. Si el ' +
          'nuevo umbral alcanza las unidades se publica StockBajo; si queda por debajo de ellas o se quita (null), ' +
          'StockRepuesto. 404 si la bodega no existe o no tiene existencias del producto (`detalles` dice cuál). ' +
          'Admite If-Match (la versión de la existencia, o `*`) e Idempotency-Key.',
        parameters: ESCRITURA_DE_EXISTENCIA,
        body: {
          schema: 'CambioDeUmbral',
          examples: {
            umbral: ex({ umbralMinimo: 10 }, 'Avisar con 10 unidades o menos'),
            quitar: ex({ umbralMinimo: null }, 'Quitar el aviso'),
          },
        },
        responses: {
          200: ejemplo(
            'Existencia',
            'La existencia con su nuevo umbral; la ETag es su nueva versión.',
            { ...existencia, umbralMinimo: 10, version: 4 },
            'ETag',
            'IdempotentReplayed',
          ),
          ...STOCK_CONFLICT,
        },
      },
    ),
    op(
      'get /api/productos/{id}/existencias',
      'listarExistenciasDeProducto',
      'Existencias de un producto en todas las bodegas',
      {
        responses: {
          200: ejemplo('ExistenciasDeProducto', 'Su total y sus existencias por bodega.', {
            productoId: 12,
            total: 40,
            porBodega: [existencia],
            sinUbicar: 0,
          }),
        },
      },
    ),
    op('post /api/bodegas/{id}/movimientos', 'registrarMovimiento', 'Registra una entrada, una salida o un ajuste', {
      description:
        'ENTRADA y SALIDA mueven unidades; AJUSTE fija la cantidad contada y exige If-Match con la versión de la ' +
        'existencia (428 sin él). Una SALIDA por encima de lo que hay es 409 STOCK_INSUFICIENTE; una ENTRADA que ' +
        'pase la capacidad, 409 CAPACIDAD_EXCEDIDA. Publica MovimientoRegistrado. Admite Idempotency-Key.',
      parameters: ESCRITURA_DE_EXISTENCIA,
      body: { schema: 'MovimientoCreate', examples: { entrada: ENTRADA, salida: SALIDA, conteo: CONTEO } },
      responses: { 201: operacionCreada('La operación y su línea.', operacion), ...STOCK_CONFLICT },
      errors: [428],
    }),
    op('post /api/transferencias', 'transferirStock', 'Transfiere unidades entre dos bodegas', {
      description:
        'Una sola operación con dos líneas TRANSFERENCIA: o ambas o ninguna. 409 STOCK_INSUFICIENTE en el origen o ' +
        'CAPACIDAD_EXCEDIDA en el destino. Publica un solo MovimientoRegistrado. Admite Idempotency-Key.',
      parameters: ['IdempotencyKey'],
      body: { schema: 'TransferenciaCreate', examples: { transferencia: TRANSFERENCIA } },
      // The product and the warehouses it names must exist.
      responses: { 201: operacionCreada('La operación con sus dos líneas.', transferencia), ...STOCK_CONFLICT },
      errors: [404],
    }),
    op('get /api/operaciones/{id}', 'obtenerOperacion', 'Obtiene una operación con sus líneas', {
      responses: { 200: ejemplo('Operacion', 'La operación.', operacion) },
    }),
    op('post /api/operaciones/{id}/reverso', 'revertirOperacion', 'Revierte una operación', {
      description:
        'Escribe, en una operación REVERSO, una línea contraria por cada línea de la original. 409 si dejaría una ' +
        'existencia en negativo (STOCK_INSUFICIENTE) o una bodega por encima de su capacidad (CAPACIDAD_EXCEDIDA), ' +
        'si ya se revirtió (OPERACION_YA_REVERTIDA) o si no se puede revertir (OPERACION_NO_REVERSIBLE: un ' +
        'reverso, una baja por producto o bodega eliminados). El cuerpo es opcional. Admite Idempotency-Key.',
      parameters: ['IdempotencyKey'],
      body: { schema: 'ReversoCreate', examples: { reverso: ex(anulada) }, optional: true },
      responses: { 201: operacionCreada('La operación de reverso.', reverso), ...STOCK_CONFLICT },
    }),
    op('get /api/movimientos', 'listarMovimientos', 'El libro de movimientos', {
      description:
        'Los más recientes primero, por páginas: pase `siguienteCursor` como `cursor`, con los mismos filtros.',
      parameters: [
        'MovimientosBodegaId',
        'MovimientosProductoId',
        'MovimientosTipo',
        'Desde',
        'Hasta',
        'LimitMovimientos',
        'Cursor',
      ],
      responses: {
        200: ejemplo('MovimientosPagina', 'Una página de líneas.', {
          movimientos: [movimiento],
          siguienteCursor: 'MzE',
        }),
      },
    }),
    op('get /api/existencias/verificacion', 'verificarExistencias', 'Verifica las existencias contra el libro', {
      description:
        'Recalcula cada existencia desde sus líneas y cada ocupación desde sus existencias, e informa de cada ' +
        'diferencia; nunca corrige.',
      responses: { 200: ejemplo('Verificacion', 'El resultado.', verificacion) },
    }),
  ],
};

const health = (description: string, value: unknown) => json('Health', description, { estado: value });
// Every probe also answers 413 to a Content-Length over 1 MiB: that check runs before them (docs/contract.md §3.4).
const componente = (status: 'UP' | 'DOWN', grpc: string, breaker: string) => ({ status, details: { grpc, breaker } });
const [sano, caido] = [componente('UP', 'SERVING', 'closed'), componente('DOWN', 'UNAVAILABLE', 'open')];

/** Health probes (no authentication) and this documentation itself. */
const SERVICE: Record<string, Route[]> = {
  Salud: [
    op('get /actuator/health', 'salud', 'Estado del BFF y de sus dependencias', {
      security: [],
      errors: [413],
      description: 'Sin autenticación.',
      responses: {
        200: health('Todo funciona.', { status: 'UP', components: { productoSvc: sano, bodegaSvc: sano } }),
        503: health('Alguna dependencia no responde.', {
          status: 'DOWN',
          components: { productoSvc: caido, bodegaSvc: sano },
        }),
      },
    }),
    op('get /actuator/health/liveness', 'saludLiveness', 'Sonda de vida (liveness)', {
      security: [],
      errors: [413],
      description: 'Sin autenticación. Responde mientras el proceso funciona, aunque sus dependencias no.',
      responses: { 200: health('El proceso funciona.', { status: 'UP' }) },
    }),
    op('get /actuator/health/readiness', 'saludReadiness', 'Sonda de disponibilidad (readiness)', {
      security: [],
      errors: [413],
      description:
        'Sin autenticación. UP mientras el BFF acepta peticiones; DOWN (503) desde que empieza el apagado, para ' +
        'que el balanceador deje de enviarle tráfico. No depende de los servicios internos: el BFF se degrada por ' +
        'ruta (si producto-svc cae, las rutas de bodegas siguen funcionando).',
      responses: {
        200: health('Acepta peticiones.', { status: 'UP' }),
        503: health('Se está apagando.', { status: 'DOWN' }),
      },
    }),
  ],
  Documentación: [
    op('get /api/openapi.json', 'openapi', 'Este documento OpenAPI 3.1', {
      responses: { 200: json('OpenApi', 'El documento.') },
    }),
    // Documented without its trailing slash (a path's trailing slash is ignored, docs/contract.md §2.1): the page is at
    // /api/docs/,
    // and /api/docs redirects there because the page links its assets relatively.
    op('get /api/docs', 'referencia', 'Página de referencia de la API (Swagger UI)', {
      description:
        'La página está en `/api/docs/` (con barra final); `/api/docs` redirige allí. Carga `/api/openapi.json` ' +
        'con las mismas credenciales.',
      responses: {
        200: {
          description: 'La página HTML (en `/api/docs/`).',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        301: {
          description: 'Pedida sin la barra final: redirige a `/api/docs/`, con una página que lo dice.',
          headers: headerRefs('LocationDocs'),
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    }),
  ],
};

/**
 * The shared errors a route answers, from what it takes (the house rules the document test checks): 401, 429 and 500 on
 * every authenticated route, 503 and 504
 * on one that calls a service, 400 for a malformed path id or query parameter and 404 for an unknown id, 400, 413 and
 * 415 for a JSON body, 409 and 422 for an
 * Idempotency-Key in use or reused, 412 for a failed If-Match; and those the route names. The route's own response for
 * a status replaces the shared one.
 */
function errorsOf(route: Route, path: string, callsService: boolean): ErrorStatus[] {
  const names = route.parameters ?? [];
  const query = route.queryParameters ?? names.filter((name) => parameters[name].in === 'query');
  return [
    ...(route.security ? [] : ([401, 429, 500] as const)),
    // With identidad-svc every route that reaches the services may refuse a permission (docs/contract.md §12.7).
    ...(callsService ? ([403, 503, 504] as const) : []),
    ...(path.includes('{') ? ([400, 404] as const) : query.length ? ([400] as const) : []),
    ...(route.body ? ([400, 413, 415] as const) : []),
    ...(names.includes('IdempotencyKey') ? ([409, 422] as const) : []),
    ...(names.includes('IfMatch') || names.includes('IfMatchExistencia') ? ([412] as const) : []),
    ...(route.errors ?? []),
  ];
}

/** One row as an OpenAPI operation; `errors` are the shared errors it answers. */
function operationOf(
  tag: string,
  errors: ErrorStatus[],
  { operationId, summary, description, security, body, ...route }: Route,
): OperationObject {
  const parameters = [...(route.parameters ?? []).map(parameterRef), ...(route.queryParameters ?? [])];
  const content = body && { 'application/json': { schema: schemaRef(body.schema), examples: body.examples } };
  return {
    ...{
      operationId,
      summary,
      ...(description ? { description } : {}),
      tags: [tag],
      ...(security ? { security } : {}),
    },
    ...(parameters.length ? { parameters } : {}),
    ...(content ? { requestBody: { required: !body.optional, content } } : {}),
    responses: { ...errorResponses(errors), ...route.responses },
  };
}

/** A route table (by tag) as OpenAPI path items, in the order of its rows. */
export function pathsOf(table: Record<string, Route[]>, { callsService = false } = {}): Record<string, PathItemObject> {
  const paths: Record<string, PathItemObject> = {};
  for (const [tag, routes] of Object.entries(table)) {
    for (const route of routes) {
      const [method, path] = route.route.split(' ') as ['get', string];
      // A template's `{id}` by the collection it follows; `{productoId}` is always the product's.
      const id =
        (
          {
            productos: 'ProductoId',
            bodegas: 'BodegaId',
            reservas: 'ReservaId',
            usuarios: 'UsuarioId',
            tokens: 'TokenId',
          } as const
        )[path.split('/')[2]!] ?? 'OperacionId';
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) =>
        match[1] === 'productoId' ? 'ProductoIdDeRuta' : id,
      );
      const item = (paths[path] ??= names.length ? { parameters: names.map(parameterRef) } : {});
      item[method] = operationOf(tag, errorsOf(route, path, callsService), route);
    }
  }
  return paths;
}
export { REST as REST_ROUTES, SERVICE as SERVICE_ROUTES };
