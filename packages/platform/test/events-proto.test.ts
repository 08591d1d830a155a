/**
 * proto/inventario/v1/events.proto is the contract other languages generate
 * code from (ARCHITECTURE §4). These tests parse the JSON we really publish
 * (buildEnvelope + JSON.stringify, as the outbox relay does) with a proto3
 * JSON parser driven by the compiled descriptor set, so the proto cannot
 * drift from the wire format unnoticed.
 */
import { readFileSync } from 'node:fs';
import { createFileRegistry, fromBinary, fromJson, toJson, type DescMessage, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
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
  type ProductoEventData,
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
};

const STRICT = { ignoreUnknownFields: false } as const;
const at = new Date('2026-11-22T14:03:07.456Z');

/** The message body as the relay publishes it: JSON.stringify of the envelope. */
function published(type: EventType, subject: string, data: EventData): JsonObject {
  return JSON.parse(JSON.stringify(buildEnvelope({ namespace: 'Service', type, source: EVENT_SOURCE[type], subject, data, at }))) as JsonObject;
}

/**
 * The published data as proto3 JSON writes it back with implicit values: an
 * unset optional field (published as null) is left out, and an absent list
 * (camposModificados on a creation) is the empty list.
 */
function asWrittenBack(dataMessage: DescMessage, data: JsonValue | undefined): JsonObject {
  const lists = dataMessage.fields.filter((field) => field.fieldKind === 'list').map((field): [string, JsonValue] => [field.jsonName, []]);
  return { ...Object.fromEntries(lists), ...Object.fromEntries(Object.entries(data as JsonObject).filter(([, value]) => value !== null)) };
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
const productoEliminado: DeletedEventData = { id: 17, nombre: 'Tornillo M6', ...eventAudit('DELETE', 'ana', at), version: 3 };
const bodegaEliminada: DeletedEventData = { id: 7, nombre: 'Bodega Norte', ...eventAudit('DELETE', 'system', at), version: 2 };

const EVENTS: Array<[string, EventType, string, EventData]> = [
  ['ProductoCreado without descripcion and warehouse', 'ProductoCreado', '/productos/17', productoSinNada],
  ['ProductoActualizado with every value set', 'ProductoActualizado', '/productos/4294967295', productoCompleto],
  ['ProductoEliminado', 'ProductoEliminado', '/productos/17', productoEliminado],
  ['BodegaCreada without ubicacion', 'BodegaCreada', '/bodegas/7', bodegaSinUbicacion],
  ['BodegaActualizada with ubicacion', 'BodegaActualizada', '/bodegas/7', bodegaCompleta],
  ['BodegaEliminada', 'BodegaEliminada', '/bodegas/7', bodegaEliminada],
];

describe('events.proto against the published JSON', () => {
  it('names a data message for each of the six event types, all in the descriptor set', () => {
    expect(EVENTS.map(([, type]) => type).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) expect(messageType(DATA_MESSAGE[type]).typeName).toBe(`inventario.v1.${DATA_MESSAGE[type]}`);
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

    // Numbers stay JSON numbers (no int64 strings); null comes back as absent.
    expect(toJson(dataMessage, parsed, { alwaysEmitImplicit: true })).toEqual(asWrittenBack(dataMessage, body.data));
  });

  it.each([
    ['ProductoCreado', 'BodegaEventData', 'a product read as a warehouse'],
    ['BodegaEliminada', 'ProductoEventData', 'a deletion read as a product'],
  ] as Array<[EventType, string, string]>)('rejects the data of %s read with %s (%s), so the strict checks above mean something', (type, wrongMessage) => {
    const source = EVENTS.find(([, t]) => t === type);
    if (!source) throw new Error(`no sample for ${type}`);
    const body = published(type, source[2], source[3]);
    expect(() => fromJson(messageType(wrongMessage), body.data ?? null, STRICT)).toThrow(/unknown/);
  });
});
