/**
 * proto/inventario/v1/events.proto is the contract other languages generate
 * code from (docs/contract.md §5.2). These tests parse the JSON we really
 * publish (buildEnvelope + JSON.stringify, as the outbox relay does) with a
 * proto3 JSON parser driven by the compiled descriptor set, so the proto cannot
 * drift from the wire format unnoticed.
 */
import { readFileSync } from 'node:fs';
import {
  createFileRegistry,
  fromBinary,
  fromJson,
  ScalarType,
  toJson,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { descriptorSetPath } from '@inventario/proto';
import {
  buildEnvelope,
  EVENT_SOURCE,
  EVENT_TYPES,
  eventAudit,
  type BodegaEventData,
  type DeletedEventData,
  type EventData,
  type EventType,
  type MovimientoRegistradoData,
  type ProductoEventData,
  type ReservaDescubiertaData,
  type StockUmbralData,
} from '@inventario/platform';

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(descriptorSetPath)));

function messageType(name: string): DescMessage {
  const desc = registry.getMessage(`inventario.v1.${name}`);
  if (!desc) throw new Error(`inventario.v1.${name} is not in ${descriptorSetPath}; run npm run generate`);
  return desc;
}

/** The data message of each event type, as events.proto documents on EventEnvelope.data. */
const DATA_MESSAGE: Record<EventType, string> = {
  ProductoCreado: 'ProductoEventData',
  ProductoActualizado: 'ProductoEventData',
  ProductoEliminado: 'DeletedEventData',
  BodegaCreada: 'BodegaEventData',
  BodegaActualizada: 'BodegaEventData',
  BodegaEliminada: 'DeletedEventData',
  MovimientoRegistrado: 'MovimientoRegistradoData',
  StockBajo: 'StockUmbralData',
  StockRepuesto: 'StockUmbralData',
  ReservaDescubierta: 'ReservaDescubiertaData',
};

const STRICT = { ignoreUnknownFields: false } as const;
const at = new Date('2026-11-22T14:03:07.456Z');

/** The message body as the relay publishes it: JSON.stringify of the envelope. */
function published(type: EventType, subject: string, data: EventData): JsonObject {
  return JSON.parse(
    JSON.stringify(buildEnvelope({ namespace: 'Service', type, source: EVENT_SOURCE[type], subject, data, at })),
  ) as JsonObject;
}

/** 64-bit integers, which proto3 JSON writes as strings (they are read from numbers). */
const INT64_SCALARS = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

/** One published value as proto3 JSON writes it back: nested messages likewise, 64-bit ids as strings. */
function writtenBackValue(field: DescField, value: JsonValue): JsonValue {
  const message =
    field.fieldKind === 'message' || (field.fieldKind === 'list' && field.listKind === 'message')
      ? field.message
      : undefined;
  if (message) return asWrittenBack(message, value);
  const scalar =
    field.fieldKind === 'scalar' || (field.fieldKind === 'list' && field.listKind === 'scalar')
      ? field.scalar
      : undefined;
  return scalar !== undefined && INT64_SCALARS.has(scalar) && typeof value === 'number' ? String(value) : value;
}

/**
 * The published data as proto3 JSON writes it back with implicit values: an
 * unset optional field (published as null) is left out, an absent list
 * (camposModificados on a creation) is the empty list, and a 64-bit id
 * (operations and ledger lines) is a string.
 */
function asWrittenBack(dataMessage: DescMessage, data: JsonValue | undefined): JsonObject {
  const published = data as JsonObject;
  const out: JsonObject = {};
  for (const field of dataMessage.fields) {
    const value = published[field.jsonName];
    if (field.fieldKind === 'list')
      out[field.jsonName] = ((value ?? []) as JsonValue[]).map((item) => writtenBackValue(field, item));
    else if (value !== null && value !== undefined) out[field.jsonName] = writtenBackValue(field, value);
  }
  return out;
}

const productoSinNada: ProductoEventData = {
  productoId: 17,
  nombre: 'Tornillo M6',
  descripcion: null,
  precio: 0.25,
  cantidadEnStock: 0,
  cantidad: 0,
  bodegaId: null,
  ...eventAudit('CREATE', 'ana', at),
  version: 1,
};
const productoCompleto: ProductoEventData = {
  productoId: 4_294_967_295,
  nombre: 'Silla ergonómica',
  descripcion: 'Respaldo de malla',
  precio: 99_999_999.99,
  cantidadEnStock: 12,
  cantidad: 12,
  bodegaId: 3,
  ...eventAudit('UPDATE', 'admin', at),
  camposModificados: ['precio', 'cantidadEnStock'],
  version: 4_294_967_295,
};
const bodegaSinUbicacion: BodegaEventData = {
  bodegaId: 7,
  nombre: 'Bodega Norte',
  ubicacion: null,
  capacidad: 500,
  ...eventAudit('CREATE', 'admin', at),
  version: 1,
};
const bodegaCompleta: BodegaEventData = {
  ...bodegaSinUbicacion,
  ubicacion: 'Santiago',
  ...eventAudit('UPDATE', 'system', at),
  camposModificados: ['ubicacion'],
  version: 2,
};
const productoEliminado: DeletedEventData = {
  id: 17,
  nombre: 'Tornillo M6',
  ...eventAudit('DELETE', 'ana', at),
  version: 3,
};
const bodegaEliminada: DeletedEventData = {
  id: 7,
  nombre: 'Bodega Norte',
  ...eventAudit('DELETE', 'system', at),
  version: 2,
};
const transferencia: MovimientoRegistradoData = {
  operacionId: 9,
  tipoOperacion: 'TRANSFERENCIA',
  usuario: 'admin',
  comentario: null,
  revierteA: null,
  timestamp: '2026-11-22T14:03:07',
  movimientos: [
    {
      id: 12,
      operacionId: 9,
      bodegaId: 1,
      productoId: 2,
      tipo: 'TRANSFERENCIA',
      motivo: 'TRANSFERENCIA',
      cantidad: -3,
      cantidadAnterior: 43,
      cantidadPosterior: 40,
      version: 3,
      usuario: 'admin',
      comentario: null,
      fecha: '2026-11-22T14:03:07',
    },
    {
      id: 13,
      operacionId: 9,
      bodegaId: 4,
      productoId: 2,
      tipo: 'TRANSFERENCIA',
      motivo: 'TRANSFERENCIA',
      cantidad: 3,
      cantidadAnterior: 0,
      cantidadPosterior: 3,
      version: 1,
      usuario: 'admin',
      comentario: null,
      fecha: '2026-11-22T14:03:07',
    },
  ],
};
/** A reversal of a sale, with comments, and ids past 2^32 (BIGINT columns). */
const reverso: MovimientoRegistradoData = {
  operacionId: 5_000_000_001,
  tipoOperacion: 'REVERSO',
  usuario: 'ana',
  comentario: 'venta anulada',
  revierteA: 5_000_000_000,
  timestamp: '2026-11-22T14:03:07',
  movimientos: [
    {
      id: 9_000_000_001,
      operacionId: 5_000_000_001,
      bodegaId: 1,
      productoId: 2,
      tipo: 'SALIDA',
      motivo: 'REVERSO',
      cantidad: 5,
      cantidadAnterior: 0,
      cantidadPosterior: 5,
      version: 8,
      usuario: 'ana',
      comentario: 'venta anulada',
      fecha: '2026-11-22T14:03:07',
    },
  ],
};
const stockBajo: StockUmbralData = {
  bodegaId: 1,
  productoId: 2,
  cantidad: 0,
  umbralMinimo: 5,
  version: 7,
  operacionId: 9,
  usuario: 'admin',
  timestamp: '2026-11-22T14:03:07',
};
/** After an operation whose id is past 2^32. */
const stockRepuesto: StockUmbralData = { ...stockBajo, cantidad: 6, version: 8, operacionId: 5_000_000_002 };
const stockBajoDisponible: StockUmbralData = {
  ...stockBajo,
  cantidad: 10,
  alertaSobre: 'DISPONIBLE',
  reservada: 7,
  disponible: 3,
};
const reservaDescubierta: ReservaDescubiertaData = {
  reservaId: 31,
  referencia: 'pedido-<1024>',
  estado: 'DESCUBIERTA',
  expiraEn: '2026-11-22T14:18:07.456Z',
  version: 2,
  lineas: [
    { id: 51, bodegaId: 1, productoId: 2, cantidad: 5, consumida: 1, retenida: 0 },
    { id: 52, bodegaId: 3, productoId: 2, cantidad: 2, consumida: 0, retenida: 0 },
  ],
  faltante: [{ bodegaId: 1, productoId: 2, unidades: 3 }],
  usuario: 'ana',
  timestamp: '2026-11-22T14:03:07',
};

const EVENTS: Array<[string, EventType, string, EventData]> = [
  ['ProductoCreado without descripcion and warehouse', 'ProductoCreado', '/productos/17', productoSinNada],
  ['ProductoActualizado with every value set', 'ProductoActualizado', '/productos/4294967295', productoCompleto],
  ['ProductoEliminado', 'ProductoEliminado', '/productos/17', productoEliminado],
  ['BodegaCreada without ubicacion', 'BodegaCreada', '/bodegas/7', bodegaSinUbicacion],
  ['BodegaActualizada with ubicacion', 'BodegaActualizada', '/bodegas/7', bodegaCompleta],
  ['BodegaEliminada', 'BodegaEliminada', '/bodegas/7', bodegaEliminada],
  [
    'MovimientoRegistrado of a transfer (two lines, no comment)',
    'MovimientoRegistrado',
    '/operaciones/9',
    transferencia,
  ],
  [
    'MovimientoRegistrado of a reversal with comments and 64-bit ids',
    'MovimientoRegistrado',
    '/operaciones/5000000001',
    reverso,
  ],
  ['StockBajo at 0 units', 'StockBajo', '/bodegas/1/existencias/2', stockBajo],
  ['StockRepuesto', 'StockRepuesto', '/bodegas/1/existencias/2', stockRepuesto],
  ['StockBajo watching disponible', 'StockBajo', '/bodegas/1/existencias/2', stockBajoDisponible],
  ['ReservaDescubierta of two levels, one short', 'ReservaDescubierta', '/reservas/31', reservaDescubierta],
];

describe('events.proto against the published JSON', () => {
  it('names a data message for each event type, all in the descriptor set', () => {
    expect([...new Set(EVENTS.map(([, type]) => type))].sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES)
      expect(messageType(DATA_MESSAGE[type]).typeName).toBe(`inventario.v1.${DATA_MESSAGE[type]}`);
  });

  it.each(EVENTS)('parses the envelope of %s strictly and writes it back unchanged', (_label, type, subject, data) => {
    const body = published(type, subject, data);
    const envelope = messageType('EventEnvelope');

    const parsed = fromJson(envelope, body, STRICT);

    expect(toJson(envelope, parsed)).toEqual(body);
  });

  it.each(EVENTS)('parses the data of %s with its data message, keeping every value', (_label, type, subject, data) => {
    const body = published(type, subject, data);
    const envelope = messageType('EventEnvelope');
    const dataMessage = messageType(DATA_MESSAGE[type]);

    // Through the envelope, as a consumer would: envelope first, then its data.
    const dataJson = (toJson(envelope, fromJson(envelope, body, STRICT)) as JsonObject).data;
    const parsed = fromJson(dataMessage, dataJson ?? null, STRICT);

    // Numbers stay JSON numbers, but for 64-bit ids, which proto3 JSON writes as strings; null comes back as absent.
    expect(toJson(dataMessage, parsed, { alwaysEmitImplicit: true })).toEqual(asWrittenBack(dataMessage, body.data));
  });

  it.each([
    ['ProductoCreado', 'BodegaEventData', 'a product read as a warehouse'],
    ['BodegaEliminada', 'ProductoEventData', 'a deletion read as a product'],
    ['StockBajo', 'MovimientoRegistradoData', 'a stock level read as an operation'],
    ['MovimientoRegistrado', 'StockUmbralData', 'an operation read as a stock level'],
    ['ReservaDescubierta', 'StockUmbralData', 'a reservation read as a stock level'],
  ] as Array<[EventType, string, string]>)(
    'rejects the data of %s read with %s (%s), so the strict checks above mean something',
    (type, wrongMessage) => {
      const source = EVENTS.find(([, t]) => t === type);
      if (!source) throw new Error(`no sample for ${type}`);
      const body = published(type, source[2], source[3]);
      expect(() => fromJson(messageType(wrongMessage), body.data ?? null, STRICT)).toThrow(/unknown/);
    },
  );
});
