import { z } from 'zod';
import { EVENT_SOURCE, type EventType } from '@inventario/platform';

/**
 * docs/contract.md §5.2, §5.3, §6.3: lenient where producers legitimately
 * differ, strict where an email could not be written without the field.
 * A failure here is permanent: redelivery cannot fix it.
 */

/** UTC by contract; a zone suffix, if present, is honoured. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

const timestamp = z
  .string()
  .regex(TIMESTAMP, 'must be an ISO 8601 timestamp such as 2026-11-22T14:03:07')
  .transform((value, ctx) => {
    const date = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'is not a real date' });
      return z.NEVER;
    }
    return date;
  });

const id = z.number().int().positive();

/**
 * Shape, not business rules: every stored value passes (TEXT, VARCHAR(255)
 * with room for older producers), yet no event makes an email of any size.
 */
export const MAX_LONG_TEXT_UNITS = 65_535;
export const MAX_SHORT_TEXT_UNITS = 1000;
const longText = z.string().max(MAX_LONG_TEXT_UNITS);
const text = z.string().max(MAX_SHORT_TEXT_UNITS);
/** More levels than any reservation holds (the gateway caps a request's lines), fewer than make a runaway email. */
export const MAX_LINEAS = 500;

/** Optional for older producers. */
const audit = {
  usuario: text.optional(),
  timestamp: z.string().optional(),
};

/** A malformed list costs only the "changed fields" display, never the email. */
const camposModificados = z.array(z.string().max(100)).max(100).nullish().catch(null);

/** Either historical variant. */
export const productoDataSchema = z.object({
  ...audit,
  productoId: id,
  nombre: text,
  descripcion: longText.nullish(),
  precio: z.union([z.number(), z.string().max(32)]).nullish(),
  cantidadEnStock: z.number().int().nullish(),
  cantidad: z.number().int().nullish(),
  bodegaId: id.nullish(),
  camposModificados,
});
export type ProductoData = z.infer<typeof productoDataSchema>;

export const bodegaDataSchema = z.object({
  ...audit,
  bodegaId: id,
  nombre: text,
  ubicacion: text.nullish(),
  capacidad: z.number().int().nullish(),
  camposModificados,
});
export type BodegaData = z.infer<typeof bodegaDataSchema>;

export const deletedDataSchema = z.object({
  ...audit,
  id,
  nombre: text.nullish(),
});
export type DeletedData = z.infer<typeof deletedDataSchema>;

export const stockUmbralDataSchema = z.object({
  ...audit,
  bodegaId: id,
  productoId: id,
  cantidad: z.number().int(),
  umbralMinimo: z.number().int().nullish(),
  version: z.number().int().nullish(),
  operacionId: id.nullish(),
  // Added (docs/contract.md §13.9): a threshold watching the units no reservation holds.
  alertaSobre: z.string().max(20).nullish(),
  reservada: z.number().int().nullish(),
  disponible: z.number().int().nullish(),
});
export type StockUmbralData = z.infer<typeof stockUmbralDataSchema>;

/**
 * ReservaDescubierta (docs/contract.md §13.4): without a reference or a shortfall there is nothing to tell; the lines
 * are shown when present, and a newer producer's extra fields are ignored.
 */
export const reservaDescubiertaDataSchema = z.object({
  ...audit,
  reservaId: id,
  referencia: text,
  expiraEn: timestamp.nullish(),
  lineas: z
    .array(
      z.object({
        bodegaId: id,
        productoId: id,
        cantidad: z.number().int(),
        consumida: z.number().int().nullish(),
      }),
    )
    .max(MAX_LINEAS)
    .nullish(),
  faltante: z
    .array(z.object({ bodegaId: id, productoId: id, unidades: z.number().int().positive() }))
    .min(1)
    .max(MAX_LINEAS),
});
export type ReservaDescubiertaData = z.infer<typeof reservaDescubiertaDataSchema>;

/** `data` is checked by the event type's handler. */
export const envelopeSchema = z.object({
  /** Any short id: it keys de-duplication. */
  id: z.string().min(1).max(200),
  eventType: z.string().max(300),
  subject: z.string().max(300),
  eventTime: timestamp,
  /** Changes within a major version are additive. */
  dataVersion: z.string().regex(/^1(\.\d+)?$/, 'must be 1.x'),
  source: z.string().max(100).optional(),
  data: z.unknown(),
});

export interface ParsedEvent<D> {
  id: string;
  eventType: string;
  subject: string;
  eventTime: Date;
  data: D;
}

export type ParseResult<D> = { ok: true; event: ParsedEvent<D> } | { ok: false; reason: string };

function describeIssues(error: z.ZodError, root?: string): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${[root, ...issue.path.map(String)].filter(Boolean).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}

/** Never throws. A wrong or missing `source` means forged or misrouted: no email. */
export function parseEvent<D>(
  payload: string,
  expected: { type: EventType; namespace: string },
  dataSchema: z.ZodType<D>,
): ParseResult<D> {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return { ok: false, reason: 'payload is not JSON' };
  }
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) return { ok: false, reason: `invalid envelope: ${describeIssues(envelope.error)}` };
  const eventType = `${expected.namespace}.Inventario.${expected.type}`;
  if (envelope.data.eventType !== eventType) {
    return { ok: false, reason: `eventType is not ${eventType} on this subject` };
  }
  if (envelope.data.source !== EVENT_SOURCE[expected.type]) {
    return { ok: false, reason: `source is not ${EVENT_SOURCE[expected.type]}, the producer of ${expected.type}` };
  }
  const data = dataSchema.safeParse(envelope.data.data);
  if (!data.success) return { ok: false, reason: `invalid data: ${describeIssues(data.error, 'data')}` };
  const { id: eventId, subject, eventTime } = envelope.data;
  return { ok: true, event: { id: eventId, eventType, subject, eventTime, data: data.data } };
}
