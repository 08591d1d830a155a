import { MOTIVOS_MOVIMIENTO, TIPOS_MOVIMIENTO, TIPOS_MOVIMIENTO_REGISTRABLES, TIPOS_OPERACION } from '../inventario/model';
import type { JsonSchema } from './openapi-types';
import { capacidad, errorProperties, id, MAX_INT32, ocupacion, readOnlyIgnored, schemaRef, timestamp, type ExistenciaSchemaName } from './schemas';

/**
 * The JSON Schemas of the stock ledger's bodies (docs/contract.md §10.2),
 * closed like the others: the levels, the ledger's lines and operations,
 * their request bodies, and the figures a refused stock write adds to its
 * error body.
 */

const productoId: JsonSchema = { ...id, description: 'Id del producto; debe existir (si no, 404 con detalles en productoId).' };
const unidades: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_INT32 };
const comentario: JsonSchema = { type: ['string', 'null'], maxLength: 500, description: 'Texto libre, a lo sumo 500 caracteres.' };
/** Ids of lines and operations: 64-bit in storage, well inside 2^53 in JSON. */
const idLargo: JsonSchema = { type: 'integer', minimum: 1, maximum: 9007199254740991 };
const versionNivel: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: 4294967295,
  description: 'Versión de la existencia: +1 con cada línea. La ETag es este número entre comillas; envíela en If-Match.',
};

/** The figures a 409 of a stock rule adds (STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, ...). */
const cifras: Record<string, JsonSchema> = {
  bodegaId: { type: 'integer', minimum: 1, description: 'La bodega de la regla (STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA).' },
  productoId: { type: 'integer', minimum: 1, description: 'El producto (STOCK_INSUFICIENTE, PRODUCTO_ELIMINADO).' },
  disponible: { type: 'integer', minimum: 0, description: 'STOCK_INSUFICIENTE: las unidades que hay.' },
  solicitado: { type: 'integer', description: 'Las unidades pedidas (STOCK_INSUFICIENTE) o que la escritura añadiría (CAPACIDAD_EXCEDIDA).' },
  capacidad: { type: 'integer', minimum: 0, description: 'CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE: la capacidad (la pedida, en CAPACIDAD_INSUFICIENTE).' },
  ocupacion: { type: 'integer', minimum: 0, description: 'CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE: la ocupación actual.' },
  operacionId: { type: 'integer', minimum: 1, description: 'OPERACION_YA_REVERTIDA, OPERACION_NO_REVERSIBLE: la operación.' },
  revertidaPor: { type: 'integer', minimum: 1, description: 'OPERACION_YA_REVERTIDA: la operación que ya la revirtió.' },
};

export const existenciasSchemas: Readonly<Record<ExistenciaSchemaName, JsonSchema>> = {
  Asignacion: {
    type: 'object',
    description: 'Fija las unidades del producto en la bodega (una línea AJUSTE, motivo ASIGNACION). Los campos de solo lectura se ignoran.',
    required: ['productoId', 'cantidad'],
    additionalProperties: false,
    properties: {
      productoId,
      cantidad: { ...unidades, description: 'Las unidades que guarda la bodega después.' },
      umbralMinimo: {
        type: ['integer', 'null'],
        minimum: 0,
        maximum: MAX_INT32,
        description: 'Umbral de stock bajo (StockBajo al llegar a él o bajar de él). null lo quita; ausente, no cambia.',
      },
      ...readOnlyIgnored,
    },
  },
  AsignacionHecha: {
    type: 'object',
    description: 'Respuesta de la asignación (forma de la pasarela anterior).',
    required: ['mensaje', 'productoId', 'bodegaId', 'cantidad'],
    additionalProperties: false,
    properties: { mensaje: { type: 'string' }, productoId: id, bodegaId: id, cantidad: unidades },
  },
  RetiroHecho: {
    type: 'object',
    description: 'Respuesta del retiro (forma de la pasarela anterior).',
    required: ['mensaje', 'productoId', 'bodegaId', 'cantidadRetirada'],
    additionalProperties: false,
    properties: {
      mensaje: { type: 'string' },
      productoId: id,
      bodegaId: id,
      cantidadRetirada: { ...unidades, description: 'Las unidades dadas de baja (motivo RETIRO); 0 si no tenía existencias.' },
    },
  },
  Existencia: {
    type: 'object',
    description: 'Las existencias de un producto en una bodega; su ETag es su versión.',
    required: ['bodegaId', 'productoId', 'cantidad', 'umbralMinimo', 'version', 'fechaCreacion', 'fechaActualizacion'],
    additionalProperties: false,
    properties: {
      bodegaId: id,
      productoId: id,
      cantidad: { ...unidades, description: 'Unidades; nunca negativas.' },
      umbralMinimo: { type: ['integer', 'null'], minimum: 0, description: 'Umbral de stock bajo, o null.' },
      version: versionNivel,
      fechaCreacion: timestamp,
      fechaActualizacion: timestamp,
    },
  },
  ExistenciasDeBodega: {
    type: 'object',
    required: ['bodegaId', 'capacidad', 'ocupacion', 'existencias'],
    additionalProperties: false,
    properties: {
      bodegaId: id,
      capacidad,
      ocupacion,
      existencias: { type: 'array', items: schemaRef('Existencia'), description: 'Todas, en orden de id de producto.' },
    },
  },
  ExistenciasDeProducto: {
    type: 'object',
    required: ['productoId', 'total', 'porBodega'],
    additionalProperties: false,
    properties: {
      productoId: id,
      total: { type: 'integer', minimum: 0, description: 'La suma de sus existencias en todas las bodegas.' },
      porBodega: { type: 'array', items: schemaRef('Existencia'), description: 'En orden de id de bodega.' },
    },
  },
  MovimientoCreate: {
    type: 'object',
    description:
      'ENTRADA y SALIDA mueven `cantidad` (al menos 1) unidades; AJUSTE fija la cantidad contada y exige If-Match. ' +
      'El motivo, si se da, debe ser de los del tipo (ENTRADA: RECEPCION, DEVOLUCION; SALIDA: VENTA, MERMA; AJUSTE: CONTEO, MERMA); ' +
      'sin él, el primero.',
    required: ['productoId', 'tipo', 'cantidad'],
    additionalProperties: false,
    properties: {
      productoId,
      tipo: { enum: TIPOS_MOVIMIENTO_REGISTRABLES },
      cantidad: unidades,
      motivo: { enum: MOTIVOS_MOVIMIENTO },
      comentario,
      ...readOnlyIgnored,
    },
  },
  TransferenciaCreate: {
    type: 'object',
    description: 'Mueve unidades de una bodega a otra (distinta) en una sola operación.',
    required: ['productoId', 'origenId', 'destinoId', 'cantidad'],
    additionalProperties: false,
    properties: {
      productoId,
      origenId: id,
      destinoId: { ...id, description: 'Distinta de origenId (si no, 400).' },
      cantidad: { ...unidades, minimum: 1 },
      comentario,
      ...readOnlyIgnored,
    },
  },
  ReversoCreate: {
    type: 'object',
    description: 'Opcional: la petición puede no traer cuerpo.',
    additionalProperties: false,
    properties: { comentario, ...readOnlyIgnored },
  },
  Movimiento: {
    type: 'object',
    description: 'Una línea del libro de movimientos: nunca cambia ni se borra.',
    required: [
      'id',
      'operacionId',
      'bodegaId',
      'productoId',
      'tipo',
      'motivo',
      'cantidad',
      'cantidadAnterior',
      'cantidadPosterior',
      'version',
      'usuario',
      'comentario',
      'fecha',
    ],
    additionalProperties: false,
    properties: {
      id: idLargo,
      operacionId: idLargo,
      bodegaId: id,
      productoId: id,
      tipo: { enum: TIPOS_MOVIMIENTO },
      motivo: { enum: MOTIVOS_MOVIMIENTO },
      cantidad: { type: 'integer', description: 'Con signo: lo que la línea sumó a la existencia.' },
      cantidadAnterior: unidades,
      cantidadPosterior: { ...unidades, description: 'cantidadAnterior + cantidad.' },
      version: { ...versionNivel, description: 'La versión de la existencia tras la línea.' },
      usuario: { type: 'string', description: 'El usuario de HTTP Basic, o system.' },
      comentario: { type: ['string', 'null'] },
      fecha: timestamp,
    },
  },
  Operacion: {
    type: 'object',
    description: 'Una orden y las líneas que escribió, confirmadas juntas.',
    required: ['id', 'tipo', 'usuario', 'comentario', 'fecha', 'revierteA', 'revertidaPor', 'movimientos'],
    additionalProperties: false,
    properties: {
      id: idLargo,
      tipo: { enum: TIPOS_OPERACION },
      usuario: { type: 'string' },
      comentario: { type: ['string', 'null'] },
      fecha: timestamp,
      revierteA: { type: ['integer', 'null'], minimum: 1, description: 'En un REVERSO: la operación que revierte.' },
      revertidaPor: { type: ['integer', 'null'], minimum: 1, description: 'Si se revirtió: la operación que la revirtió.' },
      movimientos: { type: 'array', minItems: 1, items: schemaRef('Movimiento') },
    },
  },
  MovimientosPagina: {
    type: 'object',
    required: ['movimientos', 'siguienteCursor'],
    additionalProperties: false,
    properties: {
      movimientos: { type: 'array', items: schemaRef('Movimiento'), description: 'Los más recientes primero.' },
      siguienteCursor: {
        type: ['string', 'null'],
        description: 'Pásalo como `cursor`, con los mismos filtros, para la página siguiente; null en la última.',
      },
    },
  },
  Verificacion: {
    type: 'object',
    description: 'Recalcula cada existencia desde sus líneas y cada ocupación desde sus existencias; nunca corrige nada.',
    required: ['consistente', 'diferencias', 'nivelesVerificados', 'bodegasVerificadas'],
    additionalProperties: false,
    properties: {
      consistente: { type: 'boolean' },
      diferencias: {
        type: 'array',
        maxItems: 1000,
        items: {
          type: 'object',
          required: ['tipo', 'bodegaId', 'productoId', 'registrado', 'calculado'],
          additionalProperties: false,
          properties: {
            tipo: { enum: ['NIVEL', 'OCUPACION'] },
            bodegaId: id,
            productoId: { type: ['integer', 'null'], minimum: 1, description: 'null en OCUPACION.' },
            registrado: { type: 'integer', description: 'Lo guardado.' },
            calculado: { type: 'integer', description: 'Lo que dicen las líneas (o las existencias).' },
          },
        },
      },
      nivelesVerificados: { type: 'integer', minimum: 0 },
      bodegasVerificadas: { type: 'integer', minimum: 0 },
    },
  },
  ErrorDeExistencias: {
    type: 'object',
    description:
      'Error de una regla de las existencias (409, nada se escribe): `error` es STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, ' +
      'CAPACIDAD_INSUFICIENTE, PRODUCTO_ELIMINADO, OPERACION_YA_REVERTIDA u OPERACION_NO_REVERSIBLE, con sus cifras; ' +
      'o uno de los demás conflictos (IDEMPOTENCY_KEY_IN_USE, ALREADY_EXISTS).',
    required: ['error', 'mensaje'],
    additionalProperties: false,
    properties: { ...errorProperties, ...cifras },
  },
};
