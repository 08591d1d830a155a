import { z } from 'zod';
import type { ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import {
  MAX_INT32,
  MAX_TEXTO,
  MAX_UNSIGNED_INT,
  NUMBER_TEXT,
  nombre as nombreCampo,
  precio as precioCampo,
} from '@inventario/platform';
import { bodegaCreateSchema, bodegaPatchSchema } from '../http/bodega-schemas';
import {
  asignacionSchema,
  movimientoSchema,
  reversoSchema,
  transferenciaSchema,
  umbralSchema,
} from '../http/existencia-schemas';
import { productoCreateSchema, productoPatchSchema } from '../http/producto-schemas';
import { consumoSchema, extensionSchema, reservaSchema } from '../http/reserva-schemas';
import { ESTADOS_RESERVA } from '../reservas/model';
import { READ_ONLY_FIELDS } from '../http/rest-fields';
import { IDENTIDAD_COMPONENTS } from './identidad-schemas';
import { MOTIVOS_MOVIMIENTO, TIPOS_MOVIMIENTO, TIPOS_OPERACION } from '@inventario/contract';

/**
 * `components.schemas`, all zod: the request bodies are those the routes parse with; the responses (docs/contract.md
 * §2.3, §10.2) are strict objects, so an
 * undocumented field fails the contract tests. `precio` has no `multipleOf` (see platform's precio): its two decimals
 * are a stated rule.
 */

const describe = <T extends z.ZodType>(schema: T, description: string, ...examples: unknown[]) =>
  schema.meta(examples.length ? { description, examples } : { description });
const id = describe(z.int().min(1).max(MAX_UNSIGNED_INT), 'Identificador asignado por el servicio (entero positivo).');
/** `idLargo`: ids of lines and operations, 64-bit in storage but well inside 2^53 in JSON. */
const [idLargo, positivo, unidades, contador, texto] = [
  z.int().min(1),
  z.int().min(1),
  z.int().min(0).max(MAX_INT32),
  z.int().min(0),
  z.string(),
];
/** UTC without a zone: a pattern, since `format: date-time` requires a zone. */
const SIN_ZONA = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const fecha = describe(
  z.string().regex(SIN_ZONA),
  'Fecha y hora ISO 8601 sin zona, siempre en UTC.',
  '2026-11-22T14:03:07',
);
const fechas = { fechaCreacion: fecha, fechaActualizacion: describe(fecha, 'Igual a fechaCreacion al crear.') };
// As the request bodies show them: the JSON Schema is their metadata.
const [precio, nombre] = [precioCampo(NUMBER_TEXT), nombreCampo()];
const ETAG = 'La ETag es este número entre comillas; envíela en If-Match.';
const version = describe(
  z.int().min(1).max(MAX_UNSIGNED_INT),
  `Versión del registro: 1 al crearse, +1 en cada escritura. ${ETAG}`,
);
const versionNivel = describe(
  version,
  `Versión de la existencia: +1 con cada línea y con cada cambio de umbral. ${ETAG}`,
);
const idComoTexto = (description: string) =>
  describe(z.string().regex(/^[1-9][0-9]*$/), `${description}, como texto (forma del contrato original).`);
const ocupacion = describe(
  unidades,
  'Unidades que guarda en total (la suma de sus existencias); nunca supera capacidad.',
);
const capacidad = describe(unidades, 'Capacidad de la bodega en unidades.');
const objeto = <S extends z.ZodRawShape>(description: string, shape: S) => z.strictObject(shape).meta({ description });
const opcional = (schema: z.ZodType, description: string) => describe(schema, description).optional();

const detalle = z.strictObject({ campo: describe(texto, 'Nombre público del campo (camelCase).'), mensaje: texto });
/** The fields of every error body (docs/contract.md §3.1). */
const errorShape = {
  error: describe(
    z.string().min(1),
    'Código estable del error, para que el cliente decida, p. ej. VALIDATION_ERROR o NOT_FOUND.',
  ),
  mensaje: z.string().min(1),
  detalles: opcional(z.array(detalle), 'En los errores de validación, un elemento por campo inválido.'),
  versionActual: opcional(
    positivo.nullable(),
    'Solo en PRECONDITION_FAILED (412): la versión guardada, o null si el registro no existe.',
  ),
  permiso: opcional(z.string(), 'Solo en FORBIDDEN (403): el permiso que falta.'),
  bodegaId: opcional(z.string().regex(/^[1-9][0-9]*$/), 'Solo en FORBIDDEN (403): la bodega donde falta, como texto.'),
};

const producto = objeto('Un producto en su forma REST.', {
  id,
  nombre,
  descripcion: describe(texto.nullable(), 'Texto libre opcional, de a lo sumo 65535 bytes en UTF-8.'),
  precio,
  cantidadEnStock: describe(
    unidades,
    'Unidades en existencia: el total de su libro de existencias (todas las bodegas más las sin ubicar). Al crear, ' +
      'se registran como stock inicial; un PUT registra un conteo (AJUSTE).',
  ),
  bodegaId: describe(id.nullable(), 'Bodega que guarda el producto, o null. Debe existir (si no, 400).'),
  ...fechas,
  version,
});
/** The first products of a list that `total` counts in full: bounded so the body stays small. */
const primerosProductos = (cuales: string, total: string, minItems = 0) =>
  describe(
    z.array(producto).min(minItems).max(100),
    `Los primeros productos ${cuales}: como mucho 100 y 256 KiB de JSON; ${total} los cuenta todos.`,
  );

const existencia = objeto('Las existencias de un producto en una bodega; su ETag es su versión.', {
  bodegaId: id,
  productoId: id,
  cantidad: describe(unidades, 'Unidades; nunca negativas.'),
  umbralMinimo: describe(contador.nullable(), 'Umbral de stock bajo, o null.'),
  version: versionNivel,
  fechaCreacion: fecha,
  fechaActualizacion: fecha,
  reservada: describe(
    unidades,
    'Unidades retenidas por reservas activas y no vencidas (0 <= reservada <= cantidad); siguen ocupando la bodega.',
  ),
  disponible: describe(
    unidades,
    'cantidad - reservada: lo que una salida, una transferencia o un retiro sin reserva pueden sacar.',
  ),
  alertaSobre: describe(
    z.enum(['CANTIDAD', 'DISPONIBLE']),
    'Adición: lo que vigila umbralMinimo: CANTIDAD (las unidades; por defecto) o DISPONIBLE ' +
      '(cantidad - reservada, así una reserva puede dar StockBajo).',
  ),
});

const movimiento = objeto('Una línea del libro de movimientos: nunca cambia ni se borra.', {
  id: idLargo,
  operacionId: idLargo,
  bodegaId: describe(
    z.int().min(0).max(MAX_UNSIGNED_INT),
    'La bodega de la línea; 0: las unidades sin ubicar del producto, que no están en ninguna bodega (contrato §10.6).',
  ),
  productoId: id,
  tipo: z.enum(TIPOS_MOVIMIENTO),
  motivo: z.enum(MOTIVOS_MOVIMIENTO),
  cantidad: describe(z.int(), 'Con signo: lo que la línea sumó a la existencia.'),
  cantidadAnterior: unidades,
  cantidadPosterior: describe(unidades, 'cantidadAnterior + cantidad.'),
  version: describe(versionNivel, 'La versión de la existencia tras la línea.'),
  usuario: describe(texto, 'El usuario de HTTP Basic, o system.'),
  comentario: texto.nullable(),
  fecha,
});

const REGLAS =
  'STOCK_INSUFICIENTE, STOCK_RESERVADO, CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE, PRODUCTO_ELIMINADO, ' +
  'OPERACION_YA_REVERTIDA u OPERACION_NO_REVERSIBLE';
/** The figures a 409 of a stock rule adds, each naming the rules that send it. */
const cifras = {
  bodegaId: opcional(positivo, 'La bodega de la regla (STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA).'),
  productoId: opcional(positivo, 'El producto (STOCK_INSUFICIENTE, PRODUCTO_ELIMINADO).'),
  disponible: opcional(contador, 'STOCK_INSUFICIENTE: las unidades que hay.'),
  solicitado: opcional(
    z.int(),
    'Las unidades pedidas (STOCK_INSUFICIENTE) o que la escritura añadiría (CAPACIDAD_EXCEDIDA).',
  ),
  capacidad: opcional(
    contador,
    'CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE: la capacidad (la pedida, en CAPACIDAD_INSUFICIENTE).',
  ),
  ocupacion: opcional(contador, 'CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE: la ocupación actual.'),
  operacionId: opcional(positivo, 'OPERACION_YA_REVERTIDA, OPERACION_NO_REVERSIBLE: la operación.'),
  revertidaPor: opcional(positivo, 'OPERACION_YA_REVERTIDA: la operación que ya la revirtió.'),
  reservada: opcional(
    contador,
    'STOCK_RESERVADO: las unidades retenidas por reservas (disponible es lo que se puede sacar).',
  ),
};

/** Reservations (docs/contract.md §13). */
const lineaDeReserva = objeto('Una línea de una reserva: un nivel (bodega, producto).', {
  id: idLargo,
  bodegaId: id,
  productoId: id,
  cantidad: describe(positivo, 'Unidades reservadas (las líneas pedidas de un mismo nivel, sumadas).'),
  consumida: describe(contador, 'Unidades ya sacadas por consumos.'),
  retenida: describe(contador, 'Unidades que aún retiene; 0 cuando la reserva ya no está ACTIVA.'),
});
const reserva = objeto('Una reserva: unidades retenidas hasta expiraEn; su ETag es su versión.', {
  id: idLargo,
  referencia: describe(texto, 'El id del pedido del llamador; a lo sumo una reserva ACTIVA por referencia.'),
  estado: describe(
    z.enum(ESTADOS_RESERVA),
    'En el reloj de la base de datos: una ACTIVA vencida es EXPIRADA aunque nadie la haya barrido.',
  ),
  expiraEn: describe(
    fecha,
    'UTC, al segundo (nunca posterior al instante exacto, que bodega-svc guarda al microsegundo).',
  ),
  lineas: z.array(lineaDeReserva).min(1),
  version,
  usuario: describe(texto, 'Quien la hizo (el usuario de HTTP Basic).'),
  comentario: texto.nullable(),
  ...fechas,
});
const faltante = z.strictObject({ bodegaId: id, productoId: id, solicitado: positivo, disponible: contador });

const diferencia = z.strictObject({
  tipo: z.enum(['NIVEL', 'OCUPACION']),
  bodegaId: id,
  productoId: describe(positivo.nullable(), 'null en OCUPACION.'),
  registrado: describe(z.int(), 'Lo guardado.'),
  calculado: describe(z.int(), 'Lo que dicen las líneas (o las existencias).'),
});
const [objetoONull, estado] = [z.object({}).nullable(), z.enum(['UP', 'DOWN'])];
const estadoDeServicio = z.strictObject({
  status: describe(estado, 'UP solo si su grpc.health.v1 responde SERVING.'),
  details: z.strictObject({
    grpc: describe(
      z.string(),
      'Respuesta de grpc.health.v1 (SERVING, NOT_SERVING…) o el código gRPC del fallo.',
      'SERVING',
      'UNAVAILABLE',
    ),
    breaker: describe(z.enum(['closed', 'open', 'halfOpen']), 'Estado del circuit breaker hacia el servicio.'),
  }),
});
const [locations, path] = [z.array(z.object({ line: positivo, column: positivo })), z.array(z.union([texto, z.int()]))];
const extensions = z
  .looseObject({
    classification: opcional(
      texto,
      'ValidationError, InvalidSyntax, BAD_REQUEST, NOT_FOUND, UNAVAILABLE, … (docs/contract.md §4.5).',
    ),
  })
  .meta({
    description:
      'Datos del error; siempre trae classification, y según el error otros campos (retryAfterSeconds, logId).',
  });
const graphqlError = z.object({
  message: texto,
  locations: locations.optional(),
  path: path.optional(),
  extensions: extensions.optional(),
});
const graphqlRequest = z.object({
  query: texto,
  variables: objetoONull.optional(),
  operationName: texto.nullish(),
  extensions: objetoONull.optional(),
});
const GRAPHQL_RESULTADO =
  'Resultado GraphQL: `data` con los campos pedidos y/o `errors`. Los errores de validación llevan ' +
  '`extensions.classification: "ValidationError"`, los de sintaxis `"InvalidSyntax"`.';

/** Every schema of `components.schemas`, by name, in the document's order. */
const COMPONENTS = {
  // Users, tokens and the audit trail (issue 26).
  ...IDENTIDAD_COMPONENTS,
  Producto: producto,
  ProductoCreate: productoCreateSchema,
  ProductoUpdate: productoPatchSchema,
  Bodega: objeto('Una bodega en su forma REST.', {
    id,
    nombre: describe(nombre, 'Único entre las bodegas, sin distinguir mayúsculas ni acentos.'),
    ubicacion: describe(z.string().max(MAX_TEXTO).nullable(), bodegaCreateSchema.shape.ubicacion.description!),
    capacidad,
    ocupacion,
    ...fechas,
    version,
  }),
  BodegaCreate: bodegaCreateSchema,
  BodegaUpdate: bodegaPatchSchema,
  BodegaCreada: z.strictObject({ mensaje: texto, id }),
  Mensaje: z.strictObject({ mensaje: texto }),
  ProductoDeBodega: objeto(
    'Resumen de un producto de una bodega: asignado a ella (bodegaId) o con existencias en ella. Con existencias, ' +
      'cantidad son sus unidades en esta bodega; si no, su cantidadEnStock.',
    { id, nombre, cantidad: describe(unidades, 'Unidades.'), precio },
  ),
  BodegaEliminadaForzada: objeto(
    'Resultado de DELETE con force=true: la bodega se eliminó, sus productos quedaron sin bodega y sus existencias ' +
      'se dieron de baja.',
    {
      mensaje: texto,
      bodegaId: idComoTexto('Id de la bodega eliminada'),
      productosAfectados: describe(
        contador,
        'Cuántos productos perdieron la bodega, por su asignación o por sus existencias en ella (todos, ' +
          'cada uno una vez).',
      ),
      detalleProductos: primerosProductos('afectados por id, tal como quedaron (sin bodega)', 'productosAfectados'),
      advertencia: texto,
      existenciasRetiradas: describe(contador, 'Existencias (niveles) dadas de baja con motivo BODEGA_ELIMINADA.'),
      unidadesRetiradas: describe(contador, 'Unidades que guardaban.'),
    },
  ),
  Error: objeto(
    'Cuerpo de todo error REST: `error` es un código estable; `mensaje` explica el problema en español.',
    errorShape,
  ),
  BodegaConProductos: objeto(
    'Error de DELETE sin force de una bodega que guarda productos (asignados o con existencias en ella): ' +
      'no se elimina nada.',
    {
      ...errorShape,
      productos: primerosProductos('de la bodega por id, asignados o con existencias', 'totalProductos', 1),
      totalProductos: describe(positivo, 'Cuántos productos guarda la bodega (todos, no solo los listados).'),
      bodegaId: idComoTexto('Id de la bodega'),
    },
  ),
  Asignacion: asignacionSchema,
  AsignacionHecha: objeto('Respuesta de la asignación (forma de la pasarela anterior).', {
    mensaje: texto,
    productoId: id,
    bodegaId: id,
    cantidad: unidades,
  }),
  RetiroHecho: objeto('Respuesta del retiro (forma de la pasarela anterior).', {
    mensaje: texto,
    productoId: id,
    bodegaId: id,
    cantidadRetirada: describe(unidades, 'Las unidades dadas de baja (motivo RETIRO); 0 si no tenía existencias.'),
  }),
  Existencia: existencia,
  CambioDeUmbral: umbralSchema,
  ExistenciasDeBodega: z.strictObject({
    bodegaId: id,
    capacidad,
    ocupacion,
    existencias: describe(z.array(existencia), 'Todas, en orden de id de producto.'),
  }),
  ExistenciasDeProducto: z.strictObject({
    productoId: id,
    total: describe(
      contador,
      'Todas sus unidades: la suma de sus existencias en todas las bodegas más las sin ubicar. Es su cantidadEnStock.',
    ),
    porBodega: describe(z.array(existencia), 'En orden de id de bodega.'),
    sinUbicar: describe(
      contador,
      'Unidades que no están en ninguna bodega: creadas sin bodegaId o que no cabían en la suya (no ocupan capacidad).',
    ),
  }),
  MovimientoCreate: movimientoSchema,
  TransferenciaCreate: transferenciaSchema,
  ReversoCreate: reversoSchema,
  Movimiento: movimiento,
  Operacion: objeto('Una orden y las líneas que escribió, confirmadas juntas.', {
    id: idLargo,
    tipo: z.enum(TIPOS_OPERACION),
    usuario: texto,
    comentario: texto.nullable(),
    fecha,
    revierteA: describe(positivo.nullable(), 'En un REVERSO: la operación que revierte.'),
    revertidaPor: describe(positivo.nullable(), 'Si se revirtió: la operación que la revirtió.'),
    movimientos: z.array(movimiento).min(1),
  }),
  MovimientosPagina: z.strictObject({
    movimientos: describe(z.array(movimiento), 'Los más recientes primero.'),
    siguienteCursor: describe(
      texto.nullable(),
      'Pásalo como `cursor`, con los mismos filtros, para la página siguiente; null en la última.',
    ),
  }),
  Verificacion: objeto(
    'Recalcula cada existencia desde sus líneas y cada ocupación desde sus existencias; nunca corrige nada. Se ' +
      'calcula fuera de la petición, por tramos: ' +
      'la respuesta es la última verificación completa, una empezada tras la petición cuando termina en un momento.',
    {
      consistente: z.boolean(),
      diferencias: z.array(diferencia).max(1000),
      nivelesVerificados: contador,
      bodegasVerificadas: contador,
      diferenciasReservas: describe(
        z.array(
          z.strictObject({
            tipo: z.enum(['RESERVADA', 'CONSUMIDA', 'CONSUMO_TRAS_EXPIRACION', 'REFERENCIA_ACTIVA', 'TRANSICION']),
            reservaId: positivo.nullable(),
            bodegaId: positivo.nullable(),
            productoId: positivo.nullable(),
            registrado: z.number().int(),
            calculado: z.number().int(),
          }),
        ),
        'Las comprobaciones de las reservas que fallan (adición): reservada de cada existencia frente a sus ' +
          'reservas activas, consumos, una reserva activa por referencia, un estado final por reserva.',
      ),
      verificadoEn: describe(fecha, 'Cuándo empezó la verificación: sus cifras describen ese instante.').optional(),
    },
  ),
  ErrorDeExistencias: objeto(
    `Error de una regla de las existencias (409, nada se escribe): \`error\` es ${REGLAS}, con sus cifras; o uno ` +
      `de los demás conflictos (IDEMPOTENCY_KEY_IN_USE, ALREADY_EXISTS).`,
    { ...errorShape, ...cifras },
  ),
  Reserva: reserva,
  ReservaCreate: reservaSchema,
  ConsumoCreate: consumoSchema,
  ReservaExtension: extensionSchema,
  ReservaConsumida: objeto('La reserva tras el consumo y la operación SALIDA que escribió.', {
    ...reserva.shape,
    operacionId: describe(idLargo.nullable(), 'La operación SALIDA (motivo VENTA); null si no se sacó nada.'),
  }),
  ReservasPagina: z.strictObject({
    reservas: describe(z.array(reserva), 'Las más recientes primero.'),
    siguienteCursor: describe(
      texto.nullable(),
      'Pásalo como `cursor`, con los mismos filtros, para la página siguiente; null en la última.',
    ),
  }),
  ErrorDeReserva: objeto(
    'Error de una regla de las reservas (409, nada se escribe): STOCK_INSUFICIENTE (con `lineas`), ' +
      'RESERVA_ACTIVA_EXISTENTE, o RESERVA_<ESTADO> (la reserva ya no está activa: EXPIRADA, CONSUMIDA, ' +
      'LIBERADA, DESCUBIERTA).',
    {
      ...errorShape,
      ...cifras,
      lineas: opcional(
        z.array(faltante),
        'STOCK_INSUFICIENTE: cada línea (sumada por nivel) a la que le falta stock, con lo disponible.',
      ),
      reservaId: opcional(positivo, 'La reserva activa existente, o la que ya no está activa.'),
      referencia: opcional(texto, 'RESERVA_ACTIVA_EXISTENTE: la referencia.'),
      estado: opcional(z.enum(ESTADOS_RESERVA), 'RESERVA_<ESTADO>: su estado.'),
    },
  ),
  GraphqlInfo: objeto('Respuesta de GET /api/graphql sin consulta: cómo usar el endpoint.', {
    message: texto,
    ejemplo: z.strictObject({ query: texto, variables: objetoONull, operationName: texto.nullable() }),
    endpoint: texto,
  }),
  GraphqlRequest: describe(graphqlRequest, 'Petición GraphQL over HTTP.'),
  GraphqlResponse: z
    .strictObject({
      data: objetoONull.optional(),
      errors: z.array(graphqlError).min(1).optional(),
      extensions: z.object({}).optional(),
    })
    .meta({ description: `${GRAPHQL_RESULTADO} Trae al menos uno de los dos.`, minProperties: 1 }),
  Health: objeto('Estado del BFF (forma de Spring Boot Actuator): UP solo si todas sus dependencias lo están.', {
    status: estado,
    components: opcional(
      z.record(z.string(), estadoDeServicio),
      'Cada servicio interno, por nombre (productoSvc, bodegaSvc).',
    ),
  }),
  OpenApi: describe(
    z.object({ openapi: z.string().regex(/^3\.1\./), info: z.object({}), paths: z.object({}) }),
    'Un documento OpenAPI 3.1.',
  ),
} as const;

export type SchemaName = keyof typeof COMPONENTS;
export const schemaRef = (name: SchemaName): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

/**
 * Fields a client may echo but the service owns: dropped before parsing (docs/contract.md §2.5), so documented
 * read-only here.
 */
const ignorado = (description = 'Se ignora.') => ({ readOnly: true, description });
const SOLO_LECTURA = {
  ...Object.fromEntries(READ_ONLY_FIELDS.map((campo) => [campo, ignorado()])),
  version: ignorado('Se ignora: una escritura condicional usa la cabecera If-Match.'),
};
const REQUEST_BODIES: Partial<Record<SchemaName, object>> = {
  ...Object.fromEntries(
    [
      'ProductoCreate',
      'ProductoUpdate',
      'Asignacion',
      'CambioDeUmbral',
      'MovimientoCreate',
      'TransferenciaCreate',
      'ReversoCreate',
    ].map((n) => [n, SOLO_LECTURA]),
  ),
  BodegaCreate: { ...SOLO_LECTURA, ocupacion: ignorado('Se ignora: la ocupación la dan sus existencias.') },
  BodegaUpdate: { ...SOLO_LECTURA, ocupacion: ignorado() },
};

/**
 * JSON Schema 2020-12 as a client sends it (`io: 'input'`); a field whose metadata states a `type` (a number or a query
 * text read exactly) is that.
 */
const JSON_OPTIONS = {
  target: 'draft-2020-12',
  io: 'input',
  unrepresentable: 'any',
  override: ({ zodSchema, jsonSchema }) => {
    const meta = z.globalRegistry.get(zodSchema);
    if (meta?.type === undefined) return;
    for (const key of Object.keys(jsonSchema)) if (!(key in meta)) delete jsonSchema[key];
    Object.assign(jsonSchema, meta);
  },
} as const satisfies z.core.ToJSONSchemaParams;

/** Without `$schema` and `$id`: it lives inside the document, in the document's dialect. */
const embedded = ({ $schema: _schema, $id: _id, ...rest }: Record<string, unknown>) => rest as SchemaObject;

/** A field's JSON Schema (a query parameter's). */
export const jsonOf = (schema: z.ZodType): SchemaObject => embedded(z.toJSONSchema(schema, JSON_OPTIONS));

/** components.schemas: every schema above, with `$ref`s between them. */
export function componentSchemas(): Record<string, SchemaObject> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, { ...JSON_OPTIONS, uri: (name) => `#/components/schemas/${name}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, json]) => {
      const schema = embedded(json);
      const extra = REQUEST_BODIES[name as SchemaName];
      return [name, extra ? { ...schema, properties: { ...schema.properties, ...extra } } : schema];
    }),
  );
}
