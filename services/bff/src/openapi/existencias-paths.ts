import {
  API_ERRORS,
  BODY_ERRORS,
  CONFLICTO_DE_EXISTENCIAS,
  DOWNSTREAM_ERRORS,
  errorResponses,
  headerRef,
  KEYED_ERRORS,
  parameterRef,
} from './components';
import { existenciaEjemplo, movimientoEjemplo, operacionEjemplo, transferenciaEjemplo } from './examples';
import type { Operation, PathItem, RequestBody, Response } from './openapi-types';
import { schemaRef, type SchemaName } from './schemas';

/** The stock routes of docs/contract.md §10.2. */

const tags = ['Existencias'];

const body = (schema: SchemaName, examples: Record<string, { summary?: string; value: unknown }>, required = true): RequestBody => ({
  required,
  content: { 'application/json': { schema: schemaRef(schema), examples } },
});

const json = (description: string, schema: SchemaName, value: unknown, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: schemaRef(schema), examples: { ejemplo: { value } } } },
});

/** A 201 of a command: the operation it wrote, where to read it again. */
const operacionCreada = (description: string, value: unknown): Response =>
  json(description, 'Operacion', value, { Location: headerRef('Location'), 'Idempotent-Replayed': headerRef('IdempotentReplayed') });

/** A stock write refused by a rule (its figures), or the key in use. */
const STOCK_CONFLICT = { '409': CONFLICTO_DE_EXISTENCIAS };

/**
 * POST /api/bodegas/{id}/productos, the older gateway's assignment: its
 * path item, with the listing's GET, is in bodegas-paths.ts.
 */
export const asignarProductoABodega = {
  operationId: 'asignarProductoABodega',
  summary: 'Fija las unidades de un producto en una bodega',
  description:
    'Llamada de la pasarela anterior. Fija las existencias del producto en la bodega en `cantidad` (una línea AJUSTE con motivo ' +
    'ASIGNACION por la diferencia) y responde con la ETag de la existencia. No cambia el bodegaId del producto. ' +
    'El producto y la bodega deben existir (404, `detalles` dice cuál). Admite If-Match (la versión de la existencia, o `*`) ' +
    'e Idempotency-Key.',
  tags,
  parameters: [parameterRef('IfMatchExistencia'), parameterRef('IdempotencyKey')],
  requestBody: body('Asignacion', { asignacion: { value: { productoId: 12, cantidad: 40, umbralMinimo: 5 } } }),
  responses: {
    '200': json(
      'Fijadas; la ETag es la nueva versión de la existencia.',
      'AsignacionHecha',
      { mensaje: 'Producto asignado a la bodega exitosamente', productoId: 12, bodegaId: 3, cantidad: 40 },
      { ETag: headerRef('ETag'), 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
    ),
    ...errorResponses(...BODY_ERRORS, 404, 412, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
    ...STOCK_CONFLICT,
  },
} as const satisfies Operation;

export const existenciasPaths = {
  '/api/bodegas/{id}/productos/{productoId}': {
    parameters: [parameterRef('BodegaId'), parameterRef('ProductoIdDeRuta')],
    delete: {
      operationId: 'retirarProductoDeBodega',
      summary: 'Retira un producto de una bodega',
      description:
        'Llamada de la pasarela anterior. Da de baja las unidades que quedan (motivo RETIRO), elimina la existencia y, si el bodegaId ' +
        'del producto era esta bodega, lo deja en null. 404 si el producto no tiene existencias ni está asignado a ella. ' +
        'Admite If-Match (la versión de la existencia, o `*`) e Idempotency-Key (una repetición completa lo que faltara).',
      tags,
      parameters: [parameterRef('IfMatchExistencia'), parameterRef('IdempotencyKey')],
      responses: {
        '200': json(
          'Retirado.',
          'RetiroHecho',
          { mensaje: 'Producto retirado de la bodega exitosamente', productoId: 12, bodegaId: 3, cantidadRetirada: 40 },
          { 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
        ),
        ...errorResponses(400, 404, 412, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/bodegas/{id}/existencias': {
    parameters: [parameterRef('BodegaId')],
    get: {
      operationId: 'listarExistenciasDeBodega',
      summary: 'Existencias de una bodega',
      description: 'Su capacidad, su ocupación y todas sus existencias, en orden de id de producto.',
      tags,
      responses: {
        '200': json('Las existencias.', 'ExistenciasDeBodega', { bodegaId: 3, capacidad: 1000, ocupacion: 40, existencias: [existenciaEjemplo] }),
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/bodegas/{id}/existencias/{productoId}': {
    parameters: [parameterRef('BodegaId'), parameterRef('ProductoIdDeRuta')],
    get: {
      operationId: 'obtenerExistencia',
      summary: 'Existencias de un producto en una bodega',
      description: 'Su ETag es su versión: envíela en If-Match para escribir sobre ella (un AJUSTE la exige).',
      tags,
      parameters: [parameterRef('IfNoneMatch')],
      responses: {
        '200': json('La existencia.', 'Existencia', existenciaEjemplo, { ETag: headerRef('ETag') }),
        '304': { description: 'If-None-Match nombra la versión actual; sin cuerpo.', headers: { ETag: headerRef('ETag') } },
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/productos/{id}/existencias': {
    parameters: [parameterRef('ProductoId')],
    get: {
      operationId: 'listarExistenciasDeProducto',
      summary: 'Existencias de un producto en todas las bodegas',
      tags,
      responses: {
        '200': json('Su total y sus existencias por bodega.', 'ExistenciasDeProducto', { productoId: 12, total: 40, porBodega: [existenciaEjemplo] }),
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/bodegas/{id}/movimientos': {
    parameters: [parameterRef('BodegaId')],
    post: {
      operationId: 'registrarMovimiento',
      summary: 'Registra una entrada, una salida o un ajuste',
      description:
        'ENTRADA y SALIDA mueven unidades; AJUSTE fija la cantidad contada y exige If-Match con la versión de la existencia (428 sin él). ' +
        'Una SALIDA por encima de lo que hay es 409 STOCK_INSUFICIENTE; una ENTRADA que pase la capacidad, 409 CAPACIDAD_EXCEDIDA. ' +
        'Publica MovimientoRegistrado. Admite Idempotency-Key.',
      tags,
      parameters: [parameterRef('IfMatchExistencia'), parameterRef('IdempotencyKey')],
      requestBody: body('MovimientoCreate', {
        entrada: { summary: 'Recepción de mercancía', value: { productoId: 12, tipo: 'ENTRADA', cantidad: 50, motivo: 'RECEPCION' } },
        salida: { summary: 'Venta', value: { productoId: 12, tipo: 'SALIDA', cantidad: 3, comentario: 'Pedido 8812' } },
        conteo: { summary: 'Conteo físico (con If-Match)', value: { productoId: 12, tipo: 'AJUSTE', cantidad: 38 } },
      }),
      responses: {
        '201': operacionCreada('La operación y su línea.', operacionEjemplo),
        ...errorResponses(...BODY_ERRORS, 404, 412, ...KEYED_ERRORS, 428, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
        ...STOCK_CONFLICT,
      },
    },
  },
  '/api/transferencias': {
    post: {
      operationId: 'transferirStock',
      summary: 'Transfiere unidades entre dos bodegas',
      description:
        'Una sola operación con dos líneas TRANSFERENCIA: o ambas o ninguna. 409 STOCK_INSUFICIENTE en el origen o CAPACIDAD_EXCEDIDA ' +
        'en el destino. Publica un solo MovimientoRegistrado. Admite Idempotency-Key.',
      tags,
      parameters: [parameterRef('IdempotencyKey')],
      requestBody: body('TransferenciaCreate', {
        transferencia: { value: { productoId: 12, origenId: 3, destinoId: 4, cantidad: 5, comentario: 'Reposición de la tienda' } },
      }),
      responses: {
        '201': operacionCreada('La operación con sus dos líneas.', transferenciaEjemplo),
        ...errorResponses(...BODY_ERRORS, 404, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
        ...STOCK_CONFLICT,
      },
    },
  },
  '/api/operaciones/{id}': {
    parameters: [parameterRef('OperacionId')],
    get: {
      operationId: 'obtenerOperacion',
      summary: 'Obtiene una operación con sus líneas',
      tags,
      responses: {
        '200': json('La operación.', 'Operacion', operacionEjemplo),
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/operaciones/{id}/reverso': {
    parameters: [parameterRef('OperacionId')],
    post: {
      operationId: 'revertirOperacion',
      summary: 'Revierte una operación',
      description:
        'Escribe, en una operación REVERSO, una línea contraria por cada línea de la original. 409 si dejaría una existencia en negativo ' +
        '(STOCK_INSUFICIENTE) o una bodega por encima de su capacidad (CAPACIDAD_EXCEDIDA), si ya se revirtió (OPERACION_YA_REVERTIDA) ' +
        'o si no se puede revertir (OPERACION_NO_REVERSIBLE: un reverso, una baja por producto o bodega eliminados). El cuerpo es opcional. ' +
        'Admite Idempotency-Key.',
      tags,
      parameters: [parameterRef('IdempotencyKey')],
      requestBody: body('ReversoCreate', { reverso: { value: { comentario: 'Venta anulada' } } }, false),
      responses: {
        '201': operacionCreada('La operación de reverso.', {
          ...operacionEjemplo,
          id: 11,
          tipo: 'REVERSO',
          comentario: 'Venta anulada',
          revierteA: 9,
          movimientos: [{ ...movimientoEjemplo, id: 34, operacionId: 11, motivo: 'REVERSO', cantidad: 3, cantidadAnterior: 40, cantidadPosterior: 43, version: 4, comentario: 'Venta anulada' }],
        }),
        ...errorResponses(...BODY_ERRORS, 404, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
        ...STOCK_CONFLICT,
      },
    },
  },
  '/api/movimientos': {
    get: {
      operationId: 'listarMovimientos',
      summary: 'El libro de movimientos',
      description: 'Los más recientes primero, por páginas: pase `siguienteCursor` como `cursor`, con los mismos filtros.',
      tags,
      parameters: [
        parameterRef('MovimientosBodegaId'),
        parameterRef('MovimientosProductoId'),
        parameterRef('MovimientosTipo'),
        parameterRef('Desde'),
        parameterRef('Hasta'),
        parameterRef('LimitMovimientos'),
        parameterRef('Cursor'),
      ],
      responses: {
        '200': json('Una página de líneas.', 'MovimientosPagina', { movimientos: [movimientoEjemplo], siguienteCursor: 'MzE' }),
        ...errorResponses(400, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/existencias/verificacion': {
    get: {
      operationId: 'verificarExistencias',
      summary: 'Verifica las existencias contra el libro',
      description: 'Recalcula cada existencia desde sus líneas y cada ocupación desde sus existencias, e informa de cada diferencia; nunca corrige.',
      tags,
      responses: {
        '200': json('El resultado.', 'Verificacion', { consistente: true, diferencias: [], nivelesVerificados: 120, bodegasVerificadas: 4 }),
        ...errorResponses(...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
} as const satisfies Record<string, PathItem>;
